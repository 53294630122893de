/**
 * One author's contribution to an iteration, and the timestamp order every replica applies
 * contributions in (brief section 5, invariant 1).
 */
import type { Author } from "../rng/seeds.js";

export interface Contribution {
  readonly author: Author;
  readonly payload: Uint8Array;
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
