/**
 * Marketplace contribution payloads (what travels; `apply` reads nothing else).
 *
 * V1, 4 + N bytes for N specs: the author's best path.
 *   [0..4)   float32 little-endian: its loss on the iteration's shared batch (0..MAX_PATH_LOSS)
 *   [4..4+N) one byte per spec: the vendor index chosen at that spec (< vendors)
 *
 * V2, 8 + P bytes for P evaluated paths (in the path order of `marketplace-paths.ts`):
 *   [0..4)   float32 LE `base`: the lowest finite loss
 *   [4..8)   float32 LE `step`: fround((highest finite loss - base) / 255), >= 0
 *   [8..8+P) one byte per path: code k, the loss is fround(base + fround(k * step))
 * An affine 8-bit code per contribution: V2 only uses z-scores of the losses, and with 256 levels
 * across the observed range the rounding moves a z-score by under 1% of a standard deviation.
 * A non-finite loss or one above MAX_PATH_LOSS (a diverged vendor) is sent as the worst code 255.
 * Validation refuses a payload whose highest decoded loss exceeds MAX_PATH_LOSS.
 */
/**
 * Highest loss a payload may claim: 2^32, far above any cross-entropy a working model has (ln 10 ~
 * 2.3 at the start of MNIST), and low enough that V2's float32 statistics cannot overflow: with
 * n < 2^23 losses in a commit (1,024 entries x 4,088 paths) the sum stays below 2^55 and the sum
 * of squared deviations below 2^87 (float32 reaches 2^128). Exact in float32.
 */
export const MAX_PATH_LOSS = 2 ** 32;
/** Bytes of a V1 payload for a model split into `specs` specs. */
export function v1PayloadSize(specs) {
    return 4 + specs;
}
/** Bytes of a V2 payload for `paths` evaluated paths. */
export function v2PayloadSize(paths) {
    return 8 + paths;
}
function view(payload) {
    return new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
}
/** Encodes a V1 payload: the loss (rounded to float32) and the path's vendor per spec. */
export function encodeV1(loss, path) {
    const out = new Uint8Array(v1PayloadSize(path.length));
    view(out).setFloat32(0, loss, true);
    for (let s = 0; s < path.length; s++)
        out[4 + s] = path[s];
    return out;
}
/** Decodes a V1 payload (check it with `v1PayloadProblem` first). */
export function decodeV1(payload) {
    return { loss: view(payload).getFloat32(0, true), path: payload.subarray(4) };
}
/** Why a V1 payload is impossible for this split, or null. */
export function v1PayloadProblem(payload, specs, vendors) {
    if (payload.length !== v1PayloadSize(specs))
        return `payload has ${payload.length} bytes, the run needs ${v1PayloadSize(specs)}`;
    const loss = view(payload).getFloat32(0, true);
    if (!Number.isFinite(loss) || loss < 0)
        return `loss ${loss} is not a finite non-negative number`;
    if (loss > MAX_PATH_LOSS)
        return `loss ${loss} is above the highest loss a path may claim (2^32)`;
    for (let s = 0; s < specs; s++)
        if (payload[4 + s] >= vendors)
            return `vendor ${payload[4 + s]} at spec ${s} is not below ${vendors}`;
    return null;
}
/** Encodes the losses of every evaluated path as a V2 payload. */
export function encodeV2(losses) {
    const f = Math.fround;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < losses.length; j++) {
        const l = losses[j];
        if (!inRange(l))
            continue;
        lo = Math.min(lo, l);
        hi = Math.max(hi, l);
    }
    const out = new Uint8Array(v2PayloadSize(losses.length));
    if (lo === Number.POSITIVE_INFINITY)
        return out; // nothing finite: all codes 0, step 0, no update
    const base = f(lo);
    let step = f((hi - base) / 255);
    // Rounding may carry the top code a hair past hi: keep it within what validation accepts.
    while (f(base + f(255 * step)) > MAX_PATH_LOSS)
        step = f(step * (1 - 2 ** -23));
    view(out).setFloat32(0, base, true);
    view(out).setFloat32(4, step, true);
    for (let j = 0; j < losses.length; j++) {
        const l = losses[j];
        out[8 + j] = !inRange(l)
            ? 255
            : step === 0
                ? 0
                : Math.min(255, Math.max(0, Math.round((l - base) / step)));
    }
    return out;
}
/** A loss V2 codes by value: finite and at most MAX_PATH_LOSS (others take the worst code). */
function inRange(l) {
    return Number.isFinite(l) && l <= MAX_PATH_LOSS;
}
/** The losses a V2 payload stands for, as every replica decodes them (float32-exact). */
export function decodeV2(payload) {
    const f = Math.fround;
    const base = view(payload).getFloat32(0, true);
    const step = view(payload).getFloat32(4, true);
    const out = new Float32Array(payload.length - 8);
    for (let j = 0; j < out.length; j++)
        out[j] = f(base + f(payload[8 + j] * step));
    return out;
}
/** Why a V2 payload is impossible for `paths` paths, or null. */
export function v2PayloadProblem(payload, paths) {
    if (payload.length !== v2PayloadSize(paths))
        return `payload has ${payload.length} bytes, the run needs ${v2PayloadSize(paths)}`;
    const base = view(payload).getFloat32(0, true);
    const step = view(payload).getFloat32(4, true);
    if (!Number.isFinite(base) || base < 0)
        return `base loss ${base} is not finite and >= 0`;
    if (!Number.isFinite(step) || step < 0)
        return `loss step ${step} is not finite and >= 0`;
    // The highest code's loss exactly as decodeV2 computes it (Infinity when 255 * step overflows).
    const top = Math.fround(base + Math.fround(255 * step));
    if (!(top <= MAX_PATH_LOSS))
        return `highest loss ${top} is above the highest loss a path may claim (2^32)`;
    return null;
}
//# sourceMappingURL=marketplace-payload.js.map