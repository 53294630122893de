import { layoutOf } from "../../training/params.js";
import { fillUniformInt } from "../../training/rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../../training/rng/seeds.js";
/** Deterministic test randomness: uniform ints in [0, n) from a named Philox stream. */
export function ints(name, count, n) {
    const out = new Uint32Array(count);
    fillUniformInt(streamOf(seedFrom("test/spsa-update", [name]), Purpose.Batch), n, out);
    return out;
}
export function layoutWith(sizes) {
    return layoutOf(sizes.map((s, i) => ({ name: `t${i}`, shape: [s], fanIn: 1, init: "zeros" })));
}
/** Weights with varied magnitudes, signed zeros included. */
export function weightsFor(name, n) {
    const r = ints(name, 2 * n, 1 << 24);
    const w = new Float32Array(n);
    for (let i = 0; i < n; i++)
        w[i] = ((r[2 * i] - (1 << 23)) / (1 << 23)) * 2 ** ((r[2 * i + 1] % 24) - 12);
    if (n > 2) {
        w[0] = -0;
        w[1] = 0;
    }
    return w;
}
/** m bytes, zeros and the extremes +/-127 and +/-1 included. */
export function stepsFor(name, m) {
    const r = ints(name, m, 255);
    const special = [0, 127, -127, 1, -1];
    return Array.from({ length: m }, (_, q) => ({
        seed: seedFrom("test/spsa-update/step", [name, q]),
        byte: q < special.length && m > 8 ? special[q] : r[q] - 127,
    }));
}
export const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
//# sourceMappingURL=spsa-inputs.js.map