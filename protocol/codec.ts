/**
 * Typed codecs for the gossip messages (contribution, commit, leave, heartbeat, proof) over the protons
 * messages. Every decode checks the byte length against its limit before parsing, parses with
 * finite repeated-field limits, then checks each field's shape, so a caller only ever sees
 * in-limit messages with 32-byte hashes and safe-integer iterations. Encodes run the same
 * checks: a message we could not decode ourselves never leaves. Request/response messages:
 * protocol/sync-codec.ts.
 *
 * Decoded byte fields are copies, never views into the input: holding a 4 KiB payload must not
 * pin a whole gossip frame.
 */
import { sha256 } from "./bytes.js";
import { runIdBytes, runIdHex } from "./run-id.js";
import { MAX_COMMIT_ENTRIES, MAX_COMMIT_EXCLUSIONS, MAX_PAYLOAD_BYTES, MAX_STALENESS, SIGNATURE_BYTES } from "./limits.js";
import * as pb from "./messages.js";
import { bad, hash, signature, upTo, peerId, fromU64, toU64, u32, U32_MAX, out, encodeWire, decodeWire } from "./wire-fields.js";

// ---- Plain messages: what the node handles ----

export interface ContributionMessage {
  readonly runId: string;
  readonly iteration: number;
  /** Peer id (multihash bytes, an Ed25519 key) of the author, whose signature `signature` is. */
  readonly author: Uint8Array;
  /** Author's join timestamp (ms). */
  readonly joinedAt: number;
  readonly payload: Uint8Array;
  /** Hash of the commit the work was measured on (32 zero bytes at the start of the chain). */
  readonly parentHash: Uint8Array;
  /** The author's Ed25519 signature over contributionSignedBytes (protocol/signing.ts). */
  readonly signature: Uint8Array;
  /**
   * Pipelined rounds: measured this many iterations early, on the state after commit
   * (iteration - 1 - staleness), the commit `parentHash` names. Absent: 0.
   */
  readonly staleness?: number;
}

export interface CommitEntry {
  /** Peer id as multihash bytes. */
  readonly author: Uint8Array;
  readonly joinedAt: number;
  readonly payload: Uint8Array;
  /** The author's signature, with the commit's iteration and the entry's parent (entryParent). */
  readonly signature: Uint8Array;
  /** As in ContributionMessage; absent: 0. */
  readonly staleness?: number;
}

/** An author a commit excludes, for its contribution to `iteration` (see messages.proto). */
export interface CommitExclusion {
  /** Peer id as multihash bytes. */
  readonly author: Uint8Array;
  readonly iteration: number;
}

export interface CommitMessage {
  readonly runId: string;
  readonly iteration: number;
  /** commitHash of the previous commit; 32 zero bytes for the first. */
  readonly prevHash: Uint8Array;
  readonly entries: readonly CommitEntry[];
  /** Proposer's weight checksum after applying this commit. */
  readonly checksum: Uint8Array;
  /** 0 = primary proposer, 1.. = fallbacks; checked against the proposer order, never believed. */
  readonly rank: number;
  /** Peer id (multihash bytes) of the signing proposer. */
  readonly proposer: Uint8Array;
  /** Authors excluded from the run from this commit on (absent or empty: none, the usual case). */
  readonly exclusions?: readonly CommitExclusion[];
  /**
   * Hashes of commits iteration - 2, iteration - 3, ... (ZERO before the first), as many as the
   * largest entry staleness: the parents of stale entries. Absent or empty: no stale entry.
   */
  readonly olderParents?: readonly Uint8Array[];
  /** The proposer's Ed25519 signature over commitSignedBytes(encodeCommitBody(...)). */
  readonly signature: Uint8Array;
}

export interface Leave {
  readonly runId: string;
  /** Last applied iteration. */
  readonly iteration: number;
  /** Peer id (multihash bytes, an Ed25519 key) of the node leaving. */
  readonly author: Uint8Array;
  /** Its Ed25519 signature over noticeSignedBytes("leave", encodeLeave without it). */
  readonly signature: Uint8Array;
}

export interface Heartbeat {
  readonly runId: string;
  /** Number of applied iterations. */
  readonly iteration: number;
  readonly checksum: Uint8Array;
  readonly joinedAt: number;
  /** Peer id (multihash bytes, an Ed25519 key) of the node whose head this is. */
  readonly author: Uint8Array;
  /** Its Ed25519 signature over noticeSignedBytes("heartbeat", encodeHeartbeat without it). */
  readonly signature: Uint8Array;
}

