/**
 * One replica of a run's model: the canonical weights (the replicated state), how many iterations
 * have been applied, and the backend copy of the weights used for forward passes.
 */
import type { Algorithm, Contribution } from "./algorithms/algorithm.js";
import { inTimestampOrder } from "./algorithms/algorithm.js";
import type { Model } from "./models/model.js";
import { BackendWeights, checksum, type Weights } from "./params.js";

export class Replica {
  readonly backend: BackendWeights;

  /**
   * @param weights canonical weights, owned by the replica from now on
   * @param iteration number of iterations already applied (the next one to apply)
   */
  constructor(
    readonly runId: string,
    readonly model: Model,
    public weights: Weights,
    public iteration: number,
  ) {
    this.backend = new BackendWeights(model.layout);
    this.backend.refresh(weights);
  }

  /** Applies iteration `this.iteration` with the given contributions (any order) and advances. */
  applyIteration(algorithm: Algorithm, contributions: readonly Contribution[]): void {
    algorithm.apply(this.weights, this.iteration, inTimestampOrder(contributions));
    this.iteration += 1;
    this.backend.refresh(this.weights);
  }

  /** Replaces the state wholesale (checkpoint load, state sync). */
  reset(weights: Weights, iteration: number): void {
    this.weights = weights;
    this.iteration = iteration;
    this.backend.refresh(weights);
  }

  checksum(): string {
    return checksum(this.weights);
  }

  dispose(): void {
    this.backend.dispose();
  }
}
