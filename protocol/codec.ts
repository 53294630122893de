/**
 * Typed codecs over the protons messages. Every decode checks the byte length against its limit
 * before parsing, parses with finite repeated-field limits, then checks each field's shape, so a
 * caller only ever sees in-limit messages with 32-byte hashes and safe-integer iterations.
 * Encodes run the same checks: a message we could not decode ourselves never leaves.
 *
 * Decoded byte fields are copies, never views into the input: holding a 4 KiB payload must not
 * pin a whole gossip frame.
 */
import { type DecodeOptions, MaxLengthError } from "protons-runtime";
import { sha256 } from "./bytes.js";
import { HASH_BYTES, runIdBytes, runIdHex } from "./run-id.js";
import { WireError } from "./errors.js";
import {
  MAX_COMMIT_ENTRIES,
  MAX_COMMITS_PER_RESPONSE,
  MAX_EXPERT_ENTRIES,
  MAX_MESSAGE_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_PEER_ID_BYTES,
  MAX_SNAPSHOT_CHUNK_BYTES,
  type MessageName,
  SIGNATURE_BYTES,
} from "./limits.js";
import * as pb from "./messages.js";


// ---- Plain messages: what the node handles ----

export interface ContributionMessage {
  readonly runId: string;
  readonly iteration: number;
  /** Author's join timestamp (ms). The author itself is the gossip signer. */
  readonly joinedAt: number;
  readonly payload: Uint8Array;
  /** Hash of the commit the work was measured on (32 zero bytes at the start of the chain). */
  readonly parentHash: Uint8Array;
  /** The author's Ed25519 signature over contributionSignedBytes (protocol/signing.ts). */
  readonly signature: Uint8Array;
}

export interface CommitEntry {
  /** Peer id as multihash bytes. */
  readonly author: Uint8Array;
  readonly joinedAt: number;
  readonly payload: Uint8Array;
  /** The author's signature, with the commit's iteration and prevHash as iteration and parent. */
  readonly signature: Uint8Array;
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
  /** The proposer's Ed25519 signature over commitSignedBytes(encodeCommitBody(...)). */
  readonly signature: Uint8Array;
}

export interface Leave {
  readonly runId: string;
  /** Last applied iteration. */
  readonly iteration: number;
}

export interface Heartbeat {
  readonly runId: string;
  /** Number of applied iterations. */
  readonly iteration: number;
  readonly checksum: Uint8Array;
  readonly joinedAt: number;
}

export interface RunSpecRequest {
  readonly runId: string;
}

export interface RunSpecResponse {
  readonly specJson: string;
}

export interface SnapshotRequest {
  readonly runId: string;
  readonly chunk: number;
  readonly chunkSize: number;
  /** Set: the snapshot after exactly this many iterations; absent: the peer's latest. */
  readonly iteration?: number;
}

export interface SnapshotResponse {
  readonly iteration: number;
  readonly checksum: Uint8Array;
  readonly totalChunks: number;
  readonly data: Uint8Array;
  /** SHA-256 of data. */
  readonly chunkHash: Uint8Array;
}

export interface CommitsRequest {
  readonly runId: string;
  readonly fromIteration: number;
  readonly max: number;
}

export interface CommitsResponse {
  /** Encoded commits, kept as bytes so the receiver hashes exactly what was sent. */
  readonly commits: readonly Uint8Array[];
}

export interface ChecksumRequest {
  readonly runId: string;
  readonly iteration: number;
}

/** One Learning@home expert entry: `suffix` is the uid's next coordinate after the key's prefix. */
export interface ExpertEntry {
  readonly suffix: number;
  /** Peer id as multihash bytes. */
  readonly peer: Uint8Array;
  /** Announce time, ms since the epoch. */
  readonly timestamp: number;
  /** Expiry, ms since the epoch. */
  readonly expiresAt: number;
  /** The named peer's Ed25519 signature (protocol/signing.ts expertEntrySignedBytes). */
  readonly signature: Uint8Array;
}

