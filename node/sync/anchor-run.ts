/**
 * What vouches for a joiner's snapshot when its own chain does not reach it: the verified commit
 * that produced the state, found as the head of a linked run of verified commits a peer serves
 * (`anchorRun`), or, for the run's initial state, the checksum the RunSpec names. Used by catch-up
 * (a node behind its peers) and by a node without the initial weights (initial-state.ts), which
 * has no chain at all yet.
 */
import type { PeerId } from "@libp2p/interface";
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { type CommitMessage, commitHash, decodeCommit } from "../../protocol/codec.js";
import { checkCommit, peerIdString, type SignatureCheck } from "../../protocol/signing.js";
import { admissionFrom, rankFits } from "../chain/admission.js";
import { chained, type Commit, type EncodedCommit } from "../chain/commit.js";
import { commitFromWire } from "../chain/commit-wire.js";
import { sharedVerifier } from "../chain/signatures.js";
import { PENALTY } from "../chain/penalties.js";
import type { SwarmNode } from "../network/libp2p.js";
import type { Peers } from "../network/peers.js";
import type { Logger } from "../ground/index.js";
import { defaultSyncOptions, fetchCommits } from "./protocols.js";
import type { SnapshotReference } from "./snapshot-fetch.js";

/** What looking for an anchor works with. */
export interface AnchorParts {
  readonly libp2p: SwarmNode;
  readonly runId: string;
  readonly peers: Pick<Peers, "connected" | "admits">;
  readonly log: Logger;
  /** Charges a peer that served a commit failing verification (absent: nobody is charged). */
  readonly blame?: (peer: string, reason: string, cost: number) => void;
  /**
   * The run's algorithm's payload check (gossip validation runs the same): a served commit with a
   * payload no honest node can make is refused here, never applied (finding 13). Absent: none.
   */
  readonly payloadProblem?: (payload: Uint8Array, iteration: number) => string | null;
  /** The Ed25519 check (absent: the process's shared, cached one; a test may count calls). */
  readonly check?: SignatureCheck;
}

/** What a caller asked a commits reply for: what it can use, so nothing else costs a verification. */
export interface ReplyWanted {
  /** The first iteration asked: commits before it are skipped unverified. */
  readonly from?: number;
  /** The last iteration of use: commits after it are dropped unverified. */
  readonly upTo?: number;
  /** The hash the first commit kept must chain to (our head's, on a pull). */
  readonly after?: Uint8Array;
}

function admitted(s: AnchorParts, m: CommitMessage): boolean {
  return s.peers.admits(peerIdString(m.proposer)) && m.entries.every((e) => s.peers.admits(peerIdString(e.author)));
}

/** Why a served commit is refused before or after its signatures (null: it holds). */
function payloadsProblem(s: AnchorParts, m: CommitMessage): string | null {
  if (!s.payloadProblem) return null;
  for (const [i, e] of m.entries.entries()) {
    const problem = s.payloadProblem(e.payload, m.iteration);
    if (problem) return `entries[${i}]: ${problem}`;
  }
  return null;
}

/**
 * A commits reply, verified exactly like gossip: each commit's signatures (checkCommit, the check
 * gossip validation runs) and payloads (the algorithm's check); its rank and checksum are the
 * caller's to check. A reply may hold 256 commits of 1,000 entry signatures each, so what costs
 * nothing comes first (finding 5): only the iterations `want` names are kept, and only the run
 * linked by hash from the first (to `want.after` when given), cut at the first break, before any
 * signature is verified. Then each is verified in order, and the first that fails (its server is
 * charged) ends the reply. Returns the commits before it, in order.
 */
export function verifiedReply(s: AnchorParts, peer: PeerId, got: readonly Uint8Array[], want: ReplyWanted = {}): EncodedCommit[] {
  const refuse = (why: string) => {
    const reason = `served a commit that does not verify: ${why}`;
    s.log.warn({ peer: peer.toString(), reason }, "commits reply refused");
    s.blame?.(peer.toString(), reason, PENALTY.badReply);
  };
  const linked: { m: CommitMessage; bytes: Uint8Array }[] = [];
  let prevHash = want.after;
  for (const bytes of got) {
    let m: CommitMessage;
    try {
      m = decodeCommit(bytes);
    } catch (err) {
      refuse((err as Error).message);
      break;
    }
    if (want.from !== undefined && m.iteration < want.from) continue;
    if (want.upTo !== undefined && m.iteration > want.upTo) break;
    const last = linked.at(-1);
    if (last && m.iteration !== last.m.iteration + 1) break;
    if (prevHash && !equalBytes(m.prevHash, prevHash)) break;
    // A member run's commits are all members' (gossip drops the others): a non-member's ends the
    // run here, before its signatures.
    if (!admitted(s, m)) break;
    linked.push({ m, bytes });
    prevHash = commitHash(bytes);
  }
  const out: EncodedCommit[] = [];
  const check = s.check ?? sharedVerifier.check;
  for (const { m, bytes } of linked) {
    const problem = payloadsProblem(s, m);
    if (problem) {
      refuse(problem);
      break;
    }
    try {
      checkCommit(m, bytes, check);
    } catch (err) {
      refuse((err as Error).message);
      break;
    }
    out.push({ commit: commitFromWire(m), encoded: bytes });
  }
  return out;
}

