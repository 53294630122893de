/**
 * Who the chain excluded before a joiner's snapshot. A snapshot carries the state, not the chain
 * behind it, so a node that adopts one would not know which authors earlier commits excluded: it
 * would take their contributions again, and every honest node would refuse (and charge) its
 * commits for holding them. So after adopting a snapshot a node reads the commits behind its
 * anchor (as many as peers keep, CHAIN_KEEP) and keeps the exclusions of those linked to the
 * anchor by hash: a commit whose hash the next one names is the chain the anchor builds on, so no
 * signature needs checking, and no peer can add an exclusion (or a commit) that is not there. A
 * peer can only serve less; the union over the peers asked is kept.
 */
import type { PeerId } from "@libp2p/interface";
import { equalBytes } from "../../protocol/bytes.js";
import { commitHash, decodeCommit } from "../../protocol/codec.js";
import { peerIdString } from "../../protocol/signing.js";
import { CHAIN_KEEP, type EncodedCommit } from "../chain/commit.js";
import type { SwarmNode } from "../network/libp2p.js";
import { fetchCommits } from "./protocols.js";

/** Peers asked, in turn, until one serves a run linked back over the whole window. */
const PEERS_ASKED = 3;

/** What one commit behind the anchor contributes: its hash links, and what it excludes. */
interface Behind {
  readonly hash: Uint8Array;
  readonly prevHash: Uint8Array;
  readonly excludes: readonly string[];
}

/**
 * The authors excluded by the commits behind `anchor` (author -> iteration of the excluding
 * commit), read from up to PEERS_ASKED of `peers`. Failures and garbage only shorten what is
 * learnt: never a throw.
 */
export async function exclusionsBehind(
  node: SwarmNode,
  runId: string,
  anchor: EncodedCommit,
  peers: readonly PeerId[],
  keep = CHAIN_KEEP,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const from = Math.max(0, anchor.commit.iteration - keep);
  if (anchor.commit.iteration === 0) return out;
  for (const peer of peers.slice(0, PEERS_ASKED)) {
    const reached = await linkedFrom(node, runId, anchor, from, peer, out);
    if (reached === from) break;
  }
  return out;
}

/**
 * Fetches `peer`'s commits from `from` to the anchor, walks them back from the anchor while each
 * hash is what its successor names, and adds their exclusions to `out`; returns the oldest
 * iteration linked (the anchor's when none).
 */
async function linkedFrom(node: SwarmNode, runId: string, anchor: EncodedCommit, from: number, peer: PeerId, out: Map<string, number>): Promise<number> {
  const byIteration = new Map<number, Behind>();
  for (let at = from; at < anchor.commit.iteration; ) {
    const got = await fetchCommits(node, peer, runId, at).catch(() => [] as Uint8Array[]);
    let next = at;
    for (const bytes of got) {
      let c;
      try {
        c = decodeCommit(bytes);
      } catch {
        break;
      }
      if (c.runId !== runId || c.iteration < next || c.iteration >= anchor.commit.iteration) break;
      byIteration.set(c.iteration, { hash: commitHash(bytes), prevHash: c.prevHash, excludes: (c.exclusions ?? []).map((x) => peerIdString(x.author)) });
      next = c.iteration + 1;
    }
    if (next === at) break;
    at = next;
  }
  let expected = anchor.commit.prevHash;
  let t = anchor.commit.iteration - 1;
  for (; t >= from; t--) {
    const c = byIteration.get(t);
    if (!c || !equalBytes(c.hash, expected)) break;
    for (const author of c.excludes) if (!out.has(author)) out.set(author, t);
    expected = c.prevHash;
  }
  return t + 1;
}
