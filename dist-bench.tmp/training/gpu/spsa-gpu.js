import { MAX_STEPS } from "../algorithms/spsa-update.js";
import { Purpose, streamOf } from "../rng/seeds.js";
import { GRID_X, PERTURB_WGSL, UPDATE_WGSL, WORKGROUP } from "./spsa-wgsl.js";
import { GpuError } from "./webgpu.js";
/** Float32 exponent fields of 2^-60 and 2^60: the range where the kernels are exact (spsa-wgsl.ts). */
const MIN_EXP = 127 - 60;
const MAX_EXP = 127 + 60;
const f32Bits = (x) => new Uint32Array(Float32Array.of(x).buffer)[0];
/** The checks of spsa-wgsl.ts's preconditions, for callers that fall back to JS. */
export function inKernelRange(x) {
    const e = (f32Bits(x) >>> 23) & 0xff;
    return e >= MIN_EXP && e <= MAX_EXP;
}
/** A layout's tensor table (offset, size, noise stream word, first sign word) and its word count. */
function tensorTable(layout) {
    const table = new Uint32Array(4 * layout.tensors.length);
    let words = 0;
    for (const [ti, t] of layout.tensors.entries()) {
        table.set([t.offset, t.size, streamOf({ k0: 0, k1: 0, k2: 0 }, Purpose.Noise, ti).c2, words], 4 * ti);
        words += Math.ceil(t.size / 32);
    }
    return { table, words };
}
export class GpuSpsa {
    gpu;
    device;
    update;
    perturbation;
    tables = new WeakMap();
    constructor(gpu) {
        this.gpu = gpu;
        this.device = gpu.device;
        const pipeline = (code) => this.device.createComputePipeline({ layout: "auto", compute: { module: this.device.createShaderModule({ code }), entryPoint: "main" } });
        this.update = pipeline(UPDATE_WGSL);
        this.perturbation = pipeline(PERTURB_WGSL);
    }
    upload(data, usage) {
        const size = Math.max(16, Math.ceil(data.byteLength / 16) * 16);
        const buffer = this.device.createBuffer({ size, usage, mappedAtCreation: true });
        new Uint8Array(buffer.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        buffer.unmap();
        return buffer;
    }
    table(layout) {
        let t = this.tables.get(layout);
        if (!t) {
            const { table, words } = tensorTable(layout);
            t = { buffer: this.upload(table, GPUBufferUsage.STORAGE), words, tensors: layout.tensors.length };
            this.tables.set(layout, t);
        }
        return t;
    }
    /** A device buffer holding `weights` (readable back with read()). */
    weights(weights) {
        return this.upload(weights, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST);
    }
    /** Copies the first `floats` floats of a device buffer back to the host. */
    async read(buffer, floats) {
        const staging = this.device.createBuffer({ size: 4 * floats, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
        const enc = this.device.createCommandEncoder();
        enc.copyBufferToBuffer(buffer, 0, staging, 0, 4 * floats);
        this.device.queue.submit([enc.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        const out = new Float32Array(staging.getMappedRange().slice(0));
        staging.unmap();
        staging.destroy();
        return out;
    }
    dispatch(pipeline, buffers, words) {
        const groups = Math.ceil(words / WORKGROUP);
        const bind = this.device.createBindGroup({
            layout: pipeline.getBindGroupLayout(0),
            entries: buffers.map((buffer, i) => ({ binding: i, resource: { buffer } })),
        });
        const enc = this.device.createCommandEncoder();
        const pass = enc.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, bind);
        pass.dispatchWorkgroups(Math.min(groups, GRID_X), Math.ceil(groups / GRID_X));
        pass.end();
        this.device.queue.submit([enc.finish()]);
    }
    /**
     * Enqueues the canonical update of `plans` (planUpdate) on the weights in `buffer`.
     * @throws GpuError GPU_OUT_OF_RANGE when a class constant is outside [2^-60, 2^60] in magnitude
     *   (the kernel's exactness range; the caller applies that plan in JS or wasm instead).
     */
    apply(buffer, layout, plans) {
        const nSteps = plans.reduce((s, p) => s + p.steps.length, 0);
        if (nSteps === 0)
            return;
        if (nSteps > MAX_STEPS)
            throw new RangeError(`${nSteps} steps in one pass, at most ${MAX_STEPS}`);
        const steps = new Uint32Array(4 * nSteps);
        const classes = new Uint32Array(4 * plans.length);
        let q = 0;
        for (const [c, p] of plans.entries()) {
            if (!inKernelRange(p.coef))
                throw new GpuError("GPU_OUT_OF_RANGE", `class constant ${p.coef} is outside the GPU kernel's exact range 2^-60..2^60`, { coef: p.coef, r: p.r });
            let sum = 0;
            for (const s of p.steps) {
                steps.set([s.seed.k0, s.seed.k1, s.seed.k2, (2 * s.v) >>> 0], 4 * q++);
                sum += s.v;
            }
            const bits = f32Bits(p.coef);
            const exp = (bits >>> 23) & 0xff;
            // C_r = (1.mantissa as a 24-bit integer) * 2^(exp - 150).
            classes.set([p.steps.length, -sum >>> 0, (bits & 0x80000000) | (bits & 0x7fffff) | 0x800000, (exp - 150) >>> 0], 4 * c);
        }
        const t = this.table(layout);
        const groups = Math.ceil(t.words / WORKGROUP);
        const params = this.upload(Uint32Array.of(t.tensors, plans.length, t.words, Math.min(groups, GRID_X)), GPUBufferUsage.UNIFORM);
        const stepBuf = this.upload(steps, GPUBufferUsage.STORAGE);
        const classBuf = this.upload(classes, GPUBufferUsage.STORAGE);
        this.dispatch(this.update, [buffer, t.buffer, stepBuf, classBuf, params], t.words);
        for (const b of [params, stepBuf, classBuf])
            b.destroy();
    }
    /**
     * Enqueues out = weights + sign * eps * z for the seed's direction z (every tensor of `layout`).
     * @throws GpuError GPU_OUT_OF_RANGE when |eps| is outside [2^-60, 2^60].
     */
    perturb(out, weights, layout, seed, eps, sign) {
        const e = Math.fround(sign * eps);
        if (!inKernelRange(e))
            throw new GpuError("GPU_OUT_OF_RANGE", `eps ${eps} is outside the GPU kernel's exact range 2^-60..2^60`, { eps });
        const t = this.table(layout);
        const groups = Math.ceil(t.words / WORKGROUP);
        const p = new Uint32Array([t.tensors, t.words, Math.min(groups, GRID_X), f32Bits(e), seed.k0, seed.k1, seed.k2, 0]);
        const params = this.upload(p, GPUBufferUsage.UNIFORM);
        this.dispatch(this.perturbation, [out, t.buffer, weights, params], t.words);
        params.destroy();
    }
}
//# sourceMappingURL=spsa-gpu.js.map