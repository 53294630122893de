/**
 * The check behind `gpu_update_bit_identical` and its test: many canonical updates on random
 * inputs, on the device and in the JavaScript reference, then the weight bytes compared.
 */
import { applyUpdateJs, planPasses } from "../../training/algorithms/spsa-update.js";
import { seedFrom } from "../../training/rng/seeds.js";
import { bytesOf, ints, layoutWith, stepsFor, weightsFor } from "./spsa-inputs.js";
/**
 * `updates` iterations on a layout with ragged tensor sizes (not multiples of 32 or 128): each
 * with a random number of bytes m (zeros and +/-127 included), learning rate and, every 10th,
 * 600 bytes on one direction so a class sum passes 2^24 and is rounded.
 */
export async function compareUpdates(gpu, name, updates) {
    const layout = layoutWith([1, 31, 33, 129, 4097, 7000, 300]);
    const w0 = weightsFor(`${name}/w`, layout.size);
    const js = w0.slice();
    const buffer = gpu.weights(w0);
    const r = ints(`${name}/m`, 2 * updates, 1 << 16);
    for (let u = 0; u < updates; u++) {
        const m = 1 + (r[2 * u] % 60);
        let steps = stepsFor(`${name}/${u}`, m);
        if (u % 10 === 9) {
            const seed = seedFrom("test/gpu-update/one-direction", [name, u]);
            steps = [...steps, ...Array.from({ length: 600 }, () => ({ seed, byte: 127 }))];
        }
        const lr = 10 ** -(1 + (r[2 * u + 1] % 4));
        for (const plans of planPasses(steps, steps.length, lr)) {
            applyUpdateJs(js, layout, plans);
            gpu.apply(buffer, layout, plans);
        }
    }
    const dev = await gpu.read(buffer, layout.size);
    buffer.destroy();
    let differing = 0;
    let moved = 0;
    for (let i = 0; i < js.length; i++) {
        if (!Object.is(js[i], dev[i]) && !(Number.isNaN(js[i]) && Number.isNaN(dev[i])))
            differing++;
        if (js[i] !== w0[i])
            moved++;
    }
    return { identical: bytesOf(js).equals(bytesOf(dev)), differing, params: layout.size, moved };
}
//# sourceMappingURL=gpu-update-check.js.map