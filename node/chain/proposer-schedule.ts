/**
 * Who may propose an iteration, and from when (brief section 5). The proposers of t are the
 * authors of commit t-1 ranked by H(runId, t, peer); the primary (rank 0) commits as soon as every
 * expected author has contributed. Otherwise tick k fires at (0.5 + 0.25 k) x roundTimeout after
 * the round began, and from then on rank k and better may propose; any contributing node may once
 * k is past the number of proposers.
 */
import { proposerOrder } from "./commit.js";
import type { ChainTip } from "./chain-tip.js";
import type { LateAuthors } from "./late-authors.js";

export interface ScheduleOptions {
  readonly runId: string;
  /** This node's peer id. */
  readonly self: string;
  readonly roundTimeoutMs: number;
  /** Whether this node contributes (and so may propose). */
  readonly contribute: boolean;
}

export class ProposerSchedule {
  /** proposers(t) for the current author list (replaced, never changed in place, on each commit). */
  private order: { t: number; authors: readonly string[]; order: readonly string[] } | null = null;
  private timers: NodeJS.Timeout[] = [];
  private roundStart = 0;

  constructor(
    private readonly opts: ScheduleOptions,
    private readonly tip: ChainTip,
    private readonly late: LateAuthors,
    /** The authors of the contributions for t made on the tip (who may propose at a chain's start). */
    private readonly seen: (t: number) => Iterable<string>,
  ) {}

  /** A round begins now: its ticks, and the time reported with its commit, count from here. */
  roundBegins(): void {
    this.roundStart = performance.now();
  }

  /** Milliseconds since the round began. */
  elapsed(): number {
    return performance.now() - this.roundStart;
  }

  /** Cancels the ticks scheduled. */
  clear(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }

  /**
   * Tick k fires at (0.5 + 0.25 k) x roundTimeout: rank k and better may propose from then on.
   * `open`: whether round t still runs; `propose(k)`: commits t at rank k or better, true when it did.
   */
  scheduleTick(t: number, k: number, open: () => boolean, propose: (maxRank: number) => boolean): void {
    const due = (0.5 + 0.25 * k) * this.opts.roundTimeoutMs - this.elapsed();
    this.timers.push(
      setTimeout(
        () => {
          if (!open()) return;
          const order = this.proposers(t);
          const rank = order.indexOf(this.opts.self);
          const mayPropose = (rank >= 0 && rank <= k) || (k > order.length && this.opts.contribute);
          if (mayPropose && propose(k)) return;
          this.scheduleTick(t, k + 1, open, propose);
        },
        Math.max(0, due),
      ),
    );
  }

  /**
   * True when this node is the primary proposer of t (there is none at the start of a chain) and
   * every expected author has contributed; `held` (the authors of the usable contributions) is
   * asked only then.
   */
  mayProposeEarly(t: number, held: () => ReadonlyMap<string, unknown>): boolean {
    if (this.tip.authors.length === 0) return false;
    if (this.proposers(t)[0] !== this.opts.self) return false;
    const have = held();
    return this.expected(t).every((a) => have.has(a));
  }

  /**
   * Authors round t waits for: last commit's authors, those whose contribution to the last
   * iteration came too late to be included (a joiner), and this node.
   */
  private expected(t: number): string[] {
    const set = new Set([...this.tip.authors, ...this.late.recent(t)]);
    if (this.opts.contribute) set.add(this.opts.self);
    return [...set];
  }

  /**
   * Who may propose iteration t, best first. Normally the authors of the last commit (a set
   * every node agrees on); at the start of a chain, the contributors this node has seen.
   */
  private proposers(t: number): readonly string[] {
    const authors = this.tip.authors;
    if (authors.length > 0) {
      // Asked on every contribution that arrives: kept for (t, the last commit's author list).
      const o = this.order;
      if (o && o.t === t && o.authors === authors) return o.order;
      const order = proposerOrder(this.opts.runId, t, authors);
      this.order = { t, authors, order };
      return order;
    }
    const seen = [...this.seen(t)];
    return proposerOrder(this.opts.runId, t, this.opts.contribute ? [...seen, this.opts.self] : seen);
  }
}
