/**
 * SPSA's low-rank pair losses of a causal language model measured on a WebGPU device: every pair
 * of an iteration (minibatch j drawn from seed j, as causal-lm.ts draws it, at +eps and -eps along
 * seed j's direction) in ONE pass of lm-forward.ts, run by a worker thread (lm-worker.ts) while
 * this thread waits, because SPSA's contribute is synchronous. Chosen with
 * `--lm-forward webgpu` (language-run.ts); the bytes it yields may differ from a host
 * pass's in the last code where a loss difference sits on a rounding edge, which audits tolerate.
 *
 * The weights go to the device when the replica's state key changes (after each applied
 * iteration), not on every call: a node's own contribution and its audits share one upload.
 */
import { Worker } from "node:worker_threads";
import type { PairLosses } from "../algorithms/pair-batch.js";
import type { LanguageModel } from "../models/transformer.js";
import type { Seed } from "../rng/seeds.js";
import { pairBatch } from "../tasks/causal-lm.js";
import type { LmRequest } from "./lm-worker.js";
import { GpuError } from "./webgpu.js";
import { callWorker } from "../worker-call.js";

/** Longest wait for one call: opening the device, or a pass of a large model on a software driver. */
const CALL_TIMEOUT_MS = 600_000;

type Request = LmRequest extends infer R ? (R extends unknown ? Omit<R, "control" | "data"> : never) : never;

export class GpuLmPairs {
  /** The adapter, as the node logs it. */
  readonly description: string;
  private readonly worker: Worker;
  private readonly control = new SharedArrayBuffer(4096);
  private readonly data: SharedArrayBuffer;
  private died: Error | undefined;
  /** The state key of the weights on the device (undefined: none known). */
  private uploaded: string | undefined;

  /** Starts the worker and opens the device. @throws GpuError GPU_UNAVAILABLE, GPU_OUT_OF_RANGE */
  constructor(
    private readonly model: LanguageModel,
    private readonly sequences: readonly (readonly number[])[],
    private readonly rank: number,
  ) {
    this.data = new SharedArrayBuffer(4 * model.layout.size);
    this.worker = new Worker(new URL("./lm-worker.js", import.meta.url));
    this.worker.unref();
    // A worker that dies outside a request (its modules failed to load, say) answers nothing more:
    // kept, so that the next call fails at once with the cause instead of waiting out its timeout.
    this.worker.on("error", (err: Error) => (this.died = err));
    const layout = { tensors: model.layout.tensors, size: model.layout.size };
    this.description = `webgpu (${this.call({ op: "open", config: model.config, layout, rank }, "GPU_UNAVAILABLE")})`;
  }

  private call(req: Request, failure: "GPU_UNAVAILABLE" | "GPU_FAILED" = "GPU_FAILED"): string {
    if (this.died) throw new GpuError("GPU_FAILED", `the GPU language-model worker died: ${this.died.message}`, { op: req.op });
    const r = callWorker(this.worker, this.control, { ...req, data: this.data }, CALL_TIMEOUT_MS);
    if (!r) throw new GpuError("GPU_FAILED", `the GPU language-model worker did not answer ${req.op} within ${CALL_TIMEOUT_MS} ms`, { op: req.op });
    if (!r.ok) throw new GpuError(r.text.startsWith("GPU_OUT_OF_RANGE") ? "GPU_OUT_OF_RANGE" : failure, `GPU ${req.op} failed: ${r.text}`, { op: req.op });
    return r.text;
  }

  /** The mean losses of the k = seeds.length pairs, minibatch j drawn from seed j (causal-lm.ts's draw). */
  losses(weights: Float32Array, seeds: readonly Seed[], size: number, eps: number, rank: number, stateKey?: string): PairLosses {
    if (rank !== this.rank) throw new GpuError("GPU_OUT_OF_RANGE", `the device pass was opened for rank ${this.rank}, asked for ${rank}`, { rank });
    const k = seeds.length;
    const { batch, perturbations: perts } = pairBatch(this.sequences, seeds, size);
    const upload = stateKey === undefined || stateKey !== this.uploaded;
    if (upload) new Float32Array(this.data).set(weights);
    // Forgotten until the worker answers: a failed call must not leave a key for weights it never took.
    this.uploaded = undefined;
    this.call({ op: "losses", upload, ids: batch.ids, mask: batch.mask, size: batch.size, length: batch.length, perts, eps });
    this.uploaded = stateKey;
    const out = new Float32Array(this.data, 0, 2 * k);
    return { plus: Array.from({ length: k }, (_, j) => out[2 * j]), minus: Array.from({ length: k }, (_, j) => out[2 * j + 1]) };
  }

  /** Stops the worker (its device goes with it). */
  close(): Promise<number> {
    return this.worker.terminate();
  }
}