export interface ExpertRecord {
  readonly entries: readonly ExpertEntry[];
}

export interface ChecksumResponse {
  readonly iteration: number;
  /** 32 bytes when known, empty when not. */
  readonly checksum: Uint8Array;
  readonly known: boolean;
}

// ---- Helpers ----

function bad(at: string, problem: string, context: Record<string, unknown> = {}): never {
  throw new WireError("WIRE_BAD_FIELD", `${at} ${problem}`, { field: at, ...context });
}

/** The hash that chains commits: SHA-256 of the commit exactly as encoded on the wire. */
export function commitHash(encodedCommit: Uint8Array): Uint8Array {
  return sha256(encodedCommit);
}

/** Multihash codes a libp2p peer id uses: identity (small keys inlined) and sha2-256. */
const IDENTITY = 0x00;
const SHA2_256 = 0x12;

/**
 * True when the bytes are a peer id multihash: identity over at most 42 bytes of key, or a
 * 32-byte sha2-256. Both headers are single-byte varints, so no varint parsing is needed.
 */
export function isPeerIdMultihash(bytes: Uint8Array): boolean {
  if (bytes.byteLength < 2 || bytes.byteLength > MAX_PEER_ID_BYTES) return false;
  const [code, length] = bytes;
  if (length !== bytes.byteLength - 2) return false;
  return (code === IDENTITY && length > 0) || (code === SHA2_256 && length === HASH_BYTES);
}

function hash(b: Uint8Array, at: string): Uint8Array {
  if (b.byteLength !== HASH_BYTES) bad(at, `must be ${HASH_BYTES} bytes`, { length: b.byteLength });
  return b;
}

function signature(b: Uint8Array, at: string): Uint8Array {
  if (b.byteLength !== SIGNATURE_BYTES) bad(at, `must be ${SIGNATURE_BYTES} bytes`, { length: b.byteLength });
  return b;
}

function upTo(b: Uint8Array, max: number, at: string): Uint8Array {
  if (b.byteLength > max) bad(at, `must be at most ${max} bytes`, { length: b.byteLength });
  return b;
}

function peerId(b: Uint8Array, at: string): Uint8Array {
  if (!isPeerIdMultihash(b)) bad(at, "must be a peer id multihash", { length: b.byteLength });
  return b;
}

/** uint64 arrives as bigint: iterations and timestamps must be exact JS numbers. */
function fromU64(v: bigint, at: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) bad(at, "must be a safe integer", { value: String(v) });
  return Number(v);
}

function toU64(n: number, at: string): bigint {
  if (!Number.isSafeInteger(n) || n < 0)
    bad(at, "must be a non-negative safe integer", { value: n });
  return BigInt(n);
}

function u32(n: number, min: number, max: number, at: string): number {
  if (!Number.isInteger(n) || n < min || n > max)
    bad(at, `must be an integer in ${min}..${max}`, { value: n });
  return n;
}

const U32_MAX = 0xffffffff;

/** protons types its inputs as ArrayBuffer-backed; it only reads them, so any Uint8Array does. */
function out(b: Uint8Array): Uint8Array<ArrayBuffer> {
  return b as Uint8Array<ArrayBuffer>;
}

/** What the protons namespaces provide. */
interface ProtonsCodec<W> {
  encode(obj: Partial<W>): Uint8Array;
  decode(buf: Uint8Array, opts?: DecodeOptions<W>): W;
}

/** The size guard: the one check that runs before any parsing. */
function checkSize(name: MessageName, bytes: Uint8Array): void {
  const max = MAX_MESSAGE_BYTES[name];
  if (bytes.byteLength > max) {
    throw new WireError("WIRE_TOO_LARGE", `${name}: ${bytes.byteLength} bytes exceeds ${max}`, {
      message: name,
      length: bytes.byteLength,
      max,
    });
  }
}

