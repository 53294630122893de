/**
 * The tip of the chain this node applied, and every way it moves: a commit applied, one of our
 * own, a one-step fork switch, a resume or a snapshot jump. The tip is the last commit's hash
 * (what the next commit chains to), its authors, and the next round's admission (its expected
 * contributors, proposers and members, admission.ts); the state before that commit is kept, so a
 * one-step fork switch can roll it back.
 *
 * A commit is verified by applying it (docs/security.md): when our checksum differs, we check our
 * pre-state against the previous commit's checksum. If that holds, the update is deterministic,
 * so the proposer lied: the commit is rejected (state rolled back, proposer penalised) and the
 * fallback rank commits; if not, we are the corrupted one ("diverged": repair).
 *
 * Which commit to apply, and when, is the rounds' decision (rounds.ts); this class only moves.
 */
import { equalBytes, toHex } from "../../protocol/bytes.js";
import type { Weights } from "../../training/params.js";
import type { Replica } from "../../training/replica.js";
import type { TrainingRun } from "../../training/run-context.js";
import type { AppliedHistory } from "./applied-history.js";
import { type Admission, admissionAt, PROPOSER_WINDOW, partialAdmission, passedOverBy, startAdmission, windowOf } from "./admission.js";
import type { Audits } from "./audits.js";
import {
  betterBecause,
  type ChainedCommit,
  chained,
  type Commit,
  type EncodedCommit,
  isBetter,
  type SignedContribution,
  ZERO_HASH,
} from "./commit.js";
import type { CommitChecks } from "./commit-checks.js";
import { commitEquivocation, type Equivocation } from "./evidence.js";
import type { RoundsEvent } from "./rounds-event.js";
import type { StallWatch } from "./stall-watch.js";
import { BoundedMap } from "../ground/index.js";

/** What the tip tells the rounds. */
export interface TipHooks {
  /** A commit became the tip (the history holds it already); `sum`: our checksum after it. */
  readonly applied: (commit: Commit, sum: string) => void;
  /** A one-step switch is about to roll the tip back: nothing scheduled for the old head may run. */
  readonly rollingBack: () => void;
  /** One proposer signed both commits of a one-step fork. */
  readonly equivocation: (e: Equivocation) => void;
  readonly onEvent: (e: RoundsEvent) => void;
}

export class ChainTip {
  private lastHash: Uint8Array = ZERO_HASH;
  /** Authors of the last applied commit. */
  private lastAuthors: string[] = [];
  /** Who may take part in the next iteration (admission.ts), from the commits before it. */
  private nextAdmission: Admission = startAdmission(0, true);
  /** Who each recent commit passed over, by hash hex (admission.ts), as checked here (bounded). */
  private readonly passedOver = new BoundedMap<string, readonly string[]>(4 * PROPOSER_WINDOW);
  /** State before the last applied commit (see rollBack). */
  private prev: { weights: Weights; hash: Uint8Array; authors: string[]; admission: Admission } | null = null;
  /** Audits by recomputation of the commits we apply (none: no audits). */
  private audits: Audits | null = null;

  constructor(
    private readonly run: Pick<TrainingRun, "algorithm" | "runId">,
    private readonly replica: Replica,
    private readonly history: AppliedHistory,
    private readonly checks: CommitChecks,
    private readonly stall: StallWatch,
    private readonly hooks: TipHooks,
  ) {}

  useAudits(audits: Audits): void {
    this.audits = audits;
  }

  /** Hash of the last applied commit. */
  get hash(): Uint8Array {
    return this.lastHash;
  }

  /** Authors of the last applied commit (replaced, never changed in place, on each commit). */
  get authors(): readonly string[] {
    return this.lastAuthors;
  }

  /** What the last applied commit chained to and was admitted by (a one-step fork's rival is checked against it); null when not kept. */
  get before(): { readonly hash: Uint8Array; readonly admission: Admission } | null {
    return this.prev;
  }

  /** Who may take part in the next iteration: its proposers' order, expected authors, members. */
  get admission(): Admission {
    return this.nextAdmission;
  }

  /** Continue a chain after a snapshot or checkpoint: the state is at `head` after `hash`. */
  resume(hash: Uint8Array, authors: string[]): void {
    this.lastHash = hash;
    this.lastAuthors = authors;
    this.nextAdmission = this.admit(authors);
  }

