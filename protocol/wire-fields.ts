/**
 * Field checks and the size-guarded parse every codec shares (protocol/codec.ts for gossip,
 * protocol/sync-codec.ts for request/response). Each throws a WireError naming the field.
 */
import { type DecodeOptions, MaxLengthError } from "protons-runtime";
import { WireError } from "./errors.js";
import { HASH_BYTES, runIdBytes, runIdHex } from "./run-id.js";
import { MAX_MESSAGE_BYTES, MAX_PEER_ID_BYTES, type MessageName, SIGNATURE_BYTES } from "./limits.js";
import type * as pb from "./messages.js";

export function bad(at: string, problem: string, context: Record<string, unknown> = {}): never {
  throw new WireError("WIRE_BAD_FIELD", `${at} ${problem}`, { field: at, ...context });
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

export function hash(b: Uint8Array, at: string): Uint8Array {
  if (b.byteLength !== HASH_BYTES) bad(at, `must be ${HASH_BYTES} bytes`, { length: b.byteLength });
  return b;
}

export function signature(b: Uint8Array, at: string): Uint8Array {
  if (b.byteLength !== SIGNATURE_BYTES) bad(at, `must be ${SIGNATURE_BYTES} bytes`, { length: b.byteLength });
  return b;
}

export function upTo(b: Uint8Array, max: number, at: string): Uint8Array {
  if (b.byteLength > max) bad(at, `must be at most ${max} bytes`, { length: b.byteLength });
  return b;
}

export function peerId(b: Uint8Array, at: string): Uint8Array {
  if (!isPeerIdMultihash(b)) bad(at, "must be a peer id multihash", { length: b.byteLength });
  return b;
}

/** uint64 arrives as bigint: iterations and timestamps must be exact JS numbers. */
export function fromU64(v: bigint, at: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) bad(at, "must be a safe integer", { value: String(v) });
  return Number(v);
}

export function toU64(n: number, at: string): bigint {
  if (!Number.isSafeInteger(n) || n < 0)
    bad(at, "must be a non-negative safe integer", { value: n });
  return BigInt(n);
}

export function u32(n: number, min: number, max: number, at: string): number {
  if (!Number.isInteger(n) || n < min || n > max)
    bad(at, `must be an integer in ${min}..${max}`, { value: n });
  return n;
}

export const U32_MAX = 0xffffffff;

/** protons types its inputs as ArrayBuffer-backed; it only reads them, so any Uint8Array does. */
export function out(b: Uint8Array): Uint8Array<ArrayBuffer> {
  return b as Uint8Array<ArrayBuffer>;
}

/** What the protons namespaces provide. */
export interface ProtonsCodec<W> {
  encode(obj: Partial<W>): Uint8Array;
  decode(buf: Uint8Array, opts?: DecodeOptions<W>): W;
}

/** The size guard: the one check that runs before any parsing. */
export function checkSize(name: MessageName, bytes: Uint8Array): void {
  const max = MAX_MESSAGE_BYTES[name];
  if (bytes.byteLength > max) {
    throw new WireError("WIRE_TOO_LARGE", `${name}: ${bytes.byteLength} bytes exceeds ${max}`, {
      message: name,
      length: bytes.byteLength,
      max,
    });
  }
}

export function encodeWire<W>(name: MessageName, codec: ProtonsCodec<W>, wire: W): Uint8Array {
  const bytes = codec.encode(wire);
  checkSize(name, bytes);
  return bytes;
}

/** Size guard, then a bounded parse; any parser failure becomes a WireError. */
export function decodeWire<W>(
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

/** A ChecksumRequest's shape: a run and an iteration. */
export interface RunIteration {
  readonly runId: string;
  readonly iteration: number;
}

export function encodeRunIteration(
  name: "checksumRequest",
  codec: ProtonsCodec<pb.ChecksumRequest>,
  m: RunIteration,
): Uint8Array {
  return encodeWire(name, codec, {
    runId: out(runIdBytes(m.runId)),
    iteration: toU64(m.iteration, `${name}.iteration`),
  });
}

export function decodeRunIteration(
  name: "checksumRequest",
  codec: ProtonsCodec<pb.ChecksumRequest>,
  bytes: Uint8Array,
): RunIteration {
  const w = decodeWire(name, codec, bytes);
  return { runId: runIdHex(w.runId), iteration: fromU64(w.iteration, `${name}.iteration`) };
}

