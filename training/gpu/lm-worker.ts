/**
 * Worker thread of GpuLmPairs (lm-pairs.ts): owns the WebGPU device and the language-model pass
 * (lm-forward.ts) and runs it for the main thread, which waits on `control` (Atomics) meanwhile,
 * as update-worker.ts does for the canonical update: SPSA's contribute is synchronous, reading a
 * GPU buffer back is not.
 */
import { parentPort } from "node:worker_threads";
import type { TransformerConfig } from "../hf/config.js";
import type { ParamLayout } from "../params.js";
import type { LowRankPerturbation } from "../algorithms/lowrank.js";
import { GpuLmForward } from "./lm-forward.js";
import { openWebGpu } from "./webgpu.js";
import { DONE, FAILED, reply } from "../worker-call.js";

/** What the main thread sends; the weights (float32) are in `data`, the losses come back there. */
export type LmRequest = { control: SharedArrayBuffer; data: SharedArrayBuffer } & (
  | { op: "open"; config: TransformerConfig; layout: ParamLayout; rank: number }
  | { op: "losses"; upload: boolean; ids: Int32Array; mask: Uint8Array; size: number; length: number; perts: LowRankPerturbation[]; eps: number }
);

let lm: GpuLmForward | undefined;
let tuned = false;

async function handle(req: LmRequest): Promise<string> {
  if (req.op === "open") {
    const gpu = await openWebGpu();
    lm = new GpuLmForward(gpu, req.config, req.layout, req.rank);
    return `${gpu.adapterName}${gpu.software ? " (software)" : ""}`;
  }
  if (!lm) throw new Error("the GPU language-model worker was not opened");
  const data = new Float32Array(req.data);
  if (req.upload) lm.upload(data.subarray(0, lm.layout.size));
  const batch = { size: req.size, length: req.length, ids: req.ids, mask: req.mask };
  let { loss } = await lm.losses(batch, req.perts, req.eps);
  if (!tuned && !lm.gpu.software) {
    // The first pass on a GPU also times the product tilings for this batch shape.
    tuned = true;
    await lm.tune();
    ({ loss } = await lm.losses(batch, req.perts, req.eps));
  }
  data.set(loss);
  return "";
}

parentPort?.on("message", (req: LmRequest) => {
  handle(req).then(
    (text) => reply(req.control, DONE, text),
    (err: Error) => reply(req.control, FAILED, `${(err as { code?: string }).code ?? err.name}: ${err.message}`),
  );
});