  /**
   * Admission to the iteration after the replica's, from the history's last commits; when they are
   * not held (a snapshot's anchor alone, a resume without its log), from the last authors only.
   */
  private admit(authors: readonly string[]): Admission {
    const t = this.replica.iteration;
    const kept = this.history.all();
    const tail = kept.slice(Math.max(0, kept.length - PROPOSER_WINDOW - 1));
    const window = tail.map((k) => k.commit);
    if (window.length > 0 && window[window.length - 1].iteration === t - 1)
      return admissionAt(this.run.runId, t, windowOf(window, (i) => this.passedOver.get(toHex(tail[i].hash))));
    return authors.length > 0 ? partialAdmission(this.run.runId, t, authors) : startAdmission(t, t === 0);
  }

  /**
   * Jumps to a snapshot: the state after `iteration` applied iterations, produced by `anchor`
   * (null: unknown, and then the first replayed commit sets the chain).
   */
  jumpTo(weights: Weights, iteration: number, checksum: string, anchor: EncodedCommit | null): void {
    this.replica.reset(weights, iteration);
    // Nothing before the snapshot can be rolled back to or served as our chain any more.
    this.prev = null;
    const entry = anchor ? chained(anchor) : null;
    this.history.jumpTo(iteration, checksum, entry);
    if (anchor && entry) {
      this.resume(entry.hash, anchor.commit.entries.map((e) => e.author.id));
    } else {
      this.resume(ZERO_HASH, []);
    }
  }

  /**
   * Applies a commit whose rank holds and that chains to the tip, verifying its checksum by the
   * result. False when it was rejected as a lie (state rolled back, nothing recorded).
   */
  apply(received: EncodedCommit): boolean {
    const { commit } = received;
    if (!this.checks.parentsHold(received) || !this.checks.exclusionsHold(received)) return false;
    // Every payload checked before the state moves, whatever path the commit came by (gossip
    // checks them, a served commit may not have been): an apply that throws midway would leave
    // the rollback state overwritten and the tip unable to switch (finding 13).
    const problem = this.payloadProblem(commit);
    if (problem) {
      this.checks.reject(received, `payload ${problem}`);
      return false;
    }
    this.remember();
    // A stall is reported before the work that follows it, which then counts as work, not sleep.
    this.stall.check();
    const work = this.stall.begin();
    this.applyOrUndo(commit.iteration, commit.entries);
    this.stall.worked(work);
    const sum = this.replica.checksum();
    if (toHex(commit.checksum) !== sum) {
      const prev = this.prev;
      if (prev && this.checks.proposerLied(commit.iteration, prev.weights)) {
        // Our pre-state is the verified one and the update is deterministic: the proposer lied.
        // Every honest node reaches this same verdict alone; the fallback rank commits instead.
        this.rollBack(commit.iteration);
        this.checks.reject(received, `checksum ${toHex(commit.checksum).slice(0, 12)} is not the result ${sum.slice(0, 12)}`, "lie");
        return false;
      }
      // Our own state was wrong before this commit: we are the corrupted one. Repair.
      this.record(chained(received), sum);
      this.hooks.onEvent({
        kind: "diverged",
        iteration: commit.iteration,
        reason: `checksum after applying ${sum.slice(0, 12)} != proposer's ${toHex(commit.checksum).slice(0, 12)}, and our state before it did not match the chain`,
      });
      return true;
    }
    const entry = chained(received);
    this.record(entry, sum);
    this.audit(entry);
    return true;
  }

  /**
   * Applies our own proposal: `entries` onto the tip, then `sign` makes the commit over the
   * result, chained to the tip; it becomes the tip. Returns the signed commit to publish.
   */
  applyOwn(
    entries: readonly SignedContribution[],
    sign: (prevHash: Uint8Array, checksum: string) => EncodedCommit,
  ): EncodedCommit {
    this.remember();
    this.applyOrUndo(this.replica.iteration, entries);
    const sum = this.replica.checksum();
    const signed = sign(this.lastHash, sum);
    const entry = chained(signed);
    this.record(entry, sum);
    this.audit(entry);
    return signed;
  }

