/**
 * The canonical SPSA update and the seeded perturbation, as plain JavaScript: the reference that
 * the WebAssembly kernels (spsa-kernels.ts) must match byte for byte, and the fallback where they
 * cannot load. The rule is written out in docs/architecture.md ("The canonical SPSA update").
 *
 * A byte b != 0 has magnitude F[|b| mod 8] * 2^(floor(|b| / 8) - 11) (protocol/gradient-byte.ts),
 * so all m bytes of an iteration go into ONE pass over the weights: per parameter and per mantissa
 * class r = |b| mod 8, an exact integer S_r = sum of sign(b) * z * 2^floor(|b| / 8); then a fixed
 * sequence of float32 operations, no fused multiply-add:
 *   d = -0;  for each class r present, ascending:  d = f(d + f(f(S_r) * C_r));   w = f(w + d)
 * with the per-iteration constants C_r = f(f(-lr * F[r]) / (m * 2^11)). Integer sums commute, so
 * the result does not depend on the order of the bytes, and nothing is lost to rounding before a
 * class's sum meets its constant.
 */
import { GRADIENT_BYTE_FRACTIONS } from "../../protocol/gradient-byte.js";
import { philox4x32 } from "../rng/philox.js";
import { Purpose, streamOf } from "../rng/seeds.js";
/** Mantissa classes of the byte code: |b| mod 8. */
export const CLASSES = 8;
/** 2^11: the byte with |b| = 88 (magnitude 1) has exponent field floor(88 / 8) = 11. */
const EXPONENT_BIAS = 2048;
/**
 * Parameters per tile: the update regenerates the noise of every step for one tile at a time, so
 * scratch stays at m * TILE / 8 bytes. A multiple of 128 (one Philox block of sign bits) so tiles
 * start on block boundaries.
 */
export const TILE = 4096;
/**
 * Non-zero bytes per pass: an iteration with more is applied in consecutive passes of this many
 * (in canonical order), so the sums S_r stay below 2^26 in magnitude, exact in int32.
 */
export const MAX_STEPS = 1024;
/**
 * The per-iteration part of the rule for one pass: steps grouped by class (classes without steps
 * are absent, ascending r), and each class's constant. `m` counts every byte of the iteration,
 * zero bytes included; at most MAX_STEPS non-zero steps.
 */
export function planUpdate(steps, m, lr) {
    const f = Math.fround;
    if (!Number.isInteger(m) || m < 1 || m >= 1 << 24)
        throw new RangeError(`an iteration applies 1..2^24 - 1 bytes, got ${m}`);
    const byClass = Array.from({ length: CLASSES }, () => []);
    let count = 0;
    for (const { seed, byte } of steps) {
        if (!Number.isInteger(byte) || byte < -127 || byte > 127)
            throw new RangeError(`gradient byte out of range -127..127: ${byte}`);
        if (byte === 0)
            continue;
        const a = Math.abs(byte);
        byClass[a & 7].push({ seed, v: Math.sign(byte) * (1 << (a >>> 3)) });
        count++;
    }
    if (count > MAX_STEPS)
        throw new RangeError(`${count} non-zero steps in one pass, at most ${MAX_STEPS}`);
    const plans = [];
    for (let r = 0; r < CLASSES; r++) {
        if (byClass[r].length === 0)
            continue;
        // m * 2^11 < 2^35 is exact in float32 (an integer below 2^24 times a power of two).
        const coef = f(f(-lr * GRADIENT_BYTE_FRACTIONS[r]) / (m * EXPONENT_BIAS));
        plans.push({ r, steps: byClass[r], coef });
    }
    return plans;
}
/**
 * The passes of an iteration: its non-zero steps in canonical order cut into consecutive runs of
 * MAX_STEPS, each planned with the iteration's m (one pass unless more than 1,024 bytes count).
 */
export function planPasses(steps, m, lr) {
    const nonZero = steps.filter((s) => s.byte !== 0);
    const passes = [];
    for (let i = 0; i < nonZero.length; i += MAX_STEPS)
        passes.push(planUpdate(nonZero.slice(i, i + MAX_STEPS), m, lr));
    return passes;
}
/**
 * Fills `out[0 .. words)` with the Rademacher sign words of a stream starting at Philox block
 * `firstBlock` (word 4 * firstBlock): the same words `rademacherBits` gives from word 0.
 */
