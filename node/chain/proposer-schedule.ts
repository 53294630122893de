/**
 * Who may propose an iteration, and from when (brief section 5). The proposers of t are the
 * authors of commit t-1 ranked by H(runId, t, peer); the primary (rank 0) commits as soon as every
 * expected author has contributed. Otherwise tick k fires at (0.5 + 0.25 k) x roundTimeout after
 * the round began, and from then on rank k and better may propose; any contributing node may once
 * k is past the number of proposers.
 *
 * A slow author never holds the swarm twice (issue 12): an expected author missing from the
 * commit its round waited for is next waited for only briefly (BRIEF_WAIT of a round timeout, so a
 * node that was slow once but keeps pace again gets back in), and after each further miss not at
 * all for 2, 4, ... 64 rounds before one more brief wait. An entry of it in a commit clears that.
 * A straggler then costs the swarm one deadline wait and a brief wait every 64 rounds, instead of
 * a deadline wait every round; its contributions still enter every commit they reach in time.
 * Only while those waited for in full are a strict majority of the expected authors. And once a
 * strict majority has contributed, the rest are waited for as long again as that took (at least
 * the brief wait), not the whole deadline: a node far slower than the others holds no round.
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

/** The brief wait for an author that missed its last commit, as a share of the round timeout. */
export const BRIEF_WAIT = 0.01;
/** The longest skip (in rounds) between brief waits for an author that keeps missing. */
const MAX_SKIP = 64;
/** Authors remembered as missing (each missed a commit it was expected in), oldest dropped first. */
const MISSED_KEPT = 4096;

export class ProposerSchedule {
  /** Authors that missed a commit they were waited for: consecutive misses, and from which round they are waited for (briefly) again. */
  private readonly missed = new Map<string, { misses: number; from: number }>();
  /** The authors round t waited for (or would have), as last computed: what a commit is compared with. */
  private waitedFor: { t: number; authors: readonly string[] } | null = null;
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

  /**
   * Round t begins now: its ticks, and the time reported with its commit, count from here; whom it
   * waits for is noted (a proposer notes it again on each contribution), for afterCommit.
   */
  roundBegins(t: number): void {
    this.roundStart = performance.now();
    this.expected(t);
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
  mayProposeEarly(t: number, held: () => ReadonlyMap<string, unknown>, proposeNow: () => void): boolean {
    if (this.tip.authors.length === 0) return false;
    if (this.proposers(t)[0] !== this.opts.self) return false;
    const have = held();
    const { full, brief } = this.expected(t);
    const all = [...full, ...brief];
    const present = all.filter((a) => have.has(a)).length;
    if (present === all.length) return true;
    let dueAt: number;
    if (full.every((a) => have.has(a))) {
      // Everyone else is in: those that missed their last commit get a brief wait.
      dueAt = BRIEF_WAIT * this.opts.roundTimeoutMs;
    } else {
      // A strict majority is in: the rest get as long again as the majority took (at least the
      // brief wait), not the whole deadline. A node much slower than the others holds no round.
      if (2 * present <= all.length) return false;
      if (this.quorumAt?.t !== t) this.quorumAt = { t, ms: this.elapsed() };
      dueAt = Math.max(BRIEF_WAIT * this.opts.roundTimeoutMs, 2 * this.quorumAt.ms);
    }
    const due = dueAt - this.elapsed();
    if (due <= 0) return true;
    if (this.briefTimerFor !== t) {
      this.briefTimerFor = t;
      this.timers.push(setTimeout(proposeNow, due));
    }
    return false;
  }

  /** When round t first held contributions from a strict majority of its expected authors. */
  private quorumAt: { t: number; ms: number } | null = null;

  /** The round whose brief wait is scheduled (one timer a round). */
  private briefTimerFor = -1;

  /**
   * Commit t was applied with `included` as its authors: each author round t waited for that is
   * not among them missed it (see the class comment); each included one is waited for in full again.
   */
  afterCommit(t: number, included: ReadonlySet<string>): void {
    for (const a of included) this.missed.delete(a);
    if (this.waitedFor?.t !== t) return;
    for (const a of this.waitedFor.authors) {
      if (included.has(a) || a === this.opts.self) continue;
      const misses = (this.missed.get(a)?.misses ?? 0) + 1;
      this.missed.delete(a);
      this.missed.set(a, { misses, from: t + 1 + (misses === 1 ? 0 : Math.min(MAX_SKIP, 2 ** (misses - 1))) });
      if (this.missed.size > MISSED_KEPT) this.missed.delete(this.missed.keys().next().value as string);
    }
  }

  /**
   * Authors round t waits for: last commit's authors, those whose contribution to the last
   * iteration came too late to be included (a joiner), and this node; in full (`full`), or
   * briefly (`brief`) for those that missed their last commit; skipped while they sit out.
   */
  private expected(t: number): { full: string[]; brief: string[] } {
    const set = new Set([...this.tip.authors, ...this.late.recent(t)]);
    if (this.opts.contribute) set.add(this.opts.self);
    const full: string[] = [];
    const brief: string[] = [];
    for (const a of set) {
      const m = this.missed.get(a);
      if (!m) full.push(a);
      else if (t >= m.from) brief.push(a);
    }
    // Only a majority goes on without the rest: a pair, or a side of a split, keeps waiting for
    // the others in full, so it does not race ahead alone while they catch up or heal.
    const majority = 2 * full.length > set.size;
    const waited = majority ? { full, brief } : { full: [...set], brief: [] };
    this.waitedFor = { t, authors: [...waited.full, ...waited.brief] };
    return waited;
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