  /**
   * One-step fork choice, for a commit of the iteration we applied last. Two valid commits for
   * one iteration can exist (two nodes that each believed they were the proposer at the start of
   * a chain, or a fallback racing a slow primary). Every node keeps the better one by the same
   * rule: lower verified rank, then lower hash. A node that applied the worse one rolls back one
   * iteration and applies the better one (checked by applying like any other); deeper forks are
   * never resolved here. True when it switched and applied a commit.
   */
  switchTo(received: EncodedCommit): boolean {
    const { commit } = received;
    const last = this.history.last();
    const prev = this.prev;
    if (!last || !prev || last.commit.iteration !== commit.iteration || !equalBytes(commit.prevHash, prev.hash)) return false;
    const hash = chained(received).hash;
    if (equalBytes(hash, last.hash)) return false;
    if (!this.checks.admissionHolds(received, prev.admission)) return false;
    if (commit.proposer === last.commit.proposer) this.hooks.equivocation(commitEquivocation(last, received));
    if (!isBetter(commit, hash, last.commit, last.hash)) return false;
    this.hooks.rollingBack();
    this.history.undoLast(this.replica.iteration);
    this.rollBack(commit.iteration);
    this.hooks.onEvent({
      kind: "switched",
      iteration: commit.iteration,
      proposer: commit.proposer,
      rank: commit.rank,
      reason: betterBecause(commit, last.commit),
    });
    // The better commit's checksum is a lie: back to the commit we had (it verified before).
    return this.apply(received) || this.apply(last);
  }

  /** Why one of a commit's payloads can never be applied (the algorithm's check), or null. */
  private payloadProblem(commit: Commit): string | null {
    for (const [i, e] of commit.entries.entries()) {
      const problem = this.run.algorithm.payloadProblem(e.payload, commit.iteration);
      if (problem) return `entries[${i}]: ${problem}`;
    }
    return null;
  }

  /**
   * Applies entries onto the state just remembered; should the algorithm throw anyway, the state
   * goes back to the tip's (the remembered one) before the error goes on, so the replica never
   * holds half a commit. The one-step rollback to the commit before is lost then (its buffer was
   * reused), which is why every payload is checked before remember().
   */
  private applyOrUndo(iteration: number, entries: readonly SignedContribution[]): void {
    try {
      this.replica.applyIteration(this.run.algorithm, entries);
    } catch (err) {
      const prev = this.prev;
      if (prev) {
        this.replica.reset(prev.weights, iteration);
        this.prev = null;
      }
      throw err;
    }
  }

  /** Remembers the state before applying a commit, for a one-step fork switch. */
  private remember(): void {
    if (this.prev) this.prev.weights.set(this.replica.weights);
    this.prev = { weights: this.prev?.weights ?? this.replica.weights.slice(), hash: this.lastHash, authors: this.lastAuthors, admission: this.nextAdmission };
  }

  /**
   * Back to the state before the last applied commit (the replica at `iteration`, the tip it
   * was at), once: the history is the caller's (a switch drops its last commit, a refused
   * commit was never recorded).
   */
  private rollBack(iteration: number): void {
    const prev = this.prev;
    if (!prev) return;
    this.replica.reset(prev.weights, iteration);
    this.lastHash = prev.hash;
    this.lastAuthors = prev.authors;
    this.nextAdmission = prev.admission;
    this.prev = null;
  }

  /** Audits one entry of a commit just applied (verified), on the state it was applied to. */
  private audit(entry: ChainedCommit): void {
    if (this.audits && this.prev) this.audits.afterApply(entry, this.prev.weights);
  }

  /** The commit is the tip now: the checks, the history and the rounds learn it. */
  private record(entry: ChainedCommit, sum: string): void {
    const { commit, hash } = entry;
    // The admission this commit was checked against is the one before it moves.
    const passed = passedOverBy(this.nextAdmission, commit);
    if (passed) {
      this.passedOver.set(toHex(hash), passed);
    }
    this.checks.noteApplied(commit);
    this.lastHash = hash;
    this.lastAuthors = commit.entries.map((e) => e.author.id);
    this.history.record(entry, this.replica.iteration, sum);
    this.nextAdmission = this.admit(this.lastAuthors);
    this.hooks.applied(commit, sum);
  }
}
