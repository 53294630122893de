/**
 * The onnxruntime InferenceSession of a transformer graph on the CPU provider (it ships inside
 * the onnxruntime-node package; nothing is downloaded).
 */
import * as ort from "onnxruntime-node";
import { OnnxSessionError } from "./errors.js";

export { OnnxSessionError };

export interface SessionOptions {
  /** Threads of onnxruntime's intra-op pool: the cores a forward may use. */
  readonly threads: number;
}

/** One core: what a node has when it shares the machine with its networking and other nodes. */
export const defaultSessionOptions: SessionOptions = { threads: 1 };

/** A session over serialized model bytes. */
export async function openSession(model: Uint8Array, options: SessionOptions): Promise<ort.InferenceSession> {
  if (!(Number.isInteger(options.threads) && options.threads >= 1)) {
    throw new OnnxSessionError("ONNX_SESSION_FAILED", `threads must be an integer >= 1, got ${options.threads}`, { threads: options.threads });
  }
  try {
    return await ort.InferenceSession.create(model, {
      executionProviders: ["cpu"],
      intraOpNumThreads: options.threads,
      // The graph is one chain of ops: a second pool would only compete for the same cores.
      interOpNumThreads: 1,
      executionMode: "sequential",
      // No arena: it kept its peak chunks, and the perturbed pass's [perturbations, rows, vocab]
      // intermediates held 1.9 GiB of RSS with it against 0.72 without (GPT-2 small, 16 x 64),
      // and was no slower in alternating runs; the plain pass's RSS did not change.
      enableCpuMemArena: false,
      graphOptimizationLevel: "all",
      // Warnings only: onnxruntime logs every unused initializer and fusion at info level.
      logSeverityLevel: 3,
      // Idle pool threads sleep rather than spin: a node shares its cores with networking (and
      // here with other processes); spinning made 2 threads slower than 1 on a loaded 2-core machine.
      extra: { session: { intra_op: { allow_spinning: "0" } } },
    });
  } catch (err) {
    throw new OnnxSessionError("ONNX_SESSION_FAILED", `onnxruntime refused the graph: ${(err as Error).message}`, {
      bytes: model.byteLength,
      threads: options.threads,
    });
  }
}

/** A float32 or int64 tensor over an existing array (onnxruntime-node reads it in place). */
export function floatTensor(values: Float32Array, dims: readonly number[]): ort.Tensor {
  return new ort.Tensor("float32", values, dims);
}

export function int64Tensor(values: readonly number[] | Int32Array, dims: readonly number[]): ort.Tensor {
  return new ort.Tensor("int64", BigInt64Array.from(values, (v) => BigInt(v)), dims);
}

export type { InferenceSession, Tensor } from "onnxruntime-node";
