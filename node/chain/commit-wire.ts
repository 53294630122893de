/**
 * Commits between the rounds' form (peer id strings) and the wire's (peer id multihash bytes).
 * The rounds hash the encoded wire form, so both sides of every exchange convert the same way.
 */
import { type Commit, decodeCommit, encodeCommit } from "../../protocol/codec.js";
import { peerIdBytes, peerIdOfBytes } from "../network/peer-bytes.js";
import type { CommitData } from "./rounds.js";


export function commitToWire(runId: string, c: CommitData): Commit {
  return {
    runId,
    iteration: c.iteration,
    prevHash: c.prevHash,
    checksum: c.checksum,
    rank: c.rank,
    entries: c.entries.map((e) => ({
      author: peerIdBytes(e.author.id),
      joinedAt: e.author.joinedAt,
      payload: e.payload,
    })),
  };
}

export function commitFromWire(c: Commit): CommitData {
  return {
    iteration: c.iteration,
    prevHash: c.prevHash,
    checksum: c.checksum,
    rank: c.rank,
    entries: c.entries.map((e) => ({
      author: { id: peerIdOfBytes(e.author).toString(), joinedAt: e.joinedAt },
      payload: e.payload,
    })),
  };
}

/** Encoded commit bytes (as gossiped or served) -> the rounds' form. */
export function decodeCommitData(bytes: Uint8Array): CommitData {
  return commitFromWire(decodeCommit(bytes));
}

/** The rounds' form -> the exact bytes that are gossiped, served and hashed. */
export function encodeCommitData(runId: string, c: CommitData): Uint8Array {
  return encodeCommit(commitToWire(runId, c));
}
