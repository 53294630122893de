/**
 * Authors whose contribution missed its commit, and how late each one is. Two kinds:
 *
 * - **Late** (a joiner, a node that was behind): never included in the last PACE_WINDOW commits.
 *   The rounds wait for them (at most 0.5 x roundTimeout a round) in the next two rounds, so they
 *   get included instead of chasing a fast swarm forever.
 * - **Members** (included in one of the last PACE_WINDOW commits) that missed one: a straggler the
 *   quorum rule left out, a node thawed after a pause, or one a little behind the others. A member
 *   is waited for as late at most once per PACE_WINDOW commits (one slow node would otherwise hold
 *   every other round: waited for, included, left out by the quorum rule, late again); a thawed
 *   node gets back in with that once. Besides, the quorum rule (proposer-schedule.ts) waits for a
 *   member that missed the last commit by a little (`lagAt`), so a node late by a little is not
 *   left out for good, while one far behind is.
 *
 * Newcomers are free identities (issue 11, attack 9: old contributions from fresh keys): each one
 * made late costs the next two rounds up to 0.5 x roundTimeout, for one signature. So a newcomer
 * is made late only once it was late for two iterations within LATE_WINDOW (a joiner contributes
 * again; a fresh key that sends once never is; a joiner chasing a chain's starter skips the
 * rounds it catches up on, so its sightings may be 6-12 iterations apart: CI, e2e byzantine,
 * 2026-12-02, where a gap of 4 kept every joiner out), and the rounds
 * that waited for a newcomer in vain (it is not in their commit) draw on a budget: it holds
 * NEWCOMER_BURST_ROUNDS such rounds and refills one per NEWCOMER_REFILL_TIMEOUTS round timeouts, so
 * vain waits on newcomers take at most a tenth of the time once a burst is spent. While it is
 * empty no newcomer is made (or kept) late; at most MAX_LATE_NEWCOMERS are waited for at once.
 * Only vain rounds cost: the first nodes of a swarm and an honest joiner get included, and a joiner
 * catching up draws on the burst (a limit on every newcomer wait let the start-up use it up: CI,
 * e2e lm-join, 2026-11-28). Under such an attack a joiner may not be waited for, and gets in by its
 * pipelined contributions or the quorum rule's wait instead.
 */
import { BoundedMap } from "../ground/index.js";

/** How many iterations back a late contribution still makes its author expected. */
export const LATE_WINDOW = 64;
/** Commits back within which an included author is a member, not waited for as late. */
export const PACE_WINDOW = 128;
/** The most members whose last arrival is kept (least recently heard evicted). */
const ARRIVALS_KEPT = 1024;
/** Round starts kept, to measure how late a contribution to a past round arrived. */
const STARTS_KEPT = 4;
/** Rounds that may wait for newcomers in vain in a burst. */
export const NEWCOMER_BURST_ROUNDS = 16;
/** Round timeouts per vain round refilled: 0.5 timeout of waiting per 5 is a tenth of the time. */
export const NEWCOMER_REFILL_TIMEOUTS = 5;
/** Newcomers waited for at once. */
export const MAX_LATE_NEWCOMERS = 8;
/** Newcomers' late sightings kept (least recently heard evicted; the newcomer gate lets at most a few dozen an iteration through). */
const SIGHTINGS_KEPT = 1024;

export class LateAuthors {
  private readonly late = new Map<string, number>();
  /** Author -> the last iteration that included it (bounded: pruned every 16 commits). */
  private readonly included = new Map<string, number>();
  /** Member -> the head when it was last made late (bounded like `included`). */
  private readonly lateAsMember = new Map<string, number>();
  /** Author -> its newest contribution's iteration and ms after that round began here (least recently heard first). */
  private readonly arrivals = new BoundedMap<string, { t: number; ms: number }>(ARRIVALS_KEPT);
  /** Iteration -> when its round began here (performance.now()). */
  private readonly starts = new Map<number, number>();
  /** Newcomer -> the iterations of its late contributions seen, oldest and newest, within LATE_WINDOW (see `note`). */
  private readonly sightings = new BoundedMap<string, { min: number; max: number }>(SIGHTINGS_KEPT);
  /** The late authors that were newcomers when made late (a subset of `late`'s keys). */
  private readonly lateNewcomers = new Set<string>();
  /** Vain rounds on newcomers still allowed (see the file's comment), as of `budgetAt`. */
  private budget = NEWCOMER_BURST_ROUNDS;
  private budgetAt = -Infinity;

  /** @param roundTimeoutMs the run's round timeout: the budget refills one round per NEWCOMER_REFILL_TIMEOUTS of them */
  constructor(private readonly roundTimeoutMs: number) {}

  /** Round t began here now. */
  roundBegins(t: number, now: number): void {
    this.starts.set(t, now);
    for (const s of this.starts.keys()) if (this.starts.size > STARTS_KEPT) this.starts.delete(s);
  }

  /**
   * A contribution of `author` to iteration t arrived now: how long after its round began
   * (0 for a round that has not begun here yet, one pipelined ahead). Only newer ones count, and
   * only a member's (`lagAt` reads no other), so strangers' signatures neither grow nor evict them.
   */
  heard(author: string, t: number, now: number): void {
    if (!this.isMember(author, t)) return;
    const last = this.arrivals.get(author);
    if (last && last.t >= t) return;
    const start = this.starts.get(t);
    const ms = start === undefined ? (t > Math.max(-1, ...this.starts.keys()) ? 0 : Infinity) : Math.max(0, now - start);
    this.arrivals.delete(author);
    this.arrivals.set(author, { t, ms });
  }

