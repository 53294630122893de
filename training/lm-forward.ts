/**
 * Which engine measures a transformer run's SPSA pairs on this node: node-local like the tensor
 * backend (it changes how an author measures, never the run's maths, so it is not in the RunSpec
 * and never in the runId). Auditors on any engine accept the bytes of any other (within one code
 * where a loss difference sits on a rounding edge); the canonical update is plain JS either way.
 */
import { getBackend } from "@tensorflow/tfjs-core";
import { SeedswarmError } from "../protocol/errors.js";
import type { RunSpec } from "../protocol/run-spec.js";
import type { PairLossSource } from "./algorithms/pair-batch.js";
import type { LmForwardOptions } from "./backends.js";
import { GpuLmPairs } from "./gpu/lm-pairs.js";
import type { LanguageModel } from "./models/transformer.js";
// Not the face (onnx/index.ts): that loads onnxruntime, which only the engine's worker needs.
import { OnnxLmPairs } from "./onnx/lm-pairs.js";

export class LmForwardError extends SeedswarmError<"LM_FORWARD_UNSUPPORTED"> {}

/** The engine chosen, and why (for the node's log). */
export interface LmForward {
  /** null: tfjs on the tensor backend, through the algorithm's own passes. */
  readonly pairs: PairLossSource | null;
  readonly description: string;
  readonly reason: string;
}

/**
 * Opens the engine `options` asks for, for a run whose training windows are `sequences` (null:
 * not a causal-lm task). A named engine that cannot serve the run is an error naming why; `auto`
 * falls back to tfjs and says why in `reason`.
 * @throws LmForwardError LM_FORWARD_UNSUPPORTED
 */
export function openLmForward(spec: RunSpec, sequences: number[][] | null, model: LanguageModel, options: LmForwardOptions): LmForward {
  const cfg = spec.algorithm;
  const tfjs = (reason: string): LmForward => ({ pairs: null, description: `tfjs (${getBackend()})`, reason });
  const unsupported =
    cfg.kind !== "spsa"
      ? `the ${cfg.kind} algorithm measures with its own passes`
      : cfg.perturbation?.kind !== "lowrank"
        ? "it measures low-rank directions: the run's algorithm.perturbation must be lowrank"
        : sequences === null
          ? "it measures next-token losses: the run's task must be causal-lm"
          : null;
  const refuse = (engine: string, why: string): never => {
    throw new LmForwardError("LM_FORWARD_UNSUPPORTED", `--lm-forward ${engine}: ${why}`, { forward: engine });
  };
  const rank = cfg.kind === "spsa" && cfg.perturbation?.kind === "lowrank" ? cfg.perturbation.rank : 0;
  switch (options.forward) {
    case "tfjs":
      return tfjs("asked for (--lm-forward tfjs)");
    case "webgpu": {
      if (unsupported !== null) refuse("webgpu", unsupported);
      const pairs = new GpuLmPairs(model, sequences as number[][], rank);
      return { pairs, description: pairs.description, reason: "asked for (--lm-forward webgpu)" };
    }
    case "onnx":
    case "auto": {
      if (unsupported !== null) {
        if (options.forward === "onnx") refuse("onnx", unsupported);
        return tfjs(`auto: the onnx engine does not serve this run (${unsupported})`);
      }
      try {
        const pairs = new OnnxLmPairs(model, sequences as number[][], rank, options.threads);
        return { pairs, description: pairs.description, reason: options.forward === "onnx" ? "asked for (--lm-forward onnx)" : "auto: low-rank pairs of a causal-lm run" };
      } catch (err) {
        if (options.forward === "onnx") refuse("onnx", (err as Error).message);
        return tfjs(`auto: the onnx engine failed to open (${(err as Error).message}), so tfjs measures`);
      }
    }
  }
}