function encodeWire<W>(name: MessageName, codec: ProtonsCodec<W>, wire: W): Uint8Array {
  const bytes = codec.encode(wire);
  checkSize(name, bytes);
  return bytes;
}

/** Size guard, then a bounded parse; any parser failure becomes a WireError. */
function decodeWire<W>(
  name: MessageName,
  codec: ProtonsCodec<W>,
  bytes: Uint8Array,
  opts?: DecodeOptions<W>,
): W {
  checkSize(name, bytes);
  try {
    return codec.decode(bytes, opts);
  } catch (err) {
    const code = err instanceof MaxLengthError ? "WIRE_TOO_LARGE" : "WIRE_MALFORMED";
    throw new WireError(code, `${name}: ${(err as Error).message}`, { message: name });
  }
}

// ---- Gossip ----

/** Encodes a contribution for its gossip topic. */
export function encodeContribution(m: ContributionMessage): Uint8Array {
  return encodeWire("contribution", pb.Contribution, {
    runId: out(runIdBytes(m.runId)),
    iteration: toU64(m.iteration, "contribution.iteration"),
    joinedAt: toU64(m.joinedAt, "contribution.joinedAt"),
    payload: out(upTo(m.payload, MAX_PAYLOAD_BYTES, "contribution.payload")),
    parentHash: out(hash(m.parentHash, "contribution.parentHash")),
    signature: out(signature(m.signature, "contribution.signature")),
  });
}

/** Decodes a contribution; the payload is still to be checked against the run (validation.ts). */
export function decodeContribution(bytes: Uint8Array): ContributionMessage {
  const w = decodeWire("contribution", pb.Contribution, bytes);
  return {
    runId: runIdHex(w.runId),
    iteration: fromU64(w.iteration, "contribution.iteration"),
    joinedAt: fromU64(w.joinedAt, "contribution.joinedAt"),
    payload: upTo(w.payload, MAX_PAYLOAD_BYTES, "contribution.payload").slice(),
    parentHash: hash(w.parentHash, "contribution.parentHash").slice(),
    signature: signature(w.signature, "contribution.signature").slice(),
  };
}

/** A commit before its proposer signs it. */
export type UnsignedCommit = Omit<CommitMessage, "signature">;

function commitToPb(m: UnsignedCommit, sig: Uint8Array): Partial<pb.Commit> {
  if (m.entries.length > MAX_COMMIT_ENTRIES) {
    bad("commit.entries", `must hold at most ${MAX_COMMIT_ENTRIES}`, {
      count: m.entries.length,
    });
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
    })),
    checksum: out(hash(m.checksum, "commit.checksum")),
    rank: u32(m.rank, 0, U32_MAX, "commit.rank"),
    proposer: out(peerId(m.proposer, "commit.proposer")),
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

/** Decodes a commit: at most MAX_COMMIT_ENTRIES entries, each author and the proposer a peer id multihash, 64-byte signatures. */
export function decodeCommit(bytes: Uint8Array): CommitMessage {
  const w = decodeWire("commit", pb.Commit, bytes, { limits: { entries: MAX_COMMIT_ENTRIES } });
  return {
    runId: runIdHex(w.runId),
    iteration: fromU64(w.iteration, "commit.iteration"),
    prevHash: hash(w.prevHash, "commit.prevHash").slice(),
    entries: w.entries.map((e, i) => ({
      author: peerId(e.author, `commit.entries[${i}].author`).slice(),
      joinedAt: fromU64(e.joinedAt, `commit.entries[${i}].joinedAt`),
      payload: upTo(e.payload, MAX_PAYLOAD_BYTES, `commit.entries[${i}].payload`).slice(),
      signature: signature(e.signature, `commit.entries[${i}].signature`).slice(),
    })),
    checksum: hash(w.checksum, "commit.checksum").slice(),
    rank: w.rank,
    proposer: peerId(w.proposer, "commit.proposer").slice(),
    signature: signature(w.signature, "commit.signature").slice(),
  };
}