/** An auditor's fraud proof: `accused`'s entry in commit `commitHash` (at `iteration`) does not recompute. */
export interface FraudProof {
  readonly runId: string;
  /** The iteration of the commit holding the disproved contribution. */
  readonly iteration: number;
  /** Hash of that commit. */
  readonly commitHash: Uint8Array;
  /** Peer id (multihash bytes) of the accused author. */
  readonly accused: Uint8Array;
  /** Peer id (multihash bytes, an Ed25519 key) of the auditor. */
  readonly author: Uint8Array;
  /** Its Ed25519 signature over noticeSignedBytes("proof", proofBody(...)). */
  readonly signature: Uint8Array;
}

/** The hash that chains commits: SHA-256 of the commit exactly as encoded on the wire. */
export function commitHash(encodedCommit: Uint8Array): Uint8Array {
  return sha256(encodedCommit);
}


/** Encodes a contribution for its gossip topic. */
export function encodeContribution(m: ContributionMessage): Uint8Array {
  return encodeWire("contribution", pb.Contribution, {
    runId: out(runIdBytes(m.runId)),
    iteration: toU64(m.iteration, "contribution.iteration"),
    joinedAt: toU64(m.joinedAt, "contribution.joinedAt"),
    payload: out(upTo(m.payload, MAX_PAYLOAD_BYTES, "contribution.payload")),
    parentHash: out(hash(m.parentHash, "contribution.parentHash")),
    signature: out(signature(m.signature, "contribution.signature")),
    staleness: u32(m.staleness ?? 0, 0, MAX_STALENESS, "contribution.staleness"),
    author: out(peerId(m.author, "contribution.author")),
  });
}

/** Decodes a contribution; the payload is still to be checked against the run (validation.ts). */
export function decodeContribution(bytes: Uint8Array): ContributionMessage {
  const w = decodeWire("contribution", pb.Contribution, bytes);
  return {
    runId: runIdHex(w.runId),
    iteration: fromU64(w.iteration, "contribution.iteration"),
    author: peerId(w.author, "contribution.author").slice(),
    joinedAt: fromU64(w.joinedAt, "contribution.joinedAt"),
    payload: upTo(w.payload, MAX_PAYLOAD_BYTES, "contribution.payload").slice(),
    parentHash: hash(w.parentHash, "contribution.parentHash").slice(),
    signature: signature(w.signature, "contribution.signature").slice(),
    // Absent when 0, as the encoder leaves it.
    ...(w.staleness === 0 ? {} : { staleness: u32(w.staleness, 0, MAX_STALENESS, "contribution.staleness") }),
  };
}

/**
 * The parent an entry of `m` was signed over: the commit's prevHash, or for a stale entry the
 * older parent it names. Null when the commit does not carry that parent.
 */
export function entryParent(m: Pick<CommitMessage, "prevHash" | "olderParents">, staleness: number | undefined): Uint8Array | null {
  const k = staleness ?? 0;
  return k === 0 ? m.prevHash : (m.olderParents?.[k - 1] ?? null);
}

/** A commit before its proposer signs it. */
export type UnsignedCommit = Omit<CommitMessage, "signature">;

function commitToPb(m: UnsignedCommit, sig: Uint8Array): Partial<pb.Commit> {
  if (m.entries.length > MAX_COMMIT_ENTRIES) {
    bad("commit.entries", `must hold at most ${MAX_COMMIT_ENTRIES}`, {
      count: m.entries.length,
    });
  }
  const olderParents = m.olderParents ?? [];
  if (olderParents.length > MAX_STALENESS) bad("commit.olderParents", `must hold at most ${MAX_STALENESS}`, { count: olderParents.length });
  const exclusions = m.exclusions ?? [];
  if (exclusions.length > MAX_COMMIT_EXCLUSIONS) {
    bad("commit.exclusions", `must hold at most ${MAX_COMMIT_EXCLUSIONS}`, { count: exclusions.length });
  }
  return {
    runId: out(runIdBytes(m.runId)),
    iteration: toU64(m.iteration, "commit.iteration"),
    prevHash: out(hash(m.prevHash, "commit.prevHash")),
    entries: m.entries.map((e, i) => ({
      author: out(peerId(e.author, `commit.entries[${i}].author`)),
      joinedAt: toU64(e.joinedAt, `commit.entries[${i}].joinedAt`),
      payload: out(upTo(e.payload, MAX_PAYLOAD_BYTES, `commit.entries[${i}].payload`)),
      signature: out(signature(e.signature, `commit.entries[${i}].signature`)),
      staleness: u32(e.staleness ?? 0, 0, MAX_STALENESS, `commit.entries[${i}].staleness`),
    })),
    checksum: out(hash(m.checksum, "commit.checksum")),
    rank: u32(m.rank, 0, U32_MAX, "commit.rank"),
    proposer: out(peerId(m.proposer, "commit.proposer")),
    exclusions: exclusions.map((x, i) => ({
      author: out(peerId(x.author, `commit.exclusions[${i}].author`)),
      iteration: toU64(x.iteration, `commit.exclusions[${i}].iteration`),
    })),
    olderParents: olderParents.map((h, i) => out(hash(h, `commit.olderParents[${i}]`))),
    signature: out(sig),
  };
}

