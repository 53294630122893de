/**
 * Whose hints (a heartbeat ahead of us, an early commit) are worth a pull: a peer with no record,
 * or whose last pull applied a verified commit. A peer whose pull applied nothing (it claimed a
 * head it did not serve, or served what does not chain onto ours) is not asked again on its
 * hints for a while, twice as long after each such pull in a row, so a liar hinting ten times a
 * second costs one request per backoff, not one per round (finding 5). Honest peers that were
 * merely no further than us by the time we asked lose little: others hint too, and the backoff
 * starts short. The table is bounded (the oldest peer goes first: it then starts afresh).
 */
import { BoundedMap } from "../ground/index.js";

/** The backoffs, in ms: after the first unproven pull, and at most. */
export const PULL_HINT_BACKOFF = { firstMs: 1000, maxMs: 64_000, peersKept: 1024 } as const;

export class PullHints {
  private readonly unproven = new BoundedMap<string, { misses: number; until: number }>(PULL_HINT_BACKOFF.peersKept);

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Whether a hint from `peer` is worth a pull now. */
  worth(peer: string): boolean {
    const u = this.unproven.get(peer);
    return !u || this.now() >= u.until;
  }

  /** A pull from `peer` applied commits (`proven`), or nothing. */
  outcome(peer: string, proven: boolean): void {
    if (proven) {
      this.unproven.delete(peer);
      return;
    }
    const misses = (this.unproven.get(peer)?.misses ?? 0) + 1;
    this.unproven.delete(peer);
    const wait = Math.min(PULL_HINT_BACKOFF.maxMs, PULL_HINT_BACKOFF.firstMs * 2 ** (misses - 1));
    this.unproven.set(peer, { misses, until: this.now() + wait });
  }
}
