/**
 * Pipelined rounds (RunSpec `staleness` s; docs/architecture.md, "Pipelined rounds"). Without
 * them a node measures its contribution to iteration t on the state after commit t-1, so it sits
 * idle while that commit is proposed, sent and applied. With them a contribution to t may be
 * measured on the state after commit t-1-k for any k <= s, signed over that commit's hash and
 * labelled with k: a node at head h fills the slots h..h+s on its newest state while commits are
 * in flight, and the proposer of t finds them waiting.
 *
 * The update stays exactly reproducible: applying commit t reads only its entries' payloads and
 * their seeds for t, never the state they were measured on; an audit recomputes an entry on the
 * state its parent names. This file answers the two questions the rounds ask: which hashes a
 * contribution to t may be signed over on our chain, and which slot this node fills next.
 */
import { equalBytes } from "../../protocol/bytes.js";

/** What the slots read of the chain. */
export interface SlotChain {
  /** Next iteration to apply. */
  head(): number;
  /** Hash of the last applied commit (ZERO_HASH at the start of a chain). */
  tipHash(): Uint8Array;
  /** Hash of our commit for `iteration` while kept, ZERO_HASH for -1 (AppliedHistory.hashAt). */
  hashAt(iteration: number): Uint8Array | undefined;
}

export class ContributionSlots {
  /** A fill of the next slot is queued (one at a time, so gossip is served between slots). */
  private filling = false;

  constructor(
    /** The run's staleness: 0 without pipelined rounds. */
    readonly staleness: number,
    private readonly chain: SlotChain,
  ) {}

  /**
   * parents[k] (k = 0..staleness): the hash a contribution to `t` of staleness k is signed over,
   * that of our commit t-1-k; null where that commit is not made yet, not kept, or before the
   * chain (a state before iteration 0).
   */
  parentsFor(t: number): (Uint8Array | null)[] {
    const head = this.chain.head();
    const out: (Uint8Array | null)[] = [];
    for (let k = 0; k <= this.staleness; k++) {
      const j = t - 1 - k;
      if (j === head - 1) out.push(this.chain.tipHash());
      else if (j >= head || j < -1) out.push(null);
      else out.push(this.chain.hashAt(j) ?? null);
    }
    return out;
  }

  /**
   * The next fill after (re)starting the rounds (a join, a catch-up, a repair) takes the highest
   * open slot first: the swarm has measured the lower ones already, and work for the highest
   * reaches its round before the round starts, instead of after it closed.
   */
  restarted(): void {
    this.highestFirst = true;
  }

  private highestFirst = false;

  /**
   * The slot to fill next at the current head, below `stopAt`: the lowest iteration in
   * head..head+staleness (the highest right after `restarted`) that no contribution of ours on
   * our chain covers (`ours(t)`: the parent and staleness of each we hold for t), measured on the
   * tip at staleness t - head. Null when every slot is covered: the node waits for the next commit.
   */
  next(stopAt: number, ours: (t: number) => readonly { parent: Uint8Array; staleness: number }[]): { iteration: number; staleness: number } | null {
    const head = this.chain.head();
    const top = Math.min(head + this.staleness, stopAt - 1);
    const order = Array.from({ length: Math.max(0, top - head + 1) }, (_, i) => (this.highestFirst ? top - i : head + i));
    for (const t of order) {
      const parents = this.parentsFor(t);
      const covered = ours(t).some((o) => {
        const p = parents[o.staleness];
        return p != null && equalBytes(p, o.parent);
      });
      if (!covered) return { iteration: t, staleness: t - head };
    }
    return null;
  }

  /**
   * Contributes to the next open slot (`contribute(t, staleness)`: compute, sign, publish); then,
   * pipelined, queues the next fill on a later tick, so commits and contributions that arrived
   * meanwhile are handled first and the head may have moved. Without pipelining: the head, once.
   */
  fill(stopAt: number, ours: (t: number) => readonly { parent: Uint8Array; staleness: number }[], contribute: (t: number, staleness: number) => void, active: () => boolean): void {
    if (this.filling || !active()) return;
    const slot = this.next(stopAt, ours);
    if (!slot) return;
    this.highestFirst = false;
    contribute(slot.iteration, slot.staleness);
    if (this.staleness === 0) return;
    this.filling = true;
    setImmediate(() => {
      this.filling = false;
      this.fill(stopAt, ours, contribute, active);
    });
  }
}