export function signWords(seed, tensor, firstBlock, words, out) {
    const id = streamOf(seed, Purpose.Noise, tensor);
    const full = words >>> 2;
    for (let b = 0; b < full; b++)
        philox4x32(firstBlock + b, 0, id.c2, id.c3, id.k0, id.k1, out, 4 * b);
    if (words & 3) {
        const blk = new Uint32Array(4);
        philox4x32(firstBlock + full, 0, id.c2, id.c3, id.k0, id.k1, blk);
        for (let j = 0; j < (words & 3); j++)
            out[4 * full + j] = blk[j];
    }
}
/**
 * The reference update: applies a plan to `weights` (all tensors of `layout`) in place. Class by
 * class over a tile, so each step is one branch-free integer pass (2v where z = +1, on top of
 * -sum v: the same S_r); Float32Array stores are the float32 roundings of the rule.
 */
export function applyUpdateJs(weights, layout, plans) {
    if (plans.length === 0)
        return;
    for (const [ti, t] of layout.tensors.entries())
        applyTensorJs(weights, t, ti, plans);
}
/**
 * applyUpdateJs on one tensor (index `ti` of its layout, which names its noise stream). Low-rank
 * SPSA (lowrank.ts) updates its vectors with this.
 */
export function applyTensorJs(weights, t, ti, plans) {
    const f = Math.fround;
    if (plans.length === 0)
        return;
    const bits = new Uint32Array(TILE / 32);
    const sums = new Int32Array(TILE);
    const delta = new Float32Array(TILE);
    for (let start = 0; start < t.size; start += TILE) {
        const n = Math.min(TILE, t.size - start);
        delta.fill(-0);
        for (const p of plans) {
            sums.fill(-p.steps.reduce((s, q) => s + q.v, 0));
            for (const step of p.steps) {
                signWords(step.seed, ti, start / 128, Math.ceil(n / 32), bits);
                const v2 = 2 * step.v;
                for (let w = 0, i = 0; i < n; w++) {
                    const word = bits[w];
                    for (let j = 0; j < 32 && i < n; j++, i++)
                        sums[i] += ((word << (31 - j)) >> 31) & v2;
                }
            }
            for (let i = 0; i < n; i++)
                delta[i] = delta[i] + f(f(sums[i]) * p.coef);
        }
        const base = t.offset + start;
        for (let i = 0; i < n; i++)
            weights[base + i] = weights[base + i] + delta[i];
    }
}
/**
 * The reference perturbation: out = w + eps z (sign +1) or w - eps z (sign -1) for the seed's
 * direction z, every tensor of `layout`. `eps` must be a float32 value.
 */
export function perturbJs(out, weights, layout, seed, eps, sign) {
    for (const [ti, t] of layout.tensors.entries())
        perturbTensorJs(out, weights, t, ti, seed, eps, sign);
}
/** perturbJs on one tensor (index `ti` of its layout), written to `out` from index `outBase` (default: where the tensor sits). */
export function perturbTensorJs(out, weights, t, ti, seed, eps, sign, outBase = t.offset) {
    const e = Math.fround(sign * eps);
    const pm = Float64Array.of(-e, e);
    const bits = new Uint32Array(TILE / 32);
    for (let start = 0; start < t.size; start += TILE) {
        const n = Math.min(TILE, t.size - start);
        signWords(seed, ti, start / 128, Math.ceil(n / 32), bits);
        const base = t.offset + start;
        const ob = outBase + start;
        // Branch-free: a sign taken from random bits defeats branch prediction. A float32 sum
        // rounded once on store is the float32 add (double keeps both operands exactly).
        for (let i = 0; i < n; i++)
            out[ob + i] = weights[base + i] + pm[(bits[i >>> 5] >>> (i & 31)) & 1];
    }
}
//# sourceMappingURL=spsa-update.js.map