/** Leave and ChecksumRequest share one shape: a run and an iteration. */
interface RunIteration {
  readonly runId: string;
  readonly iteration: number;
}

function encodeRunIteration(
  name: "leave" | "checksumRequest",
  codec: ProtonsCodec<pb.Leave>,
  m: RunIteration,
): Uint8Array {
  return encodeWire(name, codec, {
    runId: out(runIdBytes(m.runId)),
    iteration: toU64(m.iteration, `${name}.iteration`),
  });
}

function decodeRunIteration(
  name: "leave" | "checksumRequest",
  codec: ProtonsCodec<pb.Leave>,
  bytes: Uint8Array,
): RunIteration {
  const w = decodeWire(name, codec, bytes);
  return { runId: runIdHex(w.runId), iteration: fromU64(w.iteration, `${name}.iteration`) };
}

/** Encodes a leave announcement. */
export function encodeLeave(m: Leave): Uint8Array {
  return encodeRunIteration("leave", pb.Leave, m);
}

/** Decodes a leave announcement. */
export function decodeLeave(bytes: Uint8Array): Leave {
  return decodeRunIteration("leave", pb.Leave, bytes);
}

/** Encodes a heartbeat (a node's head and checksum). */
export function encodeHeartbeat(m: Heartbeat): Uint8Array {
  return encodeWire("heartbeat", pb.Heartbeat, {
    runId: out(runIdBytes(m.runId)),
    iteration: toU64(m.iteration, "heartbeat.iteration"),
    checksum: out(hash(m.checksum, "heartbeat.checksum")),
    joinedAt: toU64(m.joinedAt, "heartbeat.joinedAt"),
  });
}

/** Decodes a heartbeat. */
export function decodeHeartbeat(bytes: Uint8Array): Heartbeat {
  const w = decodeWire("heartbeat", pb.Heartbeat, bytes);
  return {
    runId: runIdHex(w.runId),
    iteration: fromU64(w.iteration, "heartbeat.iteration"),
    checksum: hash(w.checksum, "heartbeat.checksum").slice(),
    joinedAt: fromU64(w.joinedAt, "heartbeat.joinedAt"),
  };
}

// ---- Request/response ----

/** Encodes a request for a run's spec. */
export function encodeRunSpecRequest(m: RunSpecRequest): Uint8Array {
  return encodeWire("runSpecRequest", pb.RunSpecRequest, { runId: out(runIdBytes(m.runId)) });
}

/** Decodes a request for a run's spec. */
export function decodeRunSpecRequest(bytes: Uint8Array): RunSpecRequest {
  return { runId: runIdHex(decodeWire("runSpecRequest", pb.RunSpecRequest, bytes).runId) };
}

/** Encodes a run spec as JSON text. */
export function encodeRunSpecResponse(m: RunSpecResponse): Uint8Array {
  return encodeWire("runSpecResponse", pb.RunSpecResponse, { specJson: m.specJson });
}

/** The JSON text still has to pass parseRunSpecJson, and hash to the runId that was asked for. */
export function decodeRunSpecResponse(bytes: Uint8Array): RunSpecResponse {
  return { specJson: decodeWire("runSpecResponse", pb.RunSpecResponse, bytes).specJson };
}

/** Encodes a request for one chunk of the state snapshot. */
export function encodeSnapshotRequest(m: SnapshotRequest): Uint8Array {
  return encodeWire("snapshotRequest", pb.SnapshotRequest, {
    runId: out(runIdBytes(m.runId)),
    chunk: u32(m.chunk, 0, U32_MAX, "snapshotRequest.chunk"),
    chunkSize: u32(m.chunkSize, 1, MAX_SNAPSHOT_CHUNK_BYTES, "snapshotRequest.chunkSize"),
    iteration: toU64(m.iteration ?? 0, "snapshotRequest.iteration"),
    exact: m.iteration !== undefined,
  });
}

