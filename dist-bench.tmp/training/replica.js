/**
 * One replica of a run's model: the canonical weights (the replicated state), how many iterations
 * have been applied, and the backend copy of the weights used for forward passes.
 */
import { inTimestampOrder } from "./algorithms/contribution.js";
import { BackendWeights, checksum } from "./params.js";
export class Replica {
    runId;
    model;
    weights;
    iteration;
    backend;
    /**
     * @param weights canonical weights, owned by the replica from now on
     * @param iteration number of iterations already applied (the next one to apply)
     */
    constructor(runId, 
    /** Any model kind: a replica needs only the layout of its weights. */
    model, weights, iteration) {
        this.runId = runId;
        this.model = model;
        this.weights = weights;
        this.iteration = iteration;
        this.backend = new BackendWeights(model.layout);
        this.backend.refresh(weights);
    }
    /** Applies iteration `this.iteration` with the given contributions (any order) and advances. */
    applyIteration(algorithm, contributions) {
        algorithm.apply(this.weights, this.iteration, inTimestampOrder(contributions));
        this.iteration += 1;
        this.backend.refresh(this.weights);
    }
    /** Replaces the state wholesale (checkpoint load, state sync). */
    reset(weights, iteration) {
        this.weights = weights;
        this.iteration = iteration;
        this.backend.refresh(weights);
    }
    checksum() {
        return checksum(this.weights);
    }
    dispose() {
        this.backend.dispose();
    }
}
//# sourceMappingURL=replica.js.map