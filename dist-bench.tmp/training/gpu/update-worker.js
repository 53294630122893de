/**
 * Worker thread of GpuUpdateKernels (gpu-update-kernels.ts): owns the WebGPU device and runs the
 * WGSL update for the main thread, which waits on `control` (Atomics) meanwhile.
 * A worker, because reading a GPU buffer back is asynchronous (mapAsync) and the algorithms'
 * apply and contribute are synchronous: the main thread blocks, this thread's event loop runs.
 */
import { parentPort } from "node:worker_threads";
import { GpuSpsa } from "./spsa-gpu.js";
import { openWebGpu } from "./webgpu.js";
/** control (Int32Array): [0] state, [1] reply length; bytes from 8: the reply (UTF-8). */
export const PENDING = 0;
export const DONE = 1;
export const FAILED = 2;
let kernels;
function reply(control, state, text) {
    const head = new Int32Array(control, 0, 2);
    const body = new TextEncoder().encode(text).subarray(0, control.byteLength - 8);
    new Uint8Array(control, 8).set(body);
    head[1] = body.length;
    Atomics.store(head, 0, state);
    Atomics.notify(head, 0);
}
async function handle(req) {
    if (req.op === "open") {
        kernels = new GpuSpsa(await openWebGpu());
        return `${kernels.gpu.adapterName}${kernels.gpu.software ? " (software)" : ""}`;
    }
    if (!kernels)
        throw new Error("the GPU update worker was not opened");
    const layout = { tensors: req.tensors, size: req.size };
    const data = new Float32Array(req.data);
    const weights = kernels.weights(data.subarray(0, req.size));
    kernels.apply(weights, layout, req.plans);
    data.set(await kernels.read(weights, req.size));
    weights.destroy();
    return "";
}
parentPort?.on("message", (req) => {
    handle(req).then((text) => reply(req.control, DONE, text), (err) => reply(req.control, FAILED, `${err.code ?? err.name}: ${err.message}`));
});
//# sourceMappingURL=update-worker.js.map