/**
 * Commits between the rounds' form (peer id strings) and the wire's (peer id multihash bytes).
 * A commit is hashed as the bytes it came as (see EncodedCommit); a commit this node makes is
 * encoded once, here.
 */
import { type CommitMessage, decodeCommit, encodeCommit } from "../../protocol/codec.js";
import { peerIdBytes, peerIdOfBytes } from "../network/peer-bytes.js";
import type { Commit, EncodedCommit } from "./commit.js";


export function commitToWire(runId: string, c: Commit): CommitMessage {
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

export function commitFromWire(c: CommitMessage): Commit {
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

/** Encoded commit bytes (as gossiped or served) -> the chain's form, with those bytes kept. */
export function commitFromBytes(bytes: Uint8Array): EncodedCommit {
  return { commit: commitFromWire(decodeCommit(bytes)), encoded: bytes };
}

/** The chain's form -> the exact bytes that are gossiped, served and hashed. */
export function commitToBytes(runId: string, c: Commit): Uint8Array {
  return encodeCommit(commitToWire(runId, c));
}
