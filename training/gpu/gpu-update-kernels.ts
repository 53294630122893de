/**
 * UpdateKernels whose canonical update runs on the WebGPU device, callable synchronously like the
 * WebAssembly kernels: the WGSL kernels run in a worker thread (update-worker.ts) while this thread waits on a shared
 * flag. The weights go to the device and back once per call (a copy each way): they do not yet
 * stay on the device between iterations.
 */
import { Worker } from "node:worker_threads";
import { sharedKernels } from "../algorithms/spsa-kernels.js";
import { applyUpdateJs, type ClassPlan, perturbJs, perturbTensorJs } from "../algorithms/spsa-update.js";
import type { UpdateKernels } from "../algorithms/update-kernels.js";
import type { ParamLayout, TensorLayout } from "../params.js";
import type { Seed } from "../rng/seeds.js";
import { inKernelRange } from "./spsa-gpu.js";
import type { UpdateRequest } from "./update-worker.js";
import { callWorker } from "../worker-call.js";
import { GpuError } from "./webgpu.js";

/** Longest wait for one call: opening a device, or one update of a large model on a software driver. */
const CALL_TIMEOUT_MS = 300_000;

type Request = UpdateRequest extends infer R ? (R extends unknown ? Omit<R, "control" | "data"> : never) : never;

export class GpuUpdateKernels implements UpdateKernels {
  readonly description: string;
  private readonly worker: Worker;
  private readonly control = new SharedArrayBuffer(4096);
  private data = new SharedArrayBuffer(4);

  /** Starts the worker and opens the device. @throws GpuError GPU_UNAVAILABLE, GPU_FAILED */
  constructor() {
    this.worker = new Worker(new URL("./update-worker.js", import.meta.url));
    // The worker must not keep the process alive once the node is done.
    this.worker.unref();
    const adapter = this.call({ op: "open" }, "GPU_UNAVAILABLE");
    this.description = `webgpu (${adapter})`;
  }

  private call(req: Request, failure: "GPU_UNAVAILABLE" | "GPU_FAILED" = "GPU_FAILED"): string {
    const r = callWorker(this.worker, this.control, { ...req, data: this.data }, CALL_TIMEOUT_MS);
    if (!r) throw new GpuError("GPU_FAILED", `the GPU update worker did not answer ${req.op} within ${CALL_TIMEOUT_MS} ms`, { op: req.op });
    if (!r.ok) throw new GpuError(failure, `GPU ${req.op} failed: ${r.text}`, { op: req.op });
    return r.text;
  }

  private stage(weights: Float32Array, floats: number): Float32Array {
    if (this.data.byteLength < 4 * floats) this.data = new SharedArrayBuffer(4 * floats);
    const data = new Float32Array(this.data);
    data.set(weights);
    return data;
  }

  private static tensors(layout: ParamLayout) {
    return layout.tensors.map((t) => ({ offset: t.offset, size: t.size }));
  }

  /** Plans and eps outside the WGSL kernels' exact range (spsa-wgsl.ts) run in the JS reference. */
  apply(weights: Float32Array, layout: ParamLayout, plans: readonly ClassPlan[]): void {
    if (!plans.every((p) => inKernelRange(p.coef))) return applyUpdateJs(weights, layout, plans);
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
  perturb(out: Float32Array, weights: Float32Array, layout: ParamLayout, seed: Seed, eps: number, sign: 1 | -1): void {
    const host = sharedKernels();
    if (host) host.perturb(out, weights, layout, seed, eps, sign);
    else perturbJs(out, weights, layout, seed, eps, sign);
  }

  perturbTensor(out: Float32Array, outBase: number, weights: Float32Array, t: TensorLayout, ti: number, seed: Seed, eps: number, sign: 1 | -1): void {
    const host = sharedKernels();
    if (host) host.perturbTensor(out, outBase, weights, t, ti, seed, eps, sign);
    else perturbTensorJs(out, weights, t, ti, seed, eps, sign, outBase);
  }

  /** Stops the worker (its device goes with it). */
  close(): Promise<number> {
    return this.worker.terminate();
  }
}
