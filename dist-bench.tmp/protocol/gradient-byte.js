/**
 * The one-byte projected gradient ("Just One Byte per gradient"): a signed log-scale code.
 *
 *   byte b in -127..127 (0x80 = -128 is invalid)
 *   b = 0            -> 0
 *   |b| = 1..127     -> sign(b) * 2^((|b| - 88) / 8)
 *
 * So magnitudes from 2^(-87/8) ~ 5.3e-4 to 2^(39/8) ~ 29.3 in steps of 2^(1/8) (~9%): a value in
 * range is off by at most 2^(1/16) - 1 ~ 4.4% relative. Larger values clip to +/-29.3 (which acts
 * as gradient clipping), smaller ones round to 0 (no step). The byte is what travels and what every
 * replica applies, the author included; only `quantize` uses floating log, so only the author's
 * choice of byte can depend on the machine, never the dequantized value.
 */
/** Offset of exponent 0 in the code: |b| = 88 means magnitude 1. */
export const GRADIENT_BYTE_ZERO_EXPONENT = 88;
/** Code steps per octave. */
export const GRADIENT_BYTE_STEPS_PER_OCTAVE = 8;
/**
 * 2^(r/8) for r = 0..7 as float32: decimal literals parse identically in every JS engine. The
 * canonical SPSA update multiplies by these per mantissa class.
 */
export const GRADIENT_BYTE_FRACTIONS = [
    1,
    1.0905077326652577,
    1.189207115002721,
    1.2968395546510096,
    Math.SQRT2,
    1.5422108254079407,
    1.681792830507429,
    1.8340080864093424,
].map(Math.fround);
/** dequant table indexed by byte + 127; built with exact power-of-two scaling. */
const TABLE = new Float32Array(255);
for (let b = -127; b <= 127; b++) {
    if (b === 0)
        continue;
    const e = Math.abs(b) - GRADIENT_BYTE_ZERO_EXPONENT;
    const q = Math.floor(e / GRADIENT_BYTE_STEPS_PER_OCTAVE);
    const r = e - q * GRADIENT_BYTE_STEPS_PER_OCTAVE;
    TABLE[b + 127] = Math.sign(b) * GRADIENT_BYTE_FRACTIONS[r] * 2 ** q;
}
/** Largest magnitude a byte carries. */
export const GRADIENT_BYTE_MAX = TABLE[254];
/** Smallest non-zero magnitude a byte carries. */
export const GRADIENT_BYTE_MIN = TABLE[128];
/**
 * The largest code c in 0..127 whose magnitude is at most `bound` (a RunSpec's `clip`): the byte
 * form of a magnitude bound. Exact comparisons of a double with float32 table values, so every
 * engine finds the same code.
 */
export function gradientCodeBound(bound) {
    let c = 127;
    while (c > 0 && !(TABLE[c + 127] <= bound))
        c--;
    return c;
}
/**
 * A byte (-127..127) clamped to magnitude at most `code` (0..127), its sign kept: a byte beyond a
 * run's bound steps exactly as the bound's own byte does. Integers only.
 */
export function clampGradientByte(b, code) {
    return b > code ? code : b < -code ? -code : b;
}
/**
 * Encodes a projected gradient as a signed byte (-127..127). NaN encodes as 0 (no step: a
 * measurement that failed must not move the swarm); +/-Infinity and values beyond the range clip
 * to +/-127; magnitudes below half a step under the smallest code round to 0.
 */
export function quantizeGradient(g) {
    if (Number.isNaN(g) || g === 0)
        return 0;
    const code = Math.round(Math.log2(Math.abs(g)) * GRADIENT_BYTE_STEPS_PER_OCTAVE) + 88;
    if (code < 1)
        return 0;
    return Math.sign(g) * Math.min(code, 127);
}
/** Decodes a signed byte to its exact float32 value; throws on -128 or a non-integer. */
export function dequantizeGradient(b) {
    if (!Number.isInteger(b) || b < -127 || b > 127) {
        throw new RangeError(`gradient byte out of range -127..127: ${b}`);
    }
    return TABLE[b + 127];
}
/** True when every byte of a payload (read as int8) is a valid code. */
export function isValidGradientPayload(bytes) {
    for (let i = 0; i < bytes.length; i++)
        if (bytes[i] === -128)
            return false;
    return true;
}
/** Why a dense payload of one-byte gradients is invalid (not exactly `size` bytes, or a -128), or null. */
export function gradientPayloadProblem(payload, size) {
    if (payload.length !== size)
        return `payload has ${payload.length} bytes, the run needs ${size}`;
    const bytes = new Int8Array(payload.buffer, payload.byteOffset, payload.byteLength);
    return isValidGradientPayload(bytes) ? null : "payload holds the invalid byte -128";
}
//# sourceMappingURL=gradient-byte.js.map