/**
 * Worker thread of GpuUpdateKernels (gpu-update-kernels.ts): owns the WebGPU device and runs the
 * WGSL update for the main thread, which waits on `control` (Atomics) meanwhile.
 * A worker, because reading a GPU buffer back is asynchronous (mapAsync) and the algorithms'
 * apply and contribute are synchronous: the main thread blocks, this thread's event loop runs.
 */
import { parentPort } from "node:worker_threads";
import type { ClassPlan } from "../algorithms/spsa-update.js";
import type { ParamLayout } from "../params.js";
import { GpuSpsa } from "./spsa-gpu.js";
import { openWebGpu } from "./webgpu.js";
import { DONE, FAILED, reply } from "../worker-call.js";

/** What the main thread sends; weights are in `data` (float32), results go back there. */
export type UpdateRequest = { control: SharedArrayBuffer; data: SharedArrayBuffer } & (
  | { op: "open" }
  | { op: "apply"; tensors: { offset: number; size: number }[]; size: number; plans: ClassPlan[] }
);

let kernels: GpuSpsa | undefined;

async function handle(req: UpdateRequest): Promise<string> {
  if (req.op === "open") {
    kernels = new GpuSpsa(await openWebGpu());
    return `${kernels.gpu.adapterName}${kernels.gpu.software ? " (software)" : ""}`;
  }
  if (!kernels) throw new Error("the GPU update worker was not opened");
  const layout = { tensors: req.tensors, size: req.size } as unknown as ParamLayout;
  const data = new Float32Array(req.data);
  const weights = kernels.weights(data.subarray(0, req.size));
  kernels.apply(weights, layout, req.plans);
  data.set(await kernels.read(weights, req.size));
  weights.destroy();
  return "";
}

parentPort?.on("message", (req: UpdateRequest) => {
  handle(req).then(
    (text) => reply(req.control, DONE, text),
    (err: Error) => reply(req.control, FAILED, `${(err as { code?: string }).code ?? err.name}: ${err.message}`),
  );
});