/**
 * The bytes a proposer signs (behind the domain tag): the commit encoded with no signature
 * field. Protobuf omits an empty bytes field, so these are the signed commit's bytes minus it.
 */
export function encodeCommitBody(m: UnsignedCommit): Uint8Array {
  return encodeWire("commit", pb.Commit, commitToPb(m, new Uint8Array(0)) as pb.Commit);
}

/** Encodes a signed commit; its bytes are what commitHash chains. */
export function encodeCommit(m: CommitMessage): Uint8Array {
  return encodeWire("commit", pb.Commit, commitToPb(m, signature(m.signature, "commit.signature")) as pb.Commit);
}

/** The signature field as the encoder writes it last: tag (field 8, bytes), length 64, then the 64 bytes. */
const COMMIT_SIGNATURE_TAG = Uint8Array.of((8 << 3) | 2, SIGNATURE_BYTES);
const COMMIT_SIGNATURE_FIELD_BYTES = COMMIT_SIGNATURE_TAG.byteLength + SIGNATURE_BYTES;

/**
 * encodeCommitBody(m) without encoding again, for bytes already known to be encodeCommit(m) (the
 * canonical check compared them): protons writes fields in the order messages.proto declares
 * them and the signature is declared last, so the body is those bytes minus their last 66. A view, not a copy; null
 * when the bytes do not end in m's signature field (then they were not encodeCommit(m)).
 */
export function commitBodyOf(m: CommitMessage, encoded: Uint8Array): Uint8Array | null {
  const at = encoded.byteLength - COMMIT_SIGNATURE_FIELD_BYTES;
  if (at < 0 || m.signature.byteLength !== SIGNATURE_BYTES) return null;
  if (encoded[at] !== COMMIT_SIGNATURE_TAG[0] || encoded[at + 1] !== COMMIT_SIGNATURE_TAG[1]) return null;
  for (let i = 0; i < SIGNATURE_BYTES; i++) if (encoded[at + 2 + i] !== m.signature[i]) return null;
  return encoded.subarray(0, at);
}

/** Decodes a commit: at most MAX_COMMIT_ENTRIES entries, each author and the proposer a peer id multihash, 64-byte signatures. */
export function decodeCommit(bytes: Uint8Array): CommitMessage {
  const w = decodeWire("commit", pb.Commit, bytes, { limits: { entries: MAX_COMMIT_ENTRIES, exclusions: MAX_COMMIT_EXCLUSIONS, olderParents: MAX_STALENESS } });
  return {
    runId: runIdHex(w.runId),
    iteration: fromU64(w.iteration, "commit.iteration"),
    prevHash: hash(w.prevHash, "commit.prevHash").slice(),
    entries: w.entries.map((e, i) => ({
      author: peerId(e.author, `commit.entries[${i}].author`).slice(),
      joinedAt: fromU64(e.joinedAt, `commit.entries[${i}].joinedAt`),
      payload: upTo(e.payload, MAX_PAYLOAD_BYTES, `commit.entries[${i}].payload`).slice(),
      signature: signature(e.signature, `commit.entries[${i}].signature`).slice(),
      ...(e.staleness === 0 ? {} : { staleness: u32(e.staleness, 0, MAX_STALENESS, `commit.entries[${i}].staleness`) }),
    })),
    checksum: hash(w.checksum, "commit.checksum").slice(),
    rank: w.rank,
    proposer: peerId(w.proposer, "commit.proposer").slice(),
    // Absent when empty, as the encoder leaves it.
    ...(w.exclusions.length > 0
      ? {
          exclusions: w.exclusions.map((x, i) => ({
            author: peerId(x.author, `commit.exclusions[${i}].author`).slice(),
            iteration: fromU64(x.iteration, `commit.exclusions[${i}].iteration`),
          })),
        }
      : {}),
    ...(w.olderParents.length > 0 ? { olderParents: w.olderParents.map((h, i) => hash(h, `commit.olderParents[${i}]`).slice()) } : {}),
    signature: signature(w.signature, "commit.signature").slice(),
  };
}