/**
 * A joiner's anchor (no chain of its own there yet): the commit for `from` served by `peer`, if
 * it and the commits the peer serves after it form a linked run: each verified as gossip
 * verifies (commitFromBytes), of this run, consecutive, chained by hash, and from the second on
 * at the rank its proposer holds among the previous commit's authors. The first commit's rank
 * cannot be checked (its predecessor's authors are unknown): docs/security.md, attack 5; so one
 * peer's run is never enough (joinerReference). Asked by `until`.
 */
export async function anchorRun(s: AnchorParts, peer: PeerId, from: number, until = Date.now() + defaultSyncOptions.requestTimeoutMs): Promise<EncodedCommit | null> {
  const left = Math.min(defaultSyncOptions.requestTimeoutMs, until - Date.now());
  if (left <= 0) return null;
  const got = await fetchCommits(s.libp2p, peer, s.runId, from, left).catch(() => []);
  // In a member run, a run with a non-member proposer or author is no run of ours (gossip drops
  // such commits; /commits replies are checked here), so Sybils cannot anchor a joiner there.
  const admitted = (c: EncodedCommit) => s.peers.admits(c.commit.proposer) && c.commit.entries.every((e) => s.peers.admits(e.author.id));
  const verified = verifiedReply(s, peer, got, { from });
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
 * Distinct peers that must serve the same anchor (the same commit hash at the anchor iteration,
 * each heading a linked run) before a joiner takes it, where it can ask that many. One was
 * enough, and the first commit's rank cannot be checked: a single Sybil signing a commit far
 * ahead anchored a joiner to a fabricated chain for good (security review, finding 8). Two is
 * the least that takes more than one identity's word, and it costs an honest joiner nothing: a
 * snapshot iteration every honest peer holds is served by all of them. It is no defence against
 * a joiner whose connected peers are mostly Sybils (weak subjectivity, docs/security.md); against
 * one liar among honest peers, or a fabricated head only one peer claims, it is.
 */
export const ANCHOR_QUORUM = 2;
/** Peers asked for the anchor at once, and in all: bounds the commits pages verified per candidate. */
const ANCHOR_ASKS = 3;
const ANCHOR_PEERS = 8;
/** All asking for one candidate's anchor may take. */
const ANCHOR_ASK_MS = 15_000;

/**
 * What vouches for a snapshot at `iteration` that our own chain does not reach: at iteration 0 the
 * run's initial checksum (`initialChecksum`: a transformer spec's model.weightsHash; null: none
 * known, a snapshot at 0 is refused), later the head of an anchor run that ANCHOR_QUORUM distinct
 * connected peers serve alike (peers that do not serve the snapshot asked first: a holder's own
 * word counts last). With fewer connected peers than the quorum, all of them must serve it. Two
 * different anchors at one iteration: the one more peers serve, and none on a tie. Never a
 * holder's word alone while another peer could be asked.
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
  const order = [...connected.filter((p) => !serving.has(p.toString())), ...connected.filter((p) => serving.has(p.toString()))].slice(0, ANCHOR_PEERS);
  const need = Math.min(ANCHOR_QUORUM, order.length);
  const until = Date.now() + ANCHOR_ASK_MS;
  const byHash = new Map<string, { anchor: EncodedCommit; peers: string[] }>();
  const best = () => [...byHash.values()].sort((a, b) => b.peers.length - a.peers.length);
  for (let i = 0; i < order.length && Date.now() < until; i += ANCHOR_ASKS) {
    const batch = order.slice(i, i + ANCHOR_ASKS);
    const runs = await Promise.all(batch.map((peer) => anchorRun(s, peer, iteration - 1, until)));
    runs.forEach((run, k) => {
      if (!run) return;
      const key = toHex(chained(run).hash);
      const entry = byHash.get(key) ?? { anchor: run, peers: [] };
      entry.peers.push(batch[k].toString());
      byHash.set(key, entry);
    });
    const [top, second] = best();
    if (top && top.peers.length >= need && top.peers.length > (second?.peers.length ?? 0)) break;
  }
  const [top, second] = best();
  if (!top || top.peers.length < need || top.peers.length === (second?.peers.length ?? 0)) {
    if (top) s.log.info({ iteration, anchors: byHash.size, vouchers: top.peers.length, need, asked: order.length }, "anchor not vouched for by a quorum of peers; not used");
    return null;
  }
  return { checksum: toHex(top.anchor.commit.checksum), anchor: top.anchor, vouchers: top.peers.length };
}
