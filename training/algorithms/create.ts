/** Builds the algorithm a RunSpec names. */
import type { RunSpec } from "../../protocol/run-spec.js";
import type { Split } from "../data/dataset.js";
import type { Model } from "../models/model.js";
import { imageClassificationTask } from "../tasks/image-classification.js";
import type { Algorithm } from "./algorithm.js";
import { Binary } from "./binary.js";
import { Marketplace } from "./marketplace.js";
import { Spsa } from "./spsa.js";
import { batchesLowRank, LowRankPairs } from "./lowrank-forward.js";

export function createAlgorithm(
  runId: string,
  spec: RunSpec,
  model: Model,
  train: Split,
): Algorithm {
  switch (spec.algorithm.kind) {
    case "spsa":
      return new Spsa(
        runId,
        spec,
        model,
        imageClassificationTask(model, train),
        spec.algorithm.perturbation?.kind === "lowrank" && batchesLowRank(model) ? new LowRankPairs(model, train) : null,
      );
    case "marketplace":
      return new Marketplace(runId, spec, model, train);
    case "binary":
      return new Binary(runId, spec, model, train);
  }
}
