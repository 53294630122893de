import { imageClassificationTask } from "../tasks/image-classification.js";
import { Binary } from "./binary.js";
import { Marketplace } from "./marketplace.js";
import { Spsa } from "./spsa.js";
import { batchesLowRank, LowRankPairs } from "./lowrank-forward.js";
export function createAlgorithm(runId, spec, model, train) {
    switch (spec.algorithm.kind) {
        case "spsa":
            return new Spsa(runId, spec, model, imageClassificationTask(model, train), spec.algorithm.perturbation?.kind === "lowrank" && batchesLowRank(model) ? new LowRankPairs(model, train) : null);
        case "marketplace":
            return new Marketplace(runId, spec, model, train);
        case "binary":
            return new Binary(runId, spec, model, train);
    }
}
//# sourceMappingURL=create.js.map