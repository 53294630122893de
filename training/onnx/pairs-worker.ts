/**
 * Worker thread of OnnxLmPairs (lm-pairs.ts): owns the onnxruntime session of the perturbed
 * graph and runs it for the main thread, which waits on `control` (Atomics) meanwhile: SPSA's
 * contribute is synchronous, onnxruntime-node's run is not. The weights come with a request when
 * they change, as a transferred ArrayBuffer (moved, not copied: onnxruntime-node refuses to run
 * on views of a SharedArrayBuffer, "Invalid argument"; a buffer, not a Float32Array, because a
 * transferred view over 4 GiB arrives with its length wrapped); the session's inputs view it.
 */
import { parentPort } from "node:worker_threads";
import type { LowRankPerturbation } from "../algorithms/lowrank.js";
import type { TransformerConfig } from "../hf/config.js";
import { DONE, FAILED, reply } from "../worker-call.js";
import { OnnxTransformer } from "./forward.js";

/** What the main thread sends; the losses come back in `out` (float64, one per perturbation). */
export type OnnxPairsRequest = { control: SharedArrayBuffer } & (
  | { op: "open"; config: TransformerConfig; weights: ArrayBuffer; rank: number; threads: number }
  | {
      op: "losses";
      /** The weights (float32) when they changed since the last call, else null. */
      weights: ArrayBuffer | null;
      ids: Int32Array;
      mask: Uint8Array;
      size: number;
      length: number;
      perts: LowRankPerturbation[];
      eps: number;
      out: SharedArrayBuffer;
    }
);

let model: OnnxTransformer | undefined;

async function handle(req: OnnxPairsRequest): Promise<string> {
  if (req.op === "open") {
    model = await OnnxTransformer.create(req.config, new Float32Array(req.weights), { threads: req.threads, perturbation: { rank: req.rank } });
    return `graph ${(model.build.modelBytes / 1024).toFixed(0)} KiB, built in ${Math.round(model.build.graphMs + model.build.sessionMs)} ms`;
  }
  if (!model) throw new Error("the onnxruntime worker was not opened");
  if (req.weights) model.setWeights(new Float32Array(req.weights));
  const losses = await model.perturbedLosses({ size: req.size, length: req.length, ids: req.ids, mask: req.mask }, req.perts, req.eps);
  new Float64Array(req.out).set(losses);
  return "";
}

parentPort?.on("message", (req: OnnxPairsRequest) => {
  handle(req).then(
    (text) => reply(req.control, DONE, text),
    (err: Error) => reply(req.control, FAILED, `${(err as { code?: string }).code ?? err.name}: ${err.message}`),
  );
});
