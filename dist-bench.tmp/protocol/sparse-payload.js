/**
 * The sparse one-byte payload: a short list of (index, value) pairs, each value one signed log
 * byte of protocol/gradient-byte.ts times a per-payload scale.
 *
 *   f32 LE scale | varint count | count x (varint gap, int8 byte)
 *
 * The first gap is the first index itself; every later gap is index - previous index and must be
 * >= 1, so indices are strictly increasing and each appears once. A value is
 * fround(scale * dequantizeGradient(byte)). The scale is finite and > 0 (it carries the magnitude
 * of the largest value, which the byte alone could not: the byte's range is 5.3e-4..29.3).
 * Varints are unsigned LEB128 of at most 5 bytes (< 2^32) in their shortest form.
 *
 * Decoding is bounded before it allocates: `count` is checked against `maxEntries` and against
 * the bytes left (each entry takes at least 2), then exactly `count` entries must end the payload.
 */
import { SeedswarmError } from "./errors.js";
import { dequantizeGradient, GRADIENT_BYTE_MAX, quantizeGradient } from "./gradient-byte.js";
/** A payload that breaks the format or the caller's limits; the message names the problem. */
export class SparsePayloadError extends SeedswarmError {
}
const HEADER_SCALE_BYTES = 4;
/** Bytes of the unsigned LEB128 varint of n (0 <= n < 2^32). */
export function varintLength(n) {
    let len = 1;
    while (n >= 0x80) {
        n = Math.floor(n / 0x80);
        len++;
    }
    return len;
}
/**
 * The largest payload `maxEntries` entries can make when every index is below `endIndex`: the
 * worst case a RunSpec must fit into the payload limit.
 */
export function worstCaseSparseBytes(maxEntries, endIndex) {
    return (HEADER_SCALE_BYTES + varintLength(maxEntries) + maxEntries * (varintLength(Math.max(0, endIndex - 1)) + 1));
}
function bad(problem, context = {}) {
    throw new SparsePayloadError("SPARSE_PAYLOAD_INVALID", `sparse payload: ${problem}`, context);
}
/** Reads one varint at `pos`; returns [value, next position]. */
function readVarint(data, pos, what) {
    let value = 0;
    for (let i = 0; i < 5; i++) {
        if (pos + i >= data.length)
            bad(`truncated varint in ${what}`, { at: pos });
        const b = data[pos + i];
        value += (b & 0x7f) * 2 ** (7 * i);
        if ((b & 0x80) === 0) {
            if (i > 0 && b === 0)
                bad(`non-minimal varint in ${what}`, { at: pos });
            if (value > 0xffffffff)
                bad(`varint above 2^32 in ${what}`, { at: pos });
            return [value, pos + i + 1];
        }
    }
    return bad(`varint longer than 5 bytes in ${what}`, { at: pos });
}
/**
 * Decodes and validates a payload against the limits: the one validator of the format. Throws
 * only SparsePayloadError, and allocates at most `maxEntries` entries.
 */
export function decodeSparsePayload(data, limits) {
    if (data.length > limits.maxBytes)
        bad(`${data.length} bytes, the limit is ${limits.maxBytes}`, { length: data.length });
    if (data.length < HEADER_SCALE_BYTES + 1)
        bad(`${data.length} bytes is shorter than a header`);
    const scale = new DataView(data.buffer, data.byteOffset, data.byteLength).getFloat32(0, true);
    if (!Number.isFinite(scale) || !(scale > 0))
        bad(`scale ${scale} is not finite and positive`);
    const [count, start] = readVarint(data, HEADER_SCALE_BYTES, "the count");
    if (count > limits.maxEntries)
        bad(`${count} entries, the limit is ${limits.maxEntries}`, { count });
    if (2 * count > data.length - start)
        bad(`count ${count} needs at least ${2 * count} bytes, ${data.length - start} follow`, { count });
    const indices = new Uint32Array(count);
    const bytes = new Int8Array(count);
    let pos = start;
    let index = -1;
    for (let k = 0; k < count; k++) {
        const [gap, next] = readVarint(data, pos, `entry ${k}`);
        if (k > 0 && gap === 0)
            bad(`index of entry ${k} does not increase`, { entry: k });
        index = k === 0 ? gap : index + gap;
        if (index < limits.minIndex || index >= limits.endIndex)
            bad(`index ${index} outside ${limits.minIndex}..${limits.endIndex - 1}`, { entry: k, index });
        if (next >= data.length)
            bad(`entry ${k} has no value byte`, { entry: k });
        const b = (data[next] << 24) >> 24;
        if (b === -128)
            bad(`entry ${k} holds the invalid byte -128`, { entry: k });
        indices[k] = index;
        bytes[k] = b;
        pos = next + 1;
    }
    if (pos !== data.length)
        bad(`${data.length - pos} bytes after the ${count} entries`, { count });
    return { scale, indices, bytes };
}
/** Why a payload is unacceptable under the limits, or null. */
export function sparsePayloadProblem(data, limits) {
    try {
        decodeSparsePayload(data, limits);
        return null;
    }
    catch (err) {
        if (err instanceof SparsePayloadError)
            return err.message;
        throw err;
    }
}
/** The value entry k carries: fround(scale * dequant(byte)). */
export function sparseValue(p, k) {
    return Math.fround(p.scale * dequantizeGradient(p.bytes[k]));
}
/**
 * Encodes values at strictly increasing indices. The scale maps the largest magnitude to the
 * byte's top code, so values down to ~max / 5.5e4 survive (smaller ones become the byte 0).
 */
export function encodeSparsePayload(indices, values) {
    let max = 0;
    for (let k = 0; k < values.length; k++)
        max = Math.max(max, Math.abs(values[k]));
    const scale = max > 0 && Number.isFinite(max) ? Math.fround(max / GRADIENT_BYTE_MAX) || 1 : 1;
    let size = HEADER_SCALE_BYTES + varintLength(indices.length);
    for (let k = 0; k < indices.length; k++)
        size += varintLength(k === 0 ? indices[0] : indices[k] - indices[k - 1]) + 1;
    const out = new Uint8Array(size);
    new DataView(out.buffer).setFloat32(0, scale, true);
    let pos = writeVarint(out, HEADER_SCALE_BYTES, indices.length);
    for (let k = 0; k < indices.length; k++) {
        const gap = k === 0 ? indices[0] : indices[k] - indices[k - 1];
        if (k > 0 && !(gap >= 1))
            throw new RangeError(`indices must increase strictly (entry ${k})`);
        pos = writeVarint(out, pos, gap);
        out[pos++] = quantizeGradient(values[k] / scale) & 0xff;
    }
    return out;
}
function writeVarint(out, pos, n) {
    while (n >= 0x80) {
        out[pos++] = (n & 0x7f) | 0x80;
        n = Math.floor(n / 0x80);
    }
    out[pos++] = n;
    return pos;
}
//# sourceMappingURL=sparse-payload.js.map