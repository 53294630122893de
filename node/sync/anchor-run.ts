/**
 * What vouches for a joiner's snapshot when its own chain does not reach it: the verified commit
 * that produced the state, found as the head of a linked run of verified commits a peer serves
 * (`anchorRun`), or, for the run's initial state, the checksum the RunSpec names. Used by catch-up
 * (a node behind its peers) and by a node without the initial weights (initial-state.ts), which
 * has no chain at all yet.
 */
import type { PeerId } from "@libp2p/interface";
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { admissionFrom, rankFits } from "../chain/admission.js";
import { chained, type Commit, type EncodedCommit } from "../chain/commit.js";
import { commitFromBytes } from "../chain/commit-wire.js";
import { PENALTY } from "../chain/penalties.js";
import type { SwarmNode } from "../network/libp2p.js";
import type { Peers } from "../network/peers.js";
import type { Logger } from "../observe/logger.js";
import { fetchCommits } from "./protocols.js";
import type { SnapshotReference } from "./snapshot-fetch.js";

/** What looking for an anchor works with. */
export interface AnchorParts {
  readonly libp2p: SwarmNode;
  readonly runId: string;
  readonly peers: Pick<Peers, "connected" | "admits">;
  readonly log: Logger;
  /** Charges a peer that served a commit failing verification (absent: nobody is charged). */
  readonly blame?: (peer: string, reason: string, cost: number) => void;
}

/**
 * A commits reply, verified exactly like gossip: each commit's signatures here (commitFromBytes,
 * the check gossip validation runs); its rank and checksum are the caller's to check. Stops at the
 * first commit that fails (its server is charged); returns the commits before it, in order.
 */
export function verifiedReply(s: AnchorParts, peer: PeerId, got: readonly Uint8Array[]): EncodedCommit[] {
  const out: EncodedCommit[] = [];
  for (const bytes of got) {
    try {
      out.push(commitFromBytes(bytes));
    } catch (err) {
      const reason = `served a commit that does not verify: ${(err as Error).message}`;
      s.log.warn({ peer: peer.toString(), reason }, "commits reply refused");
      s.blame?.(peer.toString(), reason, PENALTY.badReply);
      break;
    }
  }
  return out;
}

/**
 * A joiner's anchor (no chain of its own there yet): the commit for `from` served by `peer`, if
 * it and the commits the peer serves after it form a linked run: each verified as gossip
 * verifies (commitFromBytes), of this run, consecutive, chained by hash, and from the second on
 * at the rank its proposer holds among the previous commit's authors. The first commit's rank
 * cannot be checked (its predecessor's authors are unknown): docs/security.md, attack 5.
 */
export async function anchorRun(s: AnchorParts, peer: PeerId, from: number): Promise<EncodedCommit | null> {
  const got = await fetchCommits(s.libp2p, peer, s.runId, from).catch(() => []);
  // In a member run, a run with a non-member proposer or author is no run of ours (gossip drops
  // such commits; /commits replies are checked here), so Sybils cannot anchor a joiner there.
  const admitted = (c: EncodedCommit) => s.peers.admits(c.commit.proposer) && c.commit.entries.every((e) => s.peers.admits(e.author.id));
  const verified = verifiedReply(s, peer, got);
  const cut = verified.findIndex((c) => !admitted(c));
  const run = cut < 0 ? verified : verified.slice(0, cut);
  const first = run[0];
  if (!first || first.commit.iteration !== from || first.commit.runId !== s.runId) return null;
  let prev = chained(first);
  const before: Commit[] = [first.commit];
  for (const next of run.slice(1)) {
    const { commit } = next;
    if (commit.iteration !== prev.commit.iteration + 1 || !equalBytes(commit.prevHash, prev.hash)) break;
    if (!rankFits(s.runId, admissionFrom(s.runId, commit.iteration, before), commit).holds) {
      s.log.warn({ peer: peer.toString(), iteration: commit.iteration }, "anchor run: a commit at a rank its proposer does not hold");
      return null;
    }
    prev = chained(next);
    before.push(commit);
  }
  return first;
}

/**
 * What vouches for a snapshot at `iteration` that our own chain does not reach: at iteration 0 the
 * run's initial checksum (`initialChecksum`: a transformer spec's model.weightsHash; null: none
 * known, a snapshot at 0 is refused), later the head of an anchor run served by a connected peer
 * (peers that do not serve the snapshot asked first). Never a holder's word.
 */
export async function joinerReference(
  s: AnchorParts,
  iteration: number,
  holders: readonly PeerId[],
  initialChecksum: string | null,
): Promise<SnapshotReference | null> {
  if (iteration === 0) return initialChecksum === null ? null : { checksum: initialChecksum, anchor: null };
  const serving = new Set(holders.map(String));
  const connected = s.peers.connected();
  const order = [...connected.filter((p) => !serving.has(p.toString())), ...connected.filter((p) => serving.has(p.toString()))];
  for (const peer of order) {
    const run = await anchorRun(s, peer, iteration - 1);
    if (run) return { checksum: toHex(run.commit.checksum), anchor: run };
  }
  return null;
}