/** Encodes a signed leave announcement. */
export function encodeLeave(m: Leave): Uint8Array {
  return encodeWire("leave", pb.Leave, { ...leaveFields(m), signature: out(signature(m.signature, "leave.signature")) });
}

/** A leave encoded without its signature: the body its author signs (noticeSignedBytes). */
export function leaveBody(m: Omit<Leave, "signature">): Uint8Array {
  return encodeWire("leave", pb.Leave, { ...leaveFields(m), signature: new Uint8Array(0) });
}

function leaveFields(m: Omit<Leave, "signature">): Omit<pb.Leave, "signature"> {
  return {
    runId: out(runIdBytes(m.runId)),
    iteration: toU64(m.iteration, "leave.iteration"),
    author: out(peerId(m.author, "leave.author")),
  };
}

/** Decodes a leave announcement. */
export function decodeLeave(bytes: Uint8Array): Leave {
  const w = decodeWire("leave", pb.Leave, bytes);
  return {
    runId: runIdHex(w.runId),
    iteration: fromU64(w.iteration, "leave.iteration"),
    author: peerId(w.author, "leave.author").slice(),
    signature: signature(w.signature, "leave.signature").slice(),
  };
}

/** Encodes a signed heartbeat (a node's head and checksum). */
export function encodeHeartbeat(m: Heartbeat): Uint8Array {
  return encodeWire("heartbeat", pb.Heartbeat, { ...heartbeatFields(m), signature: out(signature(m.signature, "heartbeat.signature")) });
}

/** A heartbeat encoded without its signature: the body its author signs (noticeSignedBytes). */
export function heartbeatBody(m: Omit<Heartbeat, "signature">): Uint8Array {
  return encodeWire("heartbeat", pb.Heartbeat, { ...heartbeatFields(m), signature: new Uint8Array(0) });
}

function heartbeatFields(m: Omit<Heartbeat, "signature">): Omit<pb.Heartbeat, "signature"> {
  return {
    runId: out(runIdBytes(m.runId)),
    iteration: toU64(m.iteration, "heartbeat.iteration"),
    checksum: out(hash(m.checksum, "heartbeat.checksum")),
    joinedAt: toU64(m.joinedAt, "heartbeat.joinedAt"),
    author: out(peerId(m.author, "heartbeat.author")),
  };
}

/** Decodes a heartbeat. */
export function decodeHeartbeat(bytes: Uint8Array): Heartbeat {
  const w = decodeWire("heartbeat", pb.Heartbeat, bytes);
  return {
    runId: runIdHex(w.runId),
    iteration: fromU64(w.iteration, "heartbeat.iteration"),
    checksum: hash(w.checksum, "heartbeat.checksum").slice(),
    joinedAt: fromU64(w.joinedAt, "heartbeat.joinedAt"),
    author: peerId(w.author, "heartbeat.author").slice(),
    signature: signature(w.signature, "heartbeat.signature").slice(),
  };
}

/** Encodes a signed fraud proof. */
export function encodeProof(m: FraudProof): Uint8Array {
  return encodeWire("proof", pb.Proof, { ...proofFields(m), signature: out(signature(m.signature, "proof.signature")) });
}

/** A proof encoded without its signature: the body its auditor signs (noticeSignedBytes). */
export function proofBody(m: Omit<FraudProof, "signature">): Uint8Array {
  return encodeWire("proof", pb.Proof, { ...proofFields(m), signature: new Uint8Array(0) });
}

function proofFields(m: Omit<FraudProof, "signature">): Omit<pb.Proof, "signature"> {
  return {
    runId: out(runIdBytes(m.runId)),
    iteration: toU64(m.iteration, "proof.iteration"),
    commitHash: out(hash(m.commitHash, "proof.commitHash")),
    accused: out(peerId(m.accused, "proof.accused")),
    author: out(peerId(m.author, "proof.author")),
  };
}

/** Decodes a fraud proof. */
export function decodeProof(bytes: Uint8Array): FraudProof {
  const w = decodeWire("proof", pb.Proof, bytes);
  return {
    runId: runIdHex(w.runId),
    iteration: fromU64(w.iteration, "proof.iteration"),
    commitHash: hash(w.commitHash, "proof.commitHash").slice(),
    accused: peerId(w.accused, "proof.accused").slice(),
    author: peerId(w.author, "proof.author").slice(),
    signature: signature(w.signature, "proof.signature").slice(),
  };
}
