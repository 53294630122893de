/**
 * The contract every training algorithm keeps (brief section 4): `contribute` is local work
 * (forward passes only) and returns payload bytes; `apply` turns the ordered contributions of an
 * iteration into the next canonical weights, deterministically and without forward passes.
 */

import type { Replica } from "../replica.js";
import type { Author } from "../rng/seeds.js";
import type { Contribution } from "./contribution.js";

// Re-exported: the algorithms name a contribution beside the contract they implement.
export { compareAuthors, type Contribution, inTimestampOrder } from "./contribution.js";

export interface Algorithm {
  readonly kind: string;
  /** Every valid payload of this run has exactly this many bytes. */
  readonly payloadSize: number;
  /** Mean training loss measured by the last `contribute` call (NaN before any). */
  readonly lastLoss: number;
  /** The local work of `author` for the replica's current iteration. */
  contribute(replica: Replica, author: Author): Uint8Array;
  /**
   * Applies one iteration's contributions, already in timestamp order, to `weights` in place.
   * Must give the same bytes on every machine: plain JS float32 arithmetic only.
   */
  apply(weights: Float32Array, iteration: number, contributions: readonly Contribution[]): void;
  /** Why a payload is unacceptable, or null when it is fine (shape checks only). */
  payloadProblem(payload: Uint8Array): string | null;
}
