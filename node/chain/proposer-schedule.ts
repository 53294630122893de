/**
 * Who may propose an iteration, and from when (brief section 5). The proposers of t are the
 * admission's order (admission.ts: the authors of commit t-1 ranked by H(runId, t, peer), newer
 * members and demoted proposers last); the primary (rank 0) commits as soon as every
 * expected author has contributed, or by the quorum rule below. Otherwise tick k fires at
 * (0.5 + 0.25 k) x roundTimeout after the round began, and from then on rank k and better may
 * propose; any contributing node may once k is past the number of proposers.
 *
 * The quorum rule: with 3 or more expected authors, once a strict majority of them is in (at `q`
 * ms into the round), the rest get as long again (D = q + max(q, QUORUM_GRACE x roundTimeout)),
 * and then the round commits without them; a late author (a joiner) is still waited for. Heads
 * are free to a crowd of identities, so every proven expected author in (admission.ts: the
 * proposers of the window), if they are most of the proven, is a quorum too (`quorumIn`): members
 * that never propose and send late (a Sybil crowd) cost a round as long again as the proven
 * took, not a tick. A member left out of the
 * last commit (late-authors.ts) is waited for too, with all the expected in, up to
 * D, when its contribution to the last round arrived: a node left out once by a little is back in
 * the next round, a straggler far behind or a dead node costs nothing. An author whose last
 * contribution arrived a little after D (up to 1.5 D) is given up to 1.1 x that, so one that keeps
 * missing by a little is waited for.
 */
import { proposerOrder } from "./commit.js";
import type { ChainTip } from "./chain-tip.js";
import type { LateAuthors } from "./late-authors.js";

/** The shortest wait, as a fraction of roundTimeout, for the rest once a majority is in. */
export const QUORUM_GRACE = 0.02;
/** The fewest expected authors for which a majority may commit without the rest. */
const QUORUM_MIN_EXPECTED = 3;
/** How far past D a missing author's last arrival may be for it still to be waited for. */
const STRETCH_LIMIT = 1.5;

/**
 * Whether the contributions `have` hold a quorum of `expected` (not all of it): a strict majority
 * of 3 or more that is also a strict majority of the proven expected authors (the window's
 * proposers), or every proven expected author where those are a strict majority of the proven.
 * Unproven members are free to a crowd of identities: a crowd that got 4 members into each commit
 * for 16 rounds (64) and sends at once was a majority by itself, so a round committed once it and
 * one proven author were in, leaving the other proven out. The second is what a crowd of members
 * that never propose cannot withhold; it needs a majority of the proven so that a proposer whose
 * peers were dropped from the last commit is no quorum by itself (it would commit alone, round
 * after round).
 */
export function quorumIn(expected: readonly string[], have: ReadonlyMap<string, unknown> | ReadonlySet<string>, proven: ReadonlySet<string>): boolean {
  const inCount = expected.filter((a) => have.has(a)).length;
  const provenExpected = expected.filter((a) => proven.has(a));
  const provenIn = provenExpected.filter((a) => have.has(a)).length;
  const provenMajority = provenExpected.length === 0 || 2 * provenIn > provenExpected.length;
  if (expected.length >= QUORUM_MIN_EXPECTED && 2 * inCount > expected.length && provenMajority) return true;
  return provenExpected.length > 0 && 2 * provenExpected.length > proven.size && provenIn === provenExpected.length;
}

export interface ScheduleOptions {
  readonly runId: string;
  /** This node's peer id. */
  readonly self: string;
  readonly roundTimeoutMs: number;
  /** Whether this node contributes (and so may propose). */
  readonly contribute: boolean;
}

export class ProposerSchedule {
  private timers: NodeJS.Timeout[] = [];
  private roundStart = 0;
  /** Whether this node starts the chain (Rounds.start): it may commit the first iteration alone. */
  private startsChain = false;
  /** Whether it started it with peers connected (the ones it waited for): see `mayProposeEarly`. */
  private startsWithPeers = false;
  /** When this round's quorum (or all expected) was first seen in, ms into the round; whether a re-check is set. */
  private quorum: { t: number; at: number; recheckSet: boolean } | null = null;

  constructor(
    private readonly opts: ScheduleOptions,
    private readonly tip: ChainTip,
    private readonly late: LateAuthors,
    /** The authors of the contributions for t made on the tip (who may propose at a chain's start). */
    private readonly seen: (t: number) => Iterable<string>,
  ) {}

  /** A round begins now: its ticks, and the time reported with its commit, count from here. */
  roundBegins(t: number): void {
    this.roundStart = performance.now();
    this.late.roundBegins(t, this.roundStart);
    this.quorum = null;
  }

  /**
   * Whether this node starts a new chain: the one that waited for its --min-peers quorum, or found
   * nobody (catch-up.ts `join`); the other nodes wait for its first commit before contributing.
   */
  setStartsChain(starts: boolean, withPeers = false): void {
    this.startsChain = starts;
    this.startsWithPeers = starts && withPeers;
  }

