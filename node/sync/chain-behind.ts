/**
 * The chain behind an adopted snapshot. A snapshot carries the state, not the commits before it,
 * so a node that adopts one would know neither which authors earlier commits excluded (it would
 * take their contributions again, and every honest node would refuse and charge its commits for
 * holding them) nor where its chain parts from a peer's when the fork is older than the snapshot
 * (the deep fork choice needs the commit both sides share). So after adopting a snapshot a node
 * reads the commits behind its anchor, as many as peers keep (CHAIN_KEEP), and keeps those linked
 * to the anchor by hash: a commit whose hash its successor names is the chain the anchor builds
 * on, so signatures need no checking (their form is checked: the ids are Ed25519 keys), and no
 * peer can add a commit, or an exclusion, that is not there. A peer can only serve fewer: the
 * longest linked run among up to three peers is kept.
 */
import type { PeerId } from "@libp2p/interface";
import { equalBytes } from "../../protocol/bytes.js";
import { commitHash } from "../../protocol/codec.js";
import { CHAIN_KEEP, type EncodedCommit } from "../chain/commit.js";
import { checkedCommit } from "../chain/commit-wire.js";
import type { SwarmNode } from "../network/libp2p.js";
import { MAX_COMMITS_PER_RESPONSE } from "../../protocol/limits.js";
import { defaultSyncOptions, fetchCommits } from "./protocols.js";

/** Peers asked, in turn, until one serves a run linked back over the whole window. */
const PEERS_ASKED = 3;
/** All the reading may take: slow or silent peers cost at most this, then what was linked is kept. */
const READ_FOR_MS = 20_000;

/** Hash links vouch for these commits: their signatures were checked by the chain that holds them. */
const LINKED = () => true;

/**
 * The commits behind `anchor` (oldest first, the last one its parent), linked to it by hash, as
 * far back as `keep` commits, read from up to PEERS_ASKED of `peers`. Failures and garbage only
 * shorten it: never a throw.
 */
export async function chainBehind(node: SwarmNode, runId: string, anchor: EncodedCommit, peers: readonly PeerId[], keep = CHAIN_KEEP): Promise<EncodedCommit[]> {
  const from = Math.max(0, anchor.commit.iteration - keep);
  const until = Date.now() + READ_FOR_MS;
  let best: EncodedCommit[] = [];
  if (anchor.commit.iteration === 0) return best;
  for (const peer of peers.slice(0, PEERS_ASKED)) {
    if (Date.now() >= until) break;
    const run = await linkedFrom(node, runId, anchor, from, peer, until);
    if (run.length > best.length) best = run;
    if (best[0]?.commit.iteration === from) break;
  }
  return best;
}

/**
 * `peer`'s commits from `from` to the anchor, walked back from it while each hash is what its
 * successor names. Read newest first, a page ending at the anchor, then the page before it: the
 * commits next to the anchor are the ones a fork check needs, and a read cut short by the deadline
 * keeps them. Read oldest first, a cut read kept nothing, since the walk back starts at the anchor
 * (fuzz run, 2026-11-28: reads took 12-20 s of the 20 s allowed under the flood).
 */
async function linkedFrom(node: SwarmNode, runId: string, anchor: EncodedCommit, from: number, peer: PeerId, until: number): Promise<EncodedCommit[]> {
  const run: EncodedCommit[] = [];
  let expected = anchor.commit.prevHash;
  /** The oldest iteration linked so far (the anchor's to start). */
  let end = anchor.commit.iteration;
  // A page is MAX_COMMITS_PER_RESPONSE commits unless the peer's byte budget cuts it: then the
  // stride shrinks to what it served, so the next page reaches the commit before `end`.
  let stride = MAX_COMMITS_PER_RESPONSE;
  while (end > from) {
    const left = until - Date.now();
    if (left <= 0) break;
    const at = Math.max(from, end - stride);
    const got = await fetchCommits(node, peer, runId, at, Math.min(left, defaultSyncOptions.requestTimeoutMs)).catch(() => [] as Uint8Array[]);
    const page = new Map<number, EncodedCommit>();
    for (const bytes of got) {
      let c: EncodedCommit;
      try {
        c = checkedCommit(bytes, LINKED);
      } catch {
        break;
      }
      const t = c.commit.iteration;
      if (c.commit.runId !== runId || t >= end) break;
      if (t >= at) page.set(t, c);
    }
    const before = end;
    for (let t = end - 1; t >= at; t--) {
      const c = page.get(t);
      if (!c || !equalBytes(commitHash(c.encoded), expected)) break;
      run.push(c);
      expected = c.commit.prevHash;
      end = t;
    }
    if (end === before) {
      // Nothing linked: a page cut short of `end` (try again with its length), or the peer keeps
      // nothing linked there (its chain starts later, or is another).
      const served = page.size;
      if (served === 0 || served >= stride || end - at <= served) break;
      stride = served;
    } else if (end > at) break; // a link failed inside the page: a commit off the anchor's chain
  }
  return run.reverse();
}

/**
 * Of `held` (verified commits a node already holds, oldest first), the run linked by hash to
 * `anchor`: from the anchor's parent back while each hash is what its successor names, at most
 * `keep` of them, oldest first. Nothing is read from the network.
 */
export function linkedTo(anchor: EncodedCommit, held: readonly EncodedCommit[], keep = CHAIN_KEEP): EncodedCommit[] {
  const run: EncodedCommit[] = [];
  let expected = anchor.commit.prevHash;
  let t = anchor.commit.iteration - 1;
  for (let i = held.length - 1; i >= 0 && run.length < keep && t >= 0; i--) {
    const c = held[i];
    const { iteration, prevHash } = c.commit;
    if (iteration > t) continue;
    if (iteration < t || !equalBytes(commitHash(c.encoded), expected)) break;
    run.push(c);
    expected = prevHash;
    t--;
  }
  return run.reverse();
}

/**
 * `peers` with the snapshot's `holders` (peer id strings) first: they served its verified chunks,
 * so they are on the chain behind it. Connected peers in their own order asked first read
 * nothing when they were strangers or on another chain (fuzz run, 2026-11-28: 0 commits behind a
 * fork switch's snapshot, so the node's kept chain began there, its next fork was older than
 * anything it kept, and it trained alone for 4,900 iterations).
 */
export function holdersFirst(peers: readonly PeerId[], holders: readonly string[]): PeerId[] {
  const served = new Set(holders);
  return [...peers.filter((p) => served.has(p.toString())), ...peers.filter((p) => !served.has(p.toString()))];
}

/** The authors `commits` exclude (peer id strings), each once. */
export function excludedBy(commits: readonly EncodedCommit[]): string[] {
  return [...new Set(commits.flatMap((c) => (c.commit.exclusions ?? []).map((x) => x.author)))];
}
