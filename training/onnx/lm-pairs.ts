/**
 * SPSA's low-rank pair losses of a causal language model on onnxruntime's CPU provider: every
 * pair of a contribution (seed j's minibatch at +eps and -eps along seed j's direction,
 * tasks/causal-lm.ts `pairBatch`) in ONE session call of the perturbed graph, on `threads` cores,
 * run by a worker thread (pairs-worker.ts) while this thread waits, because SPSA's contribute is
 * synchronous. The bytes it yields may differ from tfjs's in the last code where a loss
 * difference sits on a rounding edge, which audits tolerate (as the WebGPU pass's do).
 *
 * The weights are copied to the worker when the replica's state key changes (after each applied
 * iteration), not on every call: a node's contribution and its audits of the same state share one
 * copy, which the worker holds (so the node holds the canonical weights and this one copy).
 */
import { Worker } from "node:worker_threads";
import type { PairLosses, PairLossSource } from "../algorithms/pair-batch.js";
import type { LanguageModel } from "../models/transformer.js";
import type { Seed } from "../rng/seeds.js";
import { pairBatch } from "../tasks/causal-lm.js";
import { callWorker } from "../worker-call.js";
import { OnnxGraphError } from "./graph.js";
import type { OnnxPairsRequest } from "./pairs-worker.js";
import { OnnxSessionError } from "./errors.js";

/** Longest wait for one call: building the session of a large model, or one pass of it on one core. */
const CALL_TIMEOUT_MS = 900_000;

type Request = OnnxPairsRequest extends infer R ? (R extends unknown ? Omit<R, "control"> : never) : never;

export class OnnxLmPairs implements PairLossSource {
  /** The engine, as the node logs it. */
  readonly description: string;
  private readonly worker: Worker;
  private readonly control = new SharedArrayBuffer(4096);
  private out = new SharedArrayBuffer(0);
  private died: Error | undefined;
  /** The state key of the weights the worker holds (undefined: none known). */
  private copied: string | undefined;

  /** Starts the worker and builds the session. @throws OnnxSessionError ONNX_SESSION_FAILED, OnnxGraphError */
  constructor(
    model: LanguageModel,
    private readonly sequences: readonly (readonly number[])[],
    private readonly rank: number,
    readonly threads: number,
  ) {
    this.worker = new Worker(new URL("./pairs-worker.js", import.meta.url));
    this.worker.unref();
    // A worker that dies outside a request (its modules failed to load, say) answers nothing more:
    // kept, so that the next call fails at once with the cause instead of waiting out its timeout.
    this.worker.on("error", (err: Error) => (this.died = err));
    // Zeros until the first call brings the weights (the graph takes them as inputs); moved, not
    // cloned (structured clone refuses buffers of a 355M model) and untouched, so no RSS yet.
    const zeros = new Float32Array(model.layout.size);
    const built = this.call({ op: "open", config: model.config, weights: zeros.buffer, rank, threads }, "open", [zeros.buffer]);
    this.description = `onnxruntime cpu (${threads} thread${threads === 1 ? "" : "s"}, rank ${rank}; ${built})`;
  }

  private call(req: Request, what: "open" | "losses", transfer: ArrayBuffer[] = []): string {
    const fail = (message: string): never => {
      if (what === "open") throw new OnnxSessionError("ONNX_SESSION_FAILED", message, { threads: this.threads, rank: this.rank });
      throw new OnnxSessionError("ONNX_RUN_FAILED", message, { threads: this.threads, rank: this.rank });
    };
    if (this.died) fail(`the onnxruntime worker died: ${this.died.message}`);
    const r = callWorker(this.worker, this.control, req, CALL_TIMEOUT_MS, transfer);
    if (!r) return fail(`the onnxruntime worker did not answer ${what} within ${CALL_TIMEOUT_MS} ms`);
    if (!r.ok) {
      if (r.text.startsWith("ONNX_UNSUPPORTED") || r.text.startsWith("ONNX_WEIGHTS")) throw new OnnxGraphError("ONNX_UNSUPPORTED", r.text, { what });
      fail(`onnxruntime ${what} failed: ${r.text}`);
    }
    return r.text;
  }

  /** The mean losses of the k = seeds.length pairs, minibatch j drawn from seed j (causal-lm.ts's draw). */
  losses(weights: Float32Array, seeds: readonly Seed[], size: number, eps: number, rank: number, stateKey?: string): PairLosses {
    if (rank !== this.rank) throw new OnnxGraphError("ONNX_UNSUPPORTED", `the session was built for rank ${this.rank}, asked for ${rank}`, { rank });
    const k = seeds.length;
    const { batch, perturbations } = pairBatch(this.sequences, seeds, size);
    const fresh = stateKey === undefined || stateKey !== this.copied ? (weights.slice().buffer as ArrayBuffer) : null;
    // Forgotten until the worker answers: a failed call must not leave a key for weights it never took.
    this.copied = undefined;
    if (this.out.byteLength < 16 * k) this.out = new SharedArrayBuffer(16 * k);
    const req = { op: "losses", weights: fresh, ids: batch.ids, mask: batch.mask, size: batch.size, length: batch.length, perts: perturbations, eps, out: this.out } as const;
    this.call(req, "losses", fresh ? [fresh] : []);
    this.copied = stateKey;
    const out = new Float64Array(this.out, 0, 2 * k);
    return { plus: Array.from({ length: k }, (_, j) => out[2 * j]), minus: Array.from({ length: k }, (_, j) => out[2 * j + 1]) };
  }

  /** Stops the worker (its session goes with it). */
  close(): Promise<number> {
    return this.worker.terminate();
  }
}
