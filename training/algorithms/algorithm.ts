/**
 * The contract every training algorithm keeps (brief section 4): `contribute` is local work
 * (forward passes only) and returns payload bytes; `apply` turns the ordered contributions of an
 * iteration into the next canonical weights, deterministically and without forward passes.
 */

import type { Weights } from "../params.js";
import type { Replica } from "../replica.js";
import type { Author } from "../rng/seeds.js";
import type { Contribution } from "./contribution.js";

// Re-exported: the algorithms name a contribution beside the contract they implement.
export { compareAuthors, type Contribution, inTimestampOrder } from "./contribution.js";

export interface Algorithm {
  readonly kind: string;
  /**
   * No valid payload of this run is longer (gossip drops longer ones before asking
   * `payloadProblem`); an algorithm whose payloads have one exact length checks it there.
   */
  readonly maxPayloadBytes: number;
  /** Mean training loss measured by the last `contribute` call (NaN before any). */
  readonly lastLoss: number;
  /**
   * The stage iteration t trains, for algorithms whose schedule has stages (greedy layerwise
   * Binary Learning); every replica switches at the same iteration. Absent: one stage.
   */
  stageAt?(iteration: number): number;
  /**
   * The local work of `author` for `iteration`, measured on the replica's state: the replica's
   * own iteration (the default), or for a run with pipelined rounds (RunSpec `staleness`, SPSA
   * only) up to `staleness` later; an algorithm without pipelining throws a RangeError otherwise.
   */
  contribute(replica: Replica, author: Author, iteration?: number): Uint8Array;
  /**
   * An audit by recomputation: redoes `author`'s work for the replica's iteration (the state its
   * contribution was measured on) and compares it with the `claimed` payload. Null when they agree
   * within what honest machines can differ by; otherwise what disagrees. Leaves `lastLoss` alone.
   * Absent: the algorithm's contributions are not audited.
   */
  audit?(replica: Replica, author: Author, claimed: Uint8Array): string | null;
  /**
   * Applies one iteration's contributions, already in timestamp order, to `weights` in place.
   * Must give the same bytes on every machine: plain JS float32 arithmetic only.
   */
  apply(weights: Weights, iteration: number, contributions: readonly Contribution[]): void;
  /**
   * Why a payload for `iteration` is unacceptable, or null when it is fine (checks of the payload
   * alone and the run's schedule, never of the weights).
   */
  payloadProblem(payload: Uint8Array, iteration: number): string | null;
}
