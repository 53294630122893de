/**
 * The commit: what one iteration applied, signed by its proposer and chained by hash (brief
 * section 5). This file holds its type and the two orders every node computes the same way: who
 * may propose an iteration, and which of two commits for one iteration wins.
 */
import { sha256Hex, toHex } from "../../protocol/bytes.js";
import { commitHash } from "../../protocol/codec.js";
import type { Contribution } from "../../training/algorithms/contribution.js";

/** A commit as the chain holds it (author ids are peer id strings; the wire form is CommitMessage). */
export interface Commit {
  readonly iteration: number;
  readonly prevHash: Uint8Array;
  readonly entries: readonly Contribution[];
  readonly checksum: Uint8Array;
  readonly rank: number;
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
  return { ...c, hash: commitHash(c.encoded) };
}

/** The fork choice between two commits for the same iteration: lower rank, then more entries, then lower hash. */
export function isBetter(a: Commit, ha: Uint8Array, b: Commit, hb: Uint8Array): boolean {
  if (a.rank !== b.rank) return a.rank < b.rank;
  if (a.entries.length !== b.entries.length) return a.entries.length > b.entries.length;
  return toHex(ha) < toHex(hb);
}

/** Rank order of candidates for proposing iteration t: ascending H(runId, t, peer). */
export function proposerOrder(runId: string, iteration: number, candidates: Iterable<string>): string[] {
  const key = (p: string) => sha256Hex(`${runId}/${iteration}/${p}`);
  return [...new Set(candidates)]
    .map((p) => [key(p), p] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, p]) => p);
}
