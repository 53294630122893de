/**
 * Commits between the rounds' form (peer id strings) and the wire's (peer id multihash bytes,
 * signatures). A commit is hashed as the bytes it came as (see EncodedCommit); a commit this node
 * makes is signed and encoded once, here. Every commit that comes in as bytes (gossip, the commits
 * protocol, a fork resolution) passes the same stateless check, protocol/signing.ts checkCommit.
 */
import {
  type CommitMessage,
  decodeCommit,
  encodeCommit,
  encodeCommitBody,
  type UnsignedCommit,
} from "../../protocol/codec.js";
import { checkCommit, commitSignedBytes, peerIdString, type SignatureCheck } from "../../protocol/signing.js";
import { peerIdBytes } from "../ground/index.js";
import type { Commit, EncodedCommit } from "./commit.js";
import { sharedVerifier, type Signer } from "./signatures.js";

function unsignedToWire(c: Commit): UnsignedCommit {
  return {
    runId: c.runId,
    iteration: c.iteration,
    prevHash: c.prevHash,
    checksum: c.checksum,
    rank: c.rank,
    proposer: peerIdBytes(c.proposer),
    entries: c.entries.map((e) => ({
      author: peerIdBytes(e.author.id),
      joinedAt: e.author.joinedAt,
      payload: e.payload,
      signature: e.signature,
      ...(e.staleness ? { staleness: e.staleness } : {}),
    })),
    // Absent when empty: a commit without exclusions encodes as it did before they existed.
    ...(c.exclusions?.length ? { exclusions: c.exclusions.map((x) => ({ author: peerIdBytes(x.author), iteration: x.iteration })) } : {}),
    ...(c.olderParents?.length ? { olderParents: c.olderParents } : {}),
  };
}

/**
 * The wire form -> the chain's. Only for a message that passed checkCommit (gossip validation
 * did, or commitFromBytes does): its authors and proposer are Ed25519 peer ids, distinct.
 */
export function commitFromWire(c: CommitMessage): Commit {
  return {
    runId: c.runId,
    iteration: c.iteration,
    prevHash: c.prevHash,
    checksum: c.checksum,
    rank: c.rank,
    proposer: peerIdString(c.proposer),
    entries: c.entries.map((e) => ({
      author: { id: peerIdString(e.author), joinedAt: e.joinedAt },
      payload: e.payload,
      signature: e.signature,
      ...(e.staleness ? { staleness: e.staleness } : {}),
    })),
    ...(c.exclusions?.length ? { exclusions: c.exclusions.map((x) => ({ author: peerIdString(x.author), iteration: x.iteration })) } : {}),
    ...(c.olderParents?.length ? { olderParents: c.olderParents } : {}),
  };
}

/**
 * Encoded commit bytes (as served over the commits protocol, or read back) -> the chain's form,
 * with those bytes kept, after the same signature checks gossip runs (with the process's shared
 * verifier; one argument only, so `list.map(commitFromBytes)` stays right). Throws WireError or
 * ChainCheckError.
 */
export function commitFromBytes(bytes: Uint8Array): EncodedCommit {
  return checkedCommit(bytes, sharedVerifier.check);
}

/** commitFromBytes with a given signature check. */
export function checkedCommit(bytes: Uint8Array, check: SignatureCheck): EncodedCommit {
  const m = decodeCommit(bytes);
  checkCommit(m, bytes, check);
  return { commit: commitFromWire(m), encoded: bytes };
}

/**
 * Bytes this node verified before (a commit held compactly for its turn, round-inbox.ts) -> the
 * chain's form again, with no second signature check. Throws WireError.
 */
export function commitFromVerifiedBytes(bytes: Uint8Array): EncodedCommit {
  return { commit: commitFromWire(decodeCommit(bytes)), encoded: bytes };
}

/** Signs a commit this node proposes (c.proposer must be the signer's id) and encodes it once. */
export function signCommit(c: Commit, sign: Signer): EncodedCommit {
  const unsigned = unsignedToWire(c);
  const signature = sign(commitSignedBytes(encodeCommitBody(unsigned)));
  return { commit: c, encoded: encodeCommit({ ...unsigned, signature }) };
}