/** Decodes a snapshot chunk request; chunkSize is 1..MAX_SNAPSHOT_CHUNK_BYTES. */
export function decodeSnapshotRequest(bytes: Uint8Array): SnapshotRequest {
  const w = decodeWire("snapshotRequest", pb.SnapshotRequest, bytes);
  return {
    runId: runIdHex(w.runId),
    chunk: w.chunk,
    chunkSize: u32(w.chunkSize, 1, MAX_SNAPSHOT_CHUNK_BYTES, "snapshotRequest.chunkSize"),
    ...(w.exact ? { iteration: fromU64(w.iteration, "snapshotRequest.iteration") } : {}),
  };
}

/** Encodes one snapshot chunk. */
export function encodeSnapshotResponse(m: SnapshotResponse): Uint8Array {
  return encodeWire("snapshotResponse", pb.SnapshotResponse, {
    iteration: toU64(m.iteration, "snapshotResponse.iteration"),
    checksum: out(hash(m.checksum, "snapshotResponse.checksum")),
    totalChunks: u32(m.totalChunks, 1, U32_MAX, "snapshotResponse.totalChunks"),
    data: out(upTo(m.data, MAX_SNAPSHOT_CHUNK_BYTES, "snapshotResponse.data")),
    chunkHash: out(hash(m.chunkHash, "snapshotResponse.chunkHash")),
  });
}

/** Shapes only: the node still checks chunkHash against the data and the checksum against peers. */
export function decodeSnapshotResponse(bytes: Uint8Array): SnapshotResponse {
  const w = decodeWire("snapshotResponse", pb.SnapshotResponse, bytes);
  return {
    iteration: fromU64(w.iteration, "snapshotResponse.iteration"),
    checksum: hash(w.checksum, "snapshotResponse.checksum").slice(),
    totalChunks: u32(w.totalChunks, 1, U32_MAX, "snapshotResponse.totalChunks"),
    data: upTo(w.data, MAX_SNAPSHOT_CHUNK_BYTES, "snapshotResponse.data").slice(),
    chunkHash: hash(w.chunkHash, "snapshotResponse.chunkHash").slice(),
  };
}

/** Encodes a request for up to `max` commits from `fromIteration` on. */
export function encodeCommitsRequest(m: CommitsRequest): Uint8Array {
  return encodeWire("commitsRequest", pb.CommitsRequest, {
    runId: out(runIdBytes(m.runId)),
    fromIteration: toU64(m.fromIteration, "commitsRequest.fromIteration"),
    max: u32(m.max, 1, MAX_COMMITS_PER_RESPONSE, "commitsRequest.max"),
  });
}

/** Decodes a commits request; max is 1..MAX_COMMITS_PER_RESPONSE. */
export function decodeCommitsRequest(bytes: Uint8Array): CommitsRequest {
  const w = decodeWire("commitsRequest", pb.CommitsRequest, bytes);
  return {
    runId: runIdHex(w.runId),
    fromIteration: fromU64(w.fromIteration, "commitsRequest.fromIteration"),
    max: u32(w.max, 1, MAX_COMMITS_PER_RESPONSE, "commitsRequest.max"),
  };
}

/** Encodes already encoded commits; the caller keeps the total under MAX_COMMITS_RESPONSE_BYTES. */
export function encodeCommitsResponse(m: CommitsResponse): Uint8Array {
  if (m.commits.length > MAX_COMMITS_PER_RESPONSE) {
    bad("commitsResponse.commits", `must hold at most ${MAX_COMMITS_PER_RESPONSE}`, {
      count: m.commits.length,
    });
  }
  return encodeWire("commitsResponse", pb.CommitsResponse, {
    commits: m.commits.map((c, i) =>
      out(upTo(c, MAX_MESSAGE_BYTES.commit, `commitsResponse.commits[${i}]`)),
    ),
  });
}

