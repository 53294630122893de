/**
 * The runId on the wire: 64 lowercase hex digits in text, 32 raw bytes in messages. (`runIdOf` in
 * run-spec.ts makes one from a spec.)
 */
import { fromHex, toHex } from "./bytes.js";
import { WireError } from "./errors.js";
/** Bytes of every hash on the wire: run id, checksums, commit and chunk hashes (SHA-256). */
export const HASH_BYTES = 32;
const RUN_ID = /^[0-9a-f]{64}$/;
/** True for a runId as `runIdOf` makes it: 64 lowercase hex digits. */
export function isRunId(s) {
    return RUN_ID.test(s);
}
/** The 32 raw bytes of a hex runId; throws WireError unless it is 64 lowercase hex. */
export function runIdBytes(hex) {
    if (!isRunId(hex))
        throw new WireError("WIRE_BAD_FIELD", "runId must be 64 lowercase hex", { field: "runId", value: hex });
    return fromHex(hex);
}
/** The hex runId of 32 raw bytes; throws WireError on any other length. */
export function runIdHex(bytes) {
    if (bytes.byteLength !== HASH_BYTES)
        throw new WireError("WIRE_BAD_FIELD", "runId must be 32 bytes", { field: "runId", length: bytes.byteLength });
    return toHex(bytes);
}
//# sourceMappingURL=run-id.js.map