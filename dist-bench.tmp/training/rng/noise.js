/**
 * Noise generators over Philox streams. Everything here is integer arithmetic or exact float32
 * conversions, so every machine produces the same bits.
 */
import { philox4x32 } from "./philox.js";
/** 2^-24: uniform24 values are k * 2^-24 for integer k < 2^24, exact in float32. */
const TWO_M24 = 1 / 16777216;
/** Fills `out` with exact uniform values in [0, 1) on a 2^-24 grid, words from word 0. */
export function fillUniform24(id, out) {
    const blk = new Uint32Array(4);
    for (let i = 0, b = 0; i < out.length; b++) {
        philox4x32(b, 0, id.c2, id.c3, id.k0, id.k1, blk);
        for (let j = 0; j < 4 && i < out.length; j++, i++)
            out[i] = (blk[j] >>> 8) * TWO_M24;
    }
}
/** 2^-23: signed24 values are k * 2^-23 - 1, exact in float32. */
const TWO_M23 = 1 / 8388608;
/**
 * Fills `out` with 2u - 1 for the uniform24 values u of `fillUniform24` (same stream, same
 * words): exact values in [-1, 1) on a 2^-23 grid, in one pass. Marketplace vendor deltas.
 */
export function fillSigned24(id, out) {
    const blk = new Uint32Array(4);
    const n = out.length;
    const full = n & ~3;
    let b = 0;
    for (let i = 0; i < full; i += 4, b++) {
        philox4x32(b, 0, id.c2, id.c3, id.k0, id.k1, blk);
        out[i] = (blk[0] >>> 8) * TWO_M23 - 1;
        out[i + 1] = (blk[1] >>> 8) * TWO_M23 - 1;
        out[i + 2] = (blk[2] >>> 8) * TWO_M23 - 1;
        out[i + 3] = (blk[3] >>> 8) * TWO_M23 - 1;
    }
    if (full < n) {
        philox4x32(b, 0, id.c2, id.c3, id.k0, id.k1, blk);
        for (let j = 0; full + j < n; j++)
            out[full + j] = (blk[j] >>> 8) * TWO_M23 - 1;
    }
}
/**
 * Rademacher signs as packed bits: element i of the stream is bit (i & 31) of word (i >>> 5),
 * 1 meaning +1 and 0 meaning -1. Writes ceil(n / 32) words into `out` (which may be longer:
 * callers reuse one scratch buffer) and returns it.
 */
export function rademacherBits(id, n, out) {
    const words = Math.ceil(n / 32);
    if (out.length < words)
        throw new RangeError(`scratch of ${out.length} words, need ${words}`);
    const full = words >>> 2;
    for (let b = 0; b < full; b++)
        philox4x32(b, 0, id.c2, id.c3, id.k0, id.k1, out, 4 * b);
    if (words & 3) {
        const blk = new Uint32Array(4);
        philox4x32(full, 0, id.c2, id.c3, id.k0, id.k1, blk);
        for (let j = 0; j < (words & 3); j++)
            out[4 * full + j] = blk[j];
    }
    return out;
}
/** Fills `out` with Rademacher signs (+1/-1) from the same bits as `rademacherBits`. */
export function fillRademacher(id, out) {
    const bits = rademacherBits(id, out.length, new Uint32Array(Math.ceil(out.length / 32)));
    for (let i = 0; i < out.length; i++)
        out[i] = (bits[i >>> 5] >>> (i & 31)) & 1 ? 1 : -1;
}
/**
 * Uniform integers in [0, n) by multiply-shift on 32-bit words (bias < n / 2^32, irrelevant for
 * sampling and identical everywhere). Used to draw minibatch indices.
 */
export function fillUniformInt(id, n, out) {
    if (!(n > 0 && n <= 0x100000000))
        throw new RangeError(`uniform int range must be 1..2^32: ${n}`);
    const blk = new Uint32Array(4);
    for (let i = 0, b = 0; i < out.length; b++) {
        philox4x32(b, 0, id.c2, id.c3, id.k0, id.k1, blk);
        for (let j = 0; j < 4 && i < out.length; j++, i++)
            out[i] = Math.floor((blk[j] * n) / 0x100000000);
    }
}
//# sourceMappingURL=noise.js.map