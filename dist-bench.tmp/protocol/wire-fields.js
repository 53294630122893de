/**
 * Field checks and the size-guarded parse every codec shares (protocol/codec.ts for gossip,
 * protocol/sync-codec.ts for request/response). Each throws a WireError naming the field.
 */
import { MaxLengthError } from "protons-runtime";
import { WireError } from "./errors.js";
import { HASH_BYTES, runIdBytes, runIdHex } from "./run-id.js";
import { MAX_MESSAGE_BYTES, MAX_PEER_ID_BYTES, SIGNATURE_BYTES } from "./limits.js";
export function bad(at, problem, context = {}) {
    throw new WireError("WIRE_BAD_FIELD", `${at} ${problem}`, { field: at, ...context });
}
/** Multihash codes a libp2p peer id uses: identity (small keys inlined) and sha2-256. */
const IDENTITY = 0x00;
const SHA2_256 = 0x12;
/**
 * True when the bytes are a peer id multihash: identity over at most 42 bytes of key, or a
 * 32-byte sha2-256. Both headers are single-byte varints, so no varint parsing is needed.
 */
export function isPeerIdMultihash(bytes) {
    if (bytes.byteLength < 2 || bytes.byteLength > MAX_PEER_ID_BYTES)
        return false;
    const [code, length] = bytes;
    if (length !== bytes.byteLength - 2)
        return false;
    return (code === IDENTITY && length > 0) || (code === SHA2_256 && length === HASH_BYTES);
}
export function hash(b, at) {
    if (b.byteLength !== HASH_BYTES)
        bad(at, `must be ${HASH_BYTES} bytes`, { length: b.byteLength });
    return b;
}
export function signature(b, at) {
    if (b.byteLength !== SIGNATURE_BYTES)
        bad(at, `must be ${SIGNATURE_BYTES} bytes`, { length: b.byteLength });
    return b;
}
export function upTo(b, max, at) {
    if (b.byteLength > max)
        bad(at, `must be at most ${max} bytes`, { length: b.byteLength });
    return b;
}
export function peerId(b, at) {
    if (!isPeerIdMultihash(b))
        bad(at, "must be a peer id multihash", { length: b.byteLength });
    return b;
}
/** uint64 arrives as bigint: iterations and timestamps must be exact JS numbers. */
export function fromU64(v, at) {
    if (v > BigInt(Number.MAX_SAFE_INTEGER))
        bad(at, "must be a safe integer", { value: String(v) });
    return Number(v);
}
export function toU64(n, at) {
    if (!Number.isSafeInteger(n) || n < 0)
        bad(at, "must be a non-negative safe integer", { value: n });
    return BigInt(n);
}
export function u32(n, min, max, at) {
    if (!Number.isInteger(n) || n < min || n > max)
        bad(at, `must be an integer in ${min}..${max}`, { value: n });
    return n;
}
export const U32_MAX = 0xffffffff;
/** protons types its inputs as ArrayBuffer-backed; it only reads them, so any Uint8Array does. */
export function out(b) {
    return b;
}
/** The size guard: the one check that runs before any parsing. */
export function checkSize(name, bytes) {
    const max = MAX_MESSAGE_BYTES[name];
    if (bytes.byteLength > max) {
        throw new WireError("WIRE_TOO_LARGE", `${name}: ${bytes.byteLength} bytes exceeds ${max}`, {
            message: name,
            length: bytes.byteLength,
            max,
        });
    }
}
export function encodeWire(name, codec, wire) {
    const bytes = codec.encode(wire);
    checkSize(name, bytes);
    return bytes;
}
/** Size guard, then a bounded parse; any parser failure becomes a WireError. */
export function decodeWire(name, codec, bytes, opts) {
    checkSize(name, bytes);
    try {
        return codec.decode(bytes, opts);
    }
    catch (err) {
        const code = err instanceof MaxLengthError ? "WIRE_TOO_LARGE" : "WIRE_MALFORMED";
        throw new WireError(code, `${name}: ${err.message}`, { message: name });
    }
}
export function encodeRunIteration(name, codec, m) {
    return encodeWire(name, codec, {
        runId: out(runIdBytes(m.runId)),
        iteration: toU64(m.iteration, `${name}.iteration`),
    });
}
export function decodeRunIteration(name, codec, bytes) {
    const w = decodeWire(name, codec, bytes);
    return { runId: runIdHex(w.runId), iteration: fromU64(w.iteration, `${name}.iteration`) };
}
//# sourceMappingURL=wire-fields.js.map