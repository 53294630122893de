/** Builds the algorithm a RunSpec names. */
import type { RunSpec } from "../../protocol/run-spec.js";
import type { Split } from "../data/dataset.js";
import type { Model } from "../models/model.js";
import { imageClassificationTask } from "../tasks/image-classification.js";
import type { Algorithm } from "./algorithm.js";
import { Binary } from "./binary.js";
import { Marketplace } from "./marketplace.js";
import { Spsa } from "./spsa.js";
import { FullRankPairs } from "./fullrank-forward.js";
import { LowRankPairs } from "./lowrank-forward.js";
import type { PairLossSource } from "./pair-batch.js";

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
        { pairs: batchedPairs(spec.algorithm, model, train) },
      );
    case "marketplace":
      return new Marketplace(runId, spec, model, train);
    case "binary":
      return new Binary(runId, spec, model, train);
  }
}

/** An MLP's pairs are measured in batched passes; other models materialise each perturbation. */
function batchedPairs(spec: Extract<RunSpec["algorithm"], { kind: "spsa" }>, model: Model, train: Split): PairLossSource | null {
  if (model.spec.kind !== "mlp") return null;
  return spec.perturbation?.kind === "lowrank" ? new LowRankPairs(model, train) : new FullRankPairs(model, train);
}
