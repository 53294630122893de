/**
 * Gossip's application-level dedupe: (kind, signer, iteration) -> SHA-256 of up to DIFFERENT_KEEP
 * different messages. Message ids alone do not stop a replay after gossipsub's seen-cache
 * expires. Bounded twice: keys of iterations far enough behind the head go as the head passes
 * them, and at most `keep` keys are held (the oldest goes first).
 */
import { sha256Hex } from "../../protocol/bytes.js";
import type { SeenVerdict } from "../../protocol/validation.js";
import { BoundedMap } from "../ground/index.js";

/**
 * Different messages per (kind, signer, iteration) accepted and forwarded: the first, an honest
 * re-contribution after a fork switch, and one more, which lets the rounds hold an equivocation
 * pair. Beyond that an equivocator is only ignored: it cannot make the swarm carry more.
 */
export const DIFFERENT_KEEP = 3;

export class SeenCache {
  private readonly seen: BoundedMap<string, string[]>;
  /** The keys of `seen` by iteration, so those of iterations we passed go at once. */
  private readonly byIteration = new Map<number, string[]>();
  private indexed = 0;
  private sweptBelow = 0;

  /**
   * @param keep most keys held.
   * @param behind keys of iterations more than this behind the head are forgotten (0: those below it).
   */
  constructor(
    private readonly keep: number,
    private readonly behind = 0,
  ) {
    this.seen = new BoundedMap(keep);
  }

  /** What `record` would answer, recording nothing (asked before a signature is verified). */
  known(key: string, data: Uint8Array): SeenVerdict {
    const prev = this.seen.get(key);
    if (prev === undefined) return "new";
    if (prev.includes(sha256Hex(data))) return "same";
    return prev.length >= DIFFERENT_KEEP ? "again" : "different";
  }

  /** Records a verified message under `key` (of `iteration`), at our `head`; says what it was. */
  record(key: string, iteration: number, data: Uint8Array, head: number): SeenVerdict {
    this.forgetBelow(head - this.behind);
    const prev = this.seen.get(key);
    const h = sha256Hex(data);
    if (prev === undefined) {
      this.seen.set(key, [h]);
      const keys = this.byIteration.get(iteration);
      if (keys) keys.push(key);
      else this.byIteration.set(iteration, [key]);
      this.indexed++;
      // Keys evicted by the cap stay in the index until their iteration passes: rebuild it
      // from the map when it holds twice the cap, so it is bounded too.
      if (this.indexed > 2 * this.keep) this.reindex();
      return "new";
    }
    if (prev.includes(h)) return "same";
    if (prev.length >= DIFFERENT_KEEP) return "again";
    prev.push(h);
    return "different";
  }

  /** Keys held (for tests of the bound). */
  get size(): number {
    return this.seen.size;
  }

  /** Forgets the keys of iterations below `head` (done once per head). */
  private forgetBelow(head: number): void {
    if (head <= this.sweptBelow) return;
    this.sweptBelow = head;
    for (const [iteration, keys] of this.byIteration) {
      if (iteration >= head) continue;
      for (const k of keys) this.seen.delete(k);
      this.indexed -= keys.length;
      this.byIteration.delete(iteration);
    }
  }

  private reindex(): void {
    this.byIteration.clear();
    for (const key of this.seen.keys()) {
      const iteration = Number(key.slice(key.lastIndexOf("/") + 1));
      const keys = this.byIteration.get(iteration);
      if (keys) keys.push(key);
      else this.byIteration.set(iteration, [key]);
    }
    this.indexed = this.seen.size;
  }
}

/** The dedupe key of a message: its kind, its signer and its iteration. */
export function seenKey(kind: string, signer: string, iteration: number): string {
  return `${kind}/${signer}/${iteration}`;
}