  /** A contribution of `author` to iteration t arrived now (its lag feeds the quorum rule). */
  heard(author: string, t: number): void {
    this.late.heard(author, t, performance.now());
  }

  /** Milliseconds since the round began. */
  elapsed(): number {
    return performance.now() - this.roundStart;
  }

  /** Cancels the ticks scheduled. */
  clear(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    this.quorum = null;
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
   * every expected author has contributed, or the quorum rule's wait for the rest is over (when it
   * is not yet, `recheck` is called once it is); `held` (the authors of the usable contributions)
   * is asked only then.
   */
  mayProposeEarly(t: number, held: () => ReadonlyMap<string, unknown>, recheck: () => void): boolean {
    if (this.tip.admission.order.length === 0) {
      // The start of a chain has no primary: the ticks let the contributors see each other and
      // agree on an order. A node that starts the chain expects nobody else (the others wait for
      // its first commit), so it commits its own contribution at once instead of waiting 0.5 x
      // roundTimeout; anyone else's contribution to it heard first means others contribute: the
      // ticks order them. Two nodes both told to start (each with --min-peers) may each commit
      // alone: a start-of-chain fork, settled like any other (docs/architecture.md, "Forks").
      if (!this.startsChain || !this.opts.contribute) return false;
      const have = held();
      return have.size === 1 && have.has(this.opts.self);
    }
    if (this.proposers(t)[0] !== this.opts.self) return false;
    // The round after a genesis committed with peers connected: they contribute from now on (they
    // waited for that commit), so the ticks give them 0.5 x roundTimeout to be in it once. Committing
    // at once left them chasing a starter that commits alone every few ms, never waited for (CI:
    // the starter stayed the only author of every commit); from here on they are expected.
    if (t === 1 && this.startsWithPeers) return false;
    const have = held();
    const late = this.late.recent(t);
    const expected = this.expected(late);
    const missing = expected.filter((a) => !have.has(a));
    if (missing.length > 0) {
      if (!quorumIn(expected, have, this.tip.admission.proven)) return false;
      if (missing.some((a) => late.includes(a))) return false;
    }
    // Members left out of the last commit: waited for only if they contributed to the last round.
    const absent = this.late.members(t).filter((a) => !have.has(a) && !expected.includes(a) && this.late.lagAt(a, t) !== undefined);
    if (missing.length === 0 && absent.length === 0) return true;
    if (this.quorum?.t !== t) this.quorum = { t, at: this.elapsed(), recheckSet: false };
    const q = this.quorum;
    const d = q.at + Math.max(q.at, QUORUM_GRACE * this.opts.roundTimeoutMs);
    // A missing author waits D, stretched for one that missed D by a little; an absent member that
    // missed it by far last round (a straggler) is not waited for at all.
    const waits = [...missing.map((a) => this.stretch(a, t, d) ?? d), ...absent.map((a) => this.stretch(a, t, d) ?? 0)];
    if (missing.length === 0 && waits.every((w) => w === 0)) return true;
    const until = Math.max(d, ...waits);
    const wait = until - this.elapsed();
    if (wait <= 0) return true;
    if (!q.recheckSet) {
      q.recheckSet = true;
      // Timers run in whole milliseconds and may fire a fraction early: rounded up, and re-armed.
      const timer = setTimeout(() => {
        q.recheckSet = false;
        recheck();
      }, Math.ceil(wait) + 1);
      this.timers.push(timer);
    }
    return false;
  }

  /**
   * How long round t waits for `author`, if its last contribution arrived within STRETCH_LIMIT x D:
   * at least D, up to 1.1 x that lag when it missed D by a little; undefined otherwise.
   */
  private stretch(author: string, t: number, d: number): number | undefined {
    const lag = this.late.lagAt(author, t);
    return lag !== undefined && lag <= STRETCH_LIMIT * d ? Math.max(d, Math.min(STRETCH_LIMIT * d, 1.1 * lag)) : undefined;
  }

  /**
   * Authors a round waits for: the admission's expected (the last commit's authors, and those a
   * thin commit left out), those whose contribution to the last iteration came too late to be
   * included (`late`: a joiner), and this node.
   */
  private expected(late: readonly string[]): string[] {
    const set = new Set([...this.tip.admission.expected, ...late]);
    if (this.opts.contribute) set.add(this.opts.self);
    return [...set];
  }

  /**
   * Who may propose iteration t, best first. Normally the admission's order (computed from the
   * verified commits, so every node agrees); at the start of a chain, the contributors this node has seen.
   */
  private proposers(t: number): readonly string[] {
    const { order } = this.tip.admission;
    if (order.length > 0) return order;
    const seen = [...this.seen(t)];
    return proposerOrder(this.opts.runId, t, this.opts.contribute ? [...seen, this.opts.self] : seen);
  }
}
