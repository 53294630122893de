/**
 * One replica of a run's model: the canonical weights (the replicated state), how many iterations
 * have been applied, and the backend copy of the weights used for forward passes.
 */
import { type Contribution, inTimestampOrder } from "./algorithms/contribution.js";
import { BackendWeights, checksum, type ParamLayout, type Weights } from "./params.js";

/**
 * The part of an Algorithm that applying needs (named here, not imported: Algorithm names
 * Replica for contribute, and the two would import each other).
 */
export interface CanonicalUpdate {
  apply(weights: Weights, iteration: number, contributions: readonly Contribution[]): void;
}

let replicas = 0;

export class Replica {
  readonly backend: BackendWeights;
  private readonly id = ++replicas;
  private generation = 0;

  /**
   * @param weights canonical weights, owned by the replica from now on
   * @param iteration number of iterations already applied (the next one to apply)
   */
  constructor(
    readonly runId: string,
    /** Any model kind: a replica needs only the layout of its weights. */
    readonly model: { readonly layout: ParamLayout },
    public weights: Weights,
    public iteration: number,
  ) {
    this.backend = new BackendWeights(model.layout);
    this.backend.refresh(weights);
  }

  /** Applies iteration `this.iteration` with the given contributions (any order) and advances. */
  applyIteration(algorithm: CanonicalUpdate, contributions: readonly Contribution[]): void {
    algorithm.apply(this.weights, this.iteration, inTimestampOrder(contributions));
    this.iteration += 1;
    this.generation += 1;
    this.backend.refresh(this.weights);
  }

  /** Replaces the state wholesale (checkpoint load, state sync). */
  reset(weights: Weights, iteration: number): void {
    this.weights = weights;
    this.iteration = iteration;
    this.generation += 1;
    this.backend.refresh(weights);
  }

  /**
   * Names the state this replica holds now: it changes whenever the weights do through this class
   * (the only way they change, as for the backend copy), so a device copy made under one key is
   * current while the key is. Distinct between replicas.
   */
  stateKey(): string {
    return `${this.id}:${this.generation}`;
  }

  checksum(): string {
    return checksum(this.weights);
  }

  dispose(): void {
    this.backend.dispose();
  }
}
