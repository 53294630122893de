/**
 * The commit: what one iteration applied, signed by its proposer and chained by hash (brief
 * section 5). This file holds its type and the orders every node computes the same way from
 * verified data alone: who may propose an iteration at which rank, and which of two valid
 * commits for one iteration wins.
 */
import { sha256Hex, toHex } from "../../protocol/bytes.js";
import { commitHash } from "../../protocol/codec.js";
import type { Contribution } from "../../training/algorithms/contribution.js";
import { BoundedMap } from "../ground/index.js";

/** A contribution with its author's signature (over the iteration and parent it was made for). */
export interface SignedContribution extends Contribution {
  readonly signature: Uint8Array;
  /**
   * Pipelined rounds: measured this many iterations before its own, on the state after commit
   * (iteration - 1 - staleness), over whose hash it is signed. Absent: 0.
   */
  readonly staleness?: number;
}

/**
 * An author a commit excludes from the run: its signed contribution in this chain's commit
 * `iteration` does not recompute (node/chain/audits.ts). Its entries are invalid from the
 * excluding commit on.
 */
export interface Exclusion {
  readonly author: string;
  readonly iteration: number;
}

/** A commit as the chain holds it (author ids are peer id strings; the wire form is CommitMessage). */
export interface Commit {
  readonly runId: string;
  readonly iteration: number;
  readonly prevHash: Uint8Array;
  readonly entries: readonly SignedContribution[];
  readonly checksum: Uint8Array;
  /** The rank the proposer signed; valid only when it is rankOf(...) (see there). */
  readonly rank: number;
  /** The peer id that signed the commit. */
  readonly proposer: string;
  /** Authors this commit excludes (absent or empty: none). */
  readonly exclusions?: readonly Exclusion[];
  /** Hashes of commits iteration - 2, - 3, ...: the parents of stale entries (absent: none stale). */
  readonly olderParents?: readonly Uint8Array[];
}

/**
 * A commit with the exact bytes it travelled (or was made) as. Its hash, the next commit's
 * prevHash, is SHA-256 of those bytes: a received commit is hashed as received, never re-encoded.
 */
export interface EncodedCommit {
  readonly commit: Commit;
  readonly encoded: Uint8Array;
}

/** A commit in the chain: its bytes and their hash. */
export interface ChainedCommit extends EncodedCommit {
  readonly hash: Uint8Array;
}

/**
 * Commits (and checksums) a node keeps in memory: served to joiners and checksum queries, and
 * restored from the commit log after a restart.
 */
export const CHAIN_KEEP = 4096;

/** The prevHash of the first commit of a chain. */
export const ZERO_HASH = new Uint8Array(32);

/** Adds the hash to an encoded commit. */
export function chained(c: EncodedCommit): ChainedCommit {
  // Not a spread: a kept commit's `commit` is a getter (applied-history.ts).
  return { commit: c.commit, encoded: c.encoded, hash: commitHash(c.encoded) };
}

/**
 * The fork choice between two valid commits for the same iteration and prevHash: lower rank,
 * then lower hash. Never the entry count: entries cost a Sybil nothing, so "more" would let one
 * win by padding. The ranks compared must be verified (rankOf), which is what makes this safe.
 */
export function isBetter(a: Commit, ha: Uint8Array, b: Commit, hb: Uint8Array): boolean {
  if (a.rank !== b.rank) return a.rank < b.rank;
  return toHex(ha) < toHex(hb);
}

/** Why `a` won isBetter over `b`, for the log line of the switch. */
export function betterBecause(a: Commit, b: Commit): string {
  return a.rank !== b.rank ? `rank ${a.rank} beats rank ${b.rank}` : `both rank ${a.rank}: lower hash`;
}

/**
 * Orders computed lately, by their exact arguments: the rounds ask for the same round's order on
 * every contribution that arrives (is it our turn yet?), the rank check and the next round's tick
 * again, and each costs one SHA-256 per candidate. A few rounds' worth, keyed unambiguously (JSON).
 */
const ORDERS = new BoundedMap<string, readonly string[]>(16);

/** Rank order of candidates for proposing iteration t: ascending H(runId, t, peer). */
export function proposerOrder(runId: string, iteration: number, candidates: Iterable<string>): string[] {
  const list = [...candidates];
  const memo = JSON.stringify([runId, iteration, list]);
  const known = ORDERS.get(memo);
  if (known) return [...known];
  const key = (p: string) => sha256Hex(`${runId}/${iteration}/${p}`);
  const order = [...new Set(list)]
    .map((p) => [key(p), p] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, p]) => p);
  ORDERS.set(memo, order);
  return [...order];
}

/**
 * The rank `proposer` holds for iteration t, or null when it may not propose t at all. Rank r is
 * the r-th of `order` (the proposers of t best first, node/chain/admission.ts). A proposer outside
 * it may still commit, at the "anyone" fallback rank |order| + 1, if it is an author of one of
 * its own entries (it did the round's work; a stranger may not).
 *
 * Start of the chain (prevHash = ZERO_HASH): `order` is null, and the commit's own authors rank by
 * proposerOrder. That is the weakest point of the chain: whoever contributes first may rank; it
 * lasts one iteration, after which ranks come from verified commits. (A node that does not hold
 * the commits before t, after a snapshot, checks a rank only loosely: admission.ts, rankFits.)
 */
export function rankOf(
  runId: string,
  iteration: number,
  order: readonly string[] | null,
  proposer: string,
  authors: readonly string[],
): number | null {
  if (order === null || order.length === 0) {
    const r = proposerOrder(runId, iteration, authors).indexOf(proposer);
    return r >= 0 ? r : null;
  }
  const r = order.indexOf(proposer);
  if (r >= 0) return r;
  return authors.includes(proposer) ? order.length + 1 : null;
}
