/**
 * The contract every training algorithm keeps (brief section 4): `contribute` is local work
 * (forward passes only) and returns payload bytes; `apply` turns the ordered contributions of an
 * iteration into the next canonical weights, deterministically and without forward passes.
 */

import type { Weights } from "../params.js";
import type { Replica } from "../replica.js";
import type { Author } from "../rng/seeds.js";

export interface Contribution {
  readonly author: Author;
  readonly payload: Uint8Array;
}

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
  /** The local work of `author` for the replica's current iteration. */
  contribute(replica: Replica, author: Author): Uint8Array;
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

/** Timestamp order: author join timestamp, then peer id (code-unit order). */
export function compareAuthors(a: Author, b: Author): number {
  if (a.joinedAt !== b.joinedAt) return a.joinedAt - b.joinedAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A copy of the contributions in timestamp order; throws on two from the same author. */
export function inTimestampOrder(contributions: readonly Contribution[]): Contribution[] {
  const sorted = [...contributions].sort((x, y) => compareAuthors(x.author, y.author));
  for (let i = 1; i < sorted.length; i++) {
    if (compareAuthors(sorted[i - 1].author, sorted[i].author) === 0) {
      throw new RangeError(`two contributions from author ${sorted[i].author.id} in one iteration`);
    }
  }
  return sorted;
}
