/**
 * Byte helpers every layer shares: hex, SHA-256 and equality. One definition each, so a hash or
 * a hex string means the same bytes everywhere.
 */
import { createHash } from "node:crypto";
/** Lowercase hex of any bytes (checksums, hashes, payloads in logs). */
export function toHex(bytes) {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}
/** The bytes of a hex string (a fresh copy, not a view into a pooled Buffer). */
export function fromHex(hex) {
    return Uint8Array.from(Buffer.from(hex, "hex"));
}
/** SHA-256 of some bytes. */
export function sha256(bytes) {
    return new Uint8Array(createHash("sha256").update(bytes).digest());
}
/** SHA-256 of some bytes (or of a string's UTF-8), as lowercase hex. */
export function sha256Hex(data) {
    return createHash("sha256").update(data).digest("hex");
}
/** Below this length a JS loop beats wrapping both sides in Buffers for memcmp. */
const EQUAL_BY_LOOP_BELOW = 64;
/** Byte-wise equality (memcmp for long inputs: a commit's canonical check compares kilobytes). */
export function equalBytes(a, b) {
    if (a.byteLength !== b.byteLength)
        return false;
    if (a.byteLength < EQUAL_BY_LOOP_BELOW) {
        for (let i = 0; i < a.byteLength; i++)
            if (a[i] !== b[i])
                return false;
        return true;
    }
    return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}
//# sourceMappingURL=bytes.js.map