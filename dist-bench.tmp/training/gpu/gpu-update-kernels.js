/**
 * UpdateKernels whose canonical update runs on the WebGPU device, callable synchronously like the
 * WebAssembly kernels: the WGSL kernels run in a worker thread (update-worker.ts) while this thread waits on a shared
 * flag. The weights go to the device and back once per call (a copy each way): they do not yet
 * stay on the device between iterations.
 */
import { Worker } from "node:worker_threads";
import { sharedKernels } from "../algorithms/spsa-kernels.js";
import { applyUpdateJs, perturbJs, perturbTensorJs } from "../algorithms/spsa-update.js";
import { inKernelRange } from "./spsa-gpu.js";
import { DONE, PENDING } from "./update-worker.js";
import { GpuError } from "./webgpu.js";
/** Longest wait for one call: opening a device, or one update of a large model on a software driver. */
const CALL_TIMEOUT_MS = 300_000;
export class GpuUpdateKernels {
    description;
    worker;
    control = new SharedArrayBuffer(4096);
    data = new SharedArrayBuffer(4);
    /** Starts the worker and opens the device. @throws GpuError GPU_UNAVAILABLE, GPU_FAILED */
    constructor() {
        this.worker = new Worker(new URL("./update-worker.js", import.meta.url));
        // The worker must not keep the process alive once the node is done.
        this.worker.unref();
        const adapter = this.call({ op: "open" }, "GPU_UNAVAILABLE");
        this.description = `webgpu (${adapter})`;
    }
    call(req, failure = "GPU_FAILED") {
        const head = new Int32Array(this.control, 0, 2);
        Atomics.store(head, 0, PENDING);
        this.worker.postMessage({ ...req, control: this.control, data: this.data });
        if (Atomics.wait(head, 0, PENDING, CALL_TIMEOUT_MS) === "timed-out")
            throw new GpuError("GPU_FAILED", `the GPU update worker did not answer ${req.op} within ${CALL_TIMEOUT_MS} ms`, { op: req.op });
        const text = new TextDecoder().decode(new Uint8Array(this.control, 8, head[1]).slice());
        if (Atomics.load(head, 0) !== DONE)
            throw new GpuError(failure, `GPU ${req.op} failed: ${text}`, { op: req.op });
        return text;
    }
    stage(weights, floats) {
        if (this.data.byteLength < 4 * floats)
            this.data = new SharedArrayBuffer(4 * floats);
        const data = new Float32Array(this.data);
        data.set(weights);
        return data;
    }
    static tensors(layout) {
        return layout.tensors.map((t) => ({ offset: t.offset, size: t.size }));
    }
    /** Plans and eps outside the WGSL kernels' exact range (spsa-wgsl.ts) run in the JS reference. */
    apply(weights, layout, plans) {
        if (!plans.every((p) => inKernelRange(p.coef)))
            return applyUpdateJs(weights, layout, plans);
        const data = this.stage(weights, weights.length);
        this.call({ op: "apply", tensors: GpuUpdateKernels.tensors(layout), size: weights.length, plans: [...plans] });
        weights.set(data.subarray(0, weights.length));
    }
    /**
     * The perturbation a host-side forward pass reads: made on the host (WebAssembly, or the JS
     * reference), since a round trip to the device per perturbation costs more than it saves while
     * forward passes run on the host. The bytes are the same either way (GpuSpsa.perturb is tested
     * against perturbJs); device noise pays once forward passes run on the device.
     */
    perturb(out, weights, layout, seed, eps, sign) {
        const host = sharedKernels();
        if (host)
            host.perturb(out, weights, layout, seed, eps, sign);
        else
            perturbJs(out, weights, layout, seed, eps, sign);
    }
    perturbTensor(out, outBase, weights, t, ti, seed, eps, sign) {
        const host = sharedKernels();
        if (host)
            host.perturbTensor(out, outBase, weights, t, ti, seed, eps, sign);
        else
            perturbTensorJs(out, weights, t, ti, seed, eps, sign, outBase);
    }
    /** Stops the worker (its device goes with it). */
    close() {
        return this.worker.terminate();
    }
}
//# sourceMappingURL=gpu-update-kernels.js.map