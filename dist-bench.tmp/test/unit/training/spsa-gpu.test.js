import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyUpdateJs, perturbJs, planPasses, planUpdate } from "../../../training/algorithms/spsa-update.js";
import { GpuUpdateKernels } from "../../../training/gpu/gpu-update-kernels.js";
import { GpuSpsa } from "../../../training/gpu/spsa-gpu.js";
import { openWebGpu } from "../../../training/gpu/webgpu.js";
import { seedFrom } from "../../../training/rng/seeds.js";
import { compareUpdates } from "../../helpers/gpu-update-check.js";
import { bytesOf, layoutWith, stepsFor, weightsFor } from "../../helpers/spsa-inputs.js";
import { webGpuProblem } from "../../helpers/vulkan.js";
/** Skips only where the driver or the optional `webgpu` package truly cannot be had. */
async function device() {
    const problem = await webGpuProblem();
    return problem ?? new GpuSpsa(await openWebGpu());
}
const gpu = await device();
const skip = typeof gpu === "string" ? gpu : false;
const kernels = () => gpu;
describe("SPSA on a WebGPU device (lavapipe) = JavaScript reference", { skip }, () => {
    it("runs on the software driver the test selected", () => {
        assert.ok(kernels().gpu.software, `adapter ${kernels().gpu.adapterName} is not lavapipe`);
        assert.match(kernels().gpu.adapterName, /llvmpipe/);
    });
    it("perturbs with the same seeded noise, byte for byte (ragged tensors, both signs)", async () => {
        for (const sizes of [[1], [5, 33, 129], [4097, 4096, 3]]) {
            const layout = layoutWith(sizes);
            const w = weightsFor(`gpu-perturb${layout.size}`, layout.size);
            const base = kernels().weights(w);
            const out = kernels().weights(new Float32Array(layout.size));
            const seed = seedFrom("test/gpu-perturb", [layout.size]);
            for (const sign of [1, -1]) {
                const js = new Float32Array(layout.size);
                perturbJs(js, w, layout, seed, 1e-3, sign);
                kernels().perturb(out, base, layout, seed, 1e-3, sign);
                const dev = await kernels().read(out, layout.size);
                assert.ok(bytesOf(js).equals(bytesOf(dev)), `tensors [${sizes.join(", ")}], sign ${sign}`);
            }
        }
    });
    it("gives the same weight bytes after 100 updates on random inputs (gpu_update_bit_identical)", async () => {
        const r = await compareUpdates(kernels(), "unit", 100);
        assert.ok(r.moved > 0.99 * r.params, `only ${r.moved} of ${r.params} weights moved`);
        assert.equal(r.differing, 0);
        assert.ok(r.identical);
    });
    it("keeps -0 + +0 = +0 and leaves weights with a zero step untouched", async () => {
        const layout = layoutWith([64]);
        const seed = seedFrom("test/gpu-zero", []);
        // The same direction up and down: every class sum is 0, so d = 0 for every weight.
        const steps = [{ seed, byte: 100 }, { seed, byte: -100 }];
        const w0 = weightsFor("gpu-zero", 64);
        w0[2] = 1e-40; // subnormal: must survive a zero step even where the device flushes subnormals
        const buffer = kernels().weights(w0);
        const plans = planUpdate(steps, 2, 0.1);
        kernels().apply(buffer, layout, plans);
        const js = w0.slice();
        applyUpdateJs(js, layout, plans);
        assert.ok(bytesOf(js).equals(bytesOf(await kernels().read(buffer, 64))));
    });
    it("refuses a class constant outside its exact range instead of rounding differently", () => {
        const layout = layoutWith([8]);
        const plans = planUpdate([{ seed: seedFrom("t", []), byte: 1 }], 1, 1e-30);
        assert.throws(() => kernels().apply(kernels().weights(new Float32Array(8)), layout, plans), (err) => err.code === "GPU_OUT_OF_RANGE");
    });
});
describe("GpuUpdateKernels: the WGSL kernels called synchronously through a worker", { skip }, () => {
    it("updates and perturbs in place of the WebAssembly kernels, the same bytes as JS", async () => {
        const sync = new GpuUpdateKernels();
        try {
            assert.match(sync.description, /^webgpu \(llvmpipe.*\(software\)\)$/);
            const layout = layoutWith([77, 4097, 5]);
            const w0 = weightsFor("gpu-sync", layout.size);
            const dev = w0.slice();
            const js = w0.slice();
            for (let u = 0; u < 5; u++) {
                const steps = stepsFor(`gpu-sync/${u}`, 30);
                for (const plans of planPasses(steps, 30, 1e-2)) {
                    sync.apply(dev, layout, plans);
                    applyUpdateJs(js, layout, plans);
                }
            }
            assert.ok(bytesOf(js).equals(bytesOf(dev)), "update");
            assert.ok(!bytesOf(js).equals(bytesOf(w0)), "the updates moved the weights");
            const out = new Float32Array(layout.size);
            const ref = new Float32Array(layout.size);
            const seed = seedFrom("test/gpu-sync", []);
            sync.perturb(out, js, layout, seed, 1e-3, -1);
            perturbJs(ref, js, layout, seed, 1e-3, -1);
            assert.ok(bytesOf(ref).equals(bytesOf(out)), "perturbation");
            // Outside the kernels' exact range the JS reference runs instead: still the same bytes.
            const tiny = planUpdate(stepsFor("gpu-sync/tiny", 4), 4, 1e-30);
            sync.apply(dev, layout, tiny);
            applyUpdateJs(js, layout, tiny);
            assert.ok(bytesOf(js).equals(bytesOf(dev)), "out-of-range plan");
        }
        finally {
            await sync.close();
        }
    });
});
//# sourceMappingURL=spsa-gpu.test.js.map