/**
 * Commits between the rounds' form (peer id strings) and the wire's (peer id multihash bytes).
 * A commit is hashed as the bytes it came as (see EncodedCommit); a commit this node makes is
 * encoded once, here.
 */
import { type CommitMessage, decodeCommit, encodeCommit } from "../../protocol/codec.js";
import { SeedswarmError } from "../../protocol/errors.js";
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

/** A commit whose entries do not name distinct peers: it can never be applied. */
export class CommitAuthorError extends SeedswarmError<"COMMIT_BAD_AUTHOR" | "COMMIT_DUPLICATE_AUTHOR"> {}

/**
 * The wire form -> the chain's. Throws CommitAuthorError when an author is no peer id or two
 * entries name one peer (the replica's timestamp order would throw on them mid-apply): commits
 * served over /commits reach here without gossip validation.
 */
export function commitFromWire(c: CommitMessage): Commit {
  const ids = new Set<string>();
  const entries = c.entries.map((e, entry) => {
    let id: string;
    try {
      id = peerIdOfBytes(e.author).toString();
    } catch (err) {
      throw new CommitAuthorError("COMMIT_BAD_AUTHOR", "commit entry author is not a peer id", {
        iteration: c.iteration,
        entry,
        reason: err instanceof Error ? err.message : String(err),
      });
    }
    if (ids.has(id))
      throw new CommitAuthorError("COMMIT_DUPLICATE_AUTHOR", "commit names one author twice", { iteration: c.iteration, entry, author: id });
    ids.add(id);
    return { author: { id, joinedAt: e.joinedAt }, payload: e.payload };
  });
  return { iteration: c.iteration, prevHash: c.prevHash, checksum: c.checksum, rank: c.rank, entries };
}

/** Encoded commit bytes (as gossiped or served) -> the chain's form, with those bytes kept. */
export function commitFromBytes(bytes: Uint8Array): EncodedCommit {
  return { commit: commitFromWire(decodeCommit(bytes)), encoded: bytes };
}

/** The chain's form -> the exact bytes that are gossiped, served and hashed. */
export function commitToBytes(runId: string, c: Commit): Uint8Array {
  return encodeCommit(commitToWire(runId, c));
}