/** Each commit is still raw: decode it with decodeCommit, hash it with commitHash. */
export function decodeCommitsResponse(bytes: Uint8Array): CommitsResponse {
  const w = decodeWire("commitsResponse", pb.CommitsResponse, bytes, {
    limits: { commits: MAX_COMMITS_PER_RESPONSE },
  });
  return {
    commits: w.commits.map((c, i) =>
      upTo(c, MAX_MESSAGE_BYTES.commit, `commitsResponse.commits[${i}]`).slice(),
    ),
  };
}

/** Encodes a request for a peer's checksum after an iteration. */
export function encodeChecksumRequest(m: ChecksumRequest): Uint8Array {
  return encodeRunIteration("checksumRequest", pb.ChecksumRequest, m);
}

/** Decodes a checksum request. */
export function decodeChecksumRequest(bytes: Uint8Array): ChecksumRequest {
  return decodeRunIteration("checksumRequest", pb.ChecksumRequest, bytes);
}

/** A known checksum is 32 bytes; an unknown one is empty, so nobody mistakes it for a hash. */
function answer(checksum: Uint8Array, known: boolean, at: string): Uint8Array {
  if (known) return hash(checksum, at);
  if (checksum.byteLength !== 0)
    bad(at, "must be empty when not known", { length: checksum.byteLength });
  return checksum;
}

/** Encodes a checksum answer. */
export function encodeChecksumResponse(m: ChecksumResponse): Uint8Array {
  return encodeWire("checksumResponse", pb.ChecksumResponse, {
    iteration: toU64(m.iteration, "checksumResponse.iteration"),
    checksum: out(answer(m.checksum, m.known, "checksumResponse.checksum")),
    known: m.known,
  });
}

/** Decodes a checksum answer; checksum is 32 bytes exactly when known. */
export function decodeChecksumResponse(bytes: Uint8Array): ChecksumResponse {
  const w = decodeWire("checksumResponse", pb.ChecksumResponse, bytes);
  return {
    iteration: fromU64(w.iteration, "checksumResponse.iteration"),
    checksum: answer(w.checksum, w.known, "checksumResponse.checksum").slice(),
    known: w.known,
  };
}

// ---- DHT records ----

/** Encodes an expert record (at most MAX_EXPERT_ENTRIES entries). */
export function encodeExpertRecord(m: ExpertRecord): Uint8Array {
  if (m.entries.length > MAX_EXPERT_ENTRIES)
    bad("expertRecord.entries", `must be at most ${MAX_EXPERT_ENTRIES}`, { length: m.entries.length });
  return encodeWire("expertRecord", pb.ExpertRecord, {
    entries: m.entries.map((e, i) => ({
      suffix: u32(e.suffix, 0, U32_MAX, `expertRecord.entries[${i}].suffix`),
      peer: out(peerId(e.peer, `expertRecord.entries[${i}].peer`)),
      timestamp: toU64(e.timestamp, `expertRecord.entries[${i}].timestamp`),
      expiresAt: toU64(e.expiresAt, `expertRecord.entries[${i}].expiresAt`),
      signature: out(signature(e.signature, `expertRecord.entries[${i}].signature`)),
    })),
  });
}

/** Decodes an expert record; every entry has a peer id, safe-integer times and a signature-sized signature (checked by protocol/experts.ts). */
export function decodeExpertRecord(bytes: Uint8Array): ExpertRecord {
  const w = decodeWire("expertRecord", pb.ExpertRecord, bytes, {
    limits: { entries: MAX_EXPERT_ENTRIES },
  });
  return {
    entries: w.entries.map((e, i) => ({
      suffix: e.suffix,
      peer: peerId(e.peer, `expertRecord.entries[${i}].peer`).slice(),
      timestamp: fromU64(e.timestamp, `expertRecord.entries[${i}].timestamp`),
      expiresAt: fromU64(e.expiresAt, `expertRecord.entries[${i}].expiresAt`),
      signature: signature(e.signature, `expertRecord.entries[${i}].signature`).slice(),
    })),
  };
}