  /**
   * How long after round t-1 began `author`'s contribution to it arrived here, if it is a member
   * that contributed to t-1 (on time or after its commit); undefined otherwise (it missed t-1
   * altogether: dead, or far behind).
   */
  lagAt(author: string, t: number): number | undefined {
    const a = this.arrivals.get(author);
    return a && a.t >= t - 1 && this.isMember(author, t) ? a.ms : undefined;
  }

  /** The members at round t: included in one of the last PACE_WINDOW commits. */
  members(t: number): string[] {
    return [...this.included].filter(([, at]) => at >= t - PACE_WINDOW).map(([a]) => a);
  }

  /**
   * `author` contributed for `iteration`, already committed (our head is `head`): wait for it
   * unless it is in the last commit already (`last`), a member made late once already in the last
   * PACE_WINDOW commits, or hopelessly far behind ("no"); or a newcomer while the budget of vain
   * rounds is spent, or past MAX_LATE_NEWCOMERS ("refused").
   */
  note(author: string, iteration: number, head: number, last: readonly string[], now: number): "late" | "refused" | "no" {
    if (iteration < head - LATE_WINDOW || last.includes(author)) return "no";
    if (!this.isMember(author, head) && iteration < head - 1) {
      // A newcomer late by more than a round is waited for once it was late for two iterations
      // within the window: a joiner contributes again, a fresh key sent once (attack 9) never
      // does. One late for the round just applied (a joiner a little behind) is, on the budget.
      const s = this.sightings.get(author);
      const near = s !== undefined && Math.abs(iteration - s.max) <= LATE_WINDOW;
      const seen = near ? { min: Math.min(s.min, iteration), max: Math.max(s.max, iteration) } : { min: iteration, max: iteration };
      this.sightings.delete(author);
      this.sightings.set(author, seen);
      if (seen.max === seen.min) return "no";
    }
    return this.makeLate(author, head, now);
  }

  /** The late authors a round at `head` still waits for (noticed at most one round ago). */
  recent(head: number): string[] {
    return [...this.late].filter(([, at]) => at >= head - 1).map(([a]) => a);
  }

  /**
   * Commit `iteration` was applied with `included` as its authors; `held` contributed for it but
   * are not in it (a fallback proposer's view, a race): they are late too, unless members.
   * Older ones are dropped.
   */
  afterCommit(iteration: number, included: ReadonlySet<string>, held: Iterable<string>, now: number): void {
    // This round waited for a newcomer that is not in its commit: one vain round, whatever their number.
    for (const [a, at] of this.late)
      if (at >= iteration - 1 && this.lateNewcomers.has(a) && !included.has(a)) {
        this.spend(now);
        break;
      }
    for (const a of included) {
      this.late.delete(a);
      this.lateNewcomers.delete(a);
      this.included.set(a, iteration);
    }
    for (const a of held) if (!included.has(a)) this.makeLate(a, iteration + 1, now);
    for (const [a, at] of this.late)
      if (at < iteration) {
        this.late.delete(a);
        this.lateNewcomers.delete(a);
      }
    if (iteration % 16 === 0)
      for (const m of [this.included, this.lateAsMember]) for (const [a, at] of m) if (at < iteration - PACE_WINDOW) m.delete(a);
  }

  /**
   * Waits for `author` in the rounds `head` and `head` + 1: a member once per PACE_WINDOW; a
   * newcomer (again) while the budget of vain rounds lasts and fewer than MAX_LATE_NEWCOMERS are waited for.
   */
  private makeLate(author: string, head: number, now: number): "late" | "refused" | "no" {
    if (this.isMember(author, head)) {
      if (this.late.has(author)) return "no";
      const last = this.lateAsMember.get(author);
      if (last !== undefined && last >= head - PACE_WINDOW) return "no";
      this.lateAsMember.set(author, head);
    } else {
      const at = this.late.get(author);
      if (at !== undefined && at >= head) return "no";
      if (this.available(now) < 1) return "refused";
      if (at === undefined && this.lateNewcomers.size >= MAX_LATE_NEWCOMERS) return "refused";
      this.lateNewcomers.add(author);
    }
    this.late.set(author, head);
    return "late";
  }

  /** The vain rounds on newcomers allowed now. */
  private available(now: number): number {
    if (this.budgetAt !== -Infinity)
      this.budget = Math.min(NEWCOMER_BURST_ROUNDS, this.budget + (now - this.budgetAt) / (NEWCOMER_REFILL_TIMEOUTS * this.roundTimeoutMs));
    this.budgetAt = now;
    return this.budget;
  }

  /** One round waited for newcomers in vain. */
  private spend(now: number): void {
    this.budget = Math.max(0, this.available(now) - 1);
  }

  /** Whether `author` is a member at round `head` (included in one of the last PACE_WINDOW commits). */
  isMember(author: string, head: number): boolean {
    const at = this.included.get(author);
    return at !== undefined && at >= head - PACE_WINDOW;
  }
}
