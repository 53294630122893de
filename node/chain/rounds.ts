/**
 * Rounds and agreement (brief section 5). One iteration t:
 *
 *   every node at head t ──contribution(t)──▶ gossip
 *   proposer of t (lowest H(runId, t, peer) among the authors of commit t-1)
 *        waits until it holds a contribution from each of them, or until 0.5 x roundTimeout,
 *        then applies and publishes commit(t) = {prevHash, entries in timestamp order, checksum}
 *   every node applies commit(t) when its prevHash is the hash of the commit it applied last
 *   fallback: rank r (r >= 1) publishes its own commit at (0.5 + 0.25 r) x roundTimeout when no
 *        commit for t has arrived; any node does at (0.5 + 0.25 (n + 1)) x roundTimeout
 *
 * Nodes apply commits only, in chain order, so every honest node applies the same contributions
 * in the same (timestamp) order. A dead author is missing from commit t and so from the waits of
 * t + 1: it costs at most one 0.5 x roundTimeout wait; a dead primary proposer is replaced by rank
 * 1 at 0.75 x roundTimeout.
 *
 * The verified chain (issue 11; docs/security.md): a commit is valid by local checks alone.
 *   - every contribution is signed by its author over (runId, t, parentHash, joinedAt, payload),
 *     parentHash = the hash of commit t-1 it was measured on; a proposer can only include
 *     contributions made on the commit it chains to, and cannot invent, alter or re-parent one;
 *   - every commit is signed by its proposer; its rank and exclusions are checked against the
 *     chain (commit-checks.ts);
 *   - the checksum is verified by applying: when ours differs, we check our pre-state against
 *     the previous commit's checksum. If that holds, the update is deterministic, so the proposer
 *     lied: the commit is rejected (state rolled back, proposer penalised) and the fallback rank
 *     commits; if not, we are the corrupted one ("diverged": repair);
 *   - fork choice between two valid commits for one iteration and prevHash: lower rank, then
 *     lower hash (the same proposer signing both is equivocation, kept as evidence); never the
 *     entry count; within the one-step window only;
 *   - a commit for a later iteration is a hint (the daemon fetches and verifies what leads to
 *     it), never a reason to stop proposing.
 * A commit chained to a commit we did not apply means divergence: the node asks to be repaired.
 *
 * This class owns no sockets: the daemon feeds it decoded, validated messages and gives it the
 * publish functions, so it can be driven in tests without a network.
 */
import { equalBytes, fromHex, toHex } from "../../protocol/bytes.js";
import type { ContributionMessage } from "../../protocol/codec.js";
import type { Weights } from "../../training/params.js";
import type { Replica } from "../../training/replica.js";
import type { Author } from "../../training/rng/seeds.js";
import type { TrainingRun } from "../../training/run-context.js";
import type { Logger } from "../observe/logger.js";
import {
  betterBecause,
  type ChainedCommit,
  chained,
  type Commit,
  type EncodedCommit,
  isBetter,
  proposerOrder,
  rankOf,
  type SignedContribution,
  ZERO_HASH,
} from "./commit.js";
import { signCommit } from "./commit-wire.js";
import type { Audits } from "./audits.js";
import { type CheckEvent, CommitChecks } from "./commit-checks.js";
import { Contributor, type Tamper } from "./contributor.js";
import { LateAuthors } from "./late-authors.js";
import { commitEquivocation, type Equivocation, EvidenceStore } from "./evidence.js";
import type { Signer } from "./signatures.js";
import { AppliedHistory } from "./applied-history.js";
import { RoundInbox } from "./round-inbox.js";
import { StallWatch } from "./stall-watch.js";

export interface RoundsTransport {
  /** Publishes this node's signed contribution. */
  publishContribution(m: ContributionMessage): Promise<void>;
  /** Publishes an encoded, signed commit. */
  publishCommit(encoded: Uint8Array): Promise<void>;
  /** Signs with this node's identity key (the key of `self.id`). */
  sign: Signer;
}

export interface RoundsOptions {
  /** Milliseconds; the proposer's wait is half of it, fallbacks step by a quarter. */
  readonly roundTimeoutMs: number;
  /** Stop after applying this many iterations (the run length by default). */
  readonly stopAt: number;
  /** Compute and publish contributions (false for a node that only follows). */
  readonly contribute: boolean;
  /**
   * Test fault `byzantine:<mode>` (ops/fault-hooks.ts): what this node sends instead of its honest
   * payload; `other` measures the payload of another author (another batch and direction).
   */
  readonly tamper?: Tamper;
}

export type RoundsEvent =
  | {
      kind: "applied";
      iteration: number;
      checksum: string;
      contributions: number;
      rank: number;
      ms: number;
    }
  | { kind: "diverged"; iteration: number; reason: string; unchained?: EncodedCommit }
  /** This node would have proposed `iteration`, but it holds a verified commit past it. */
  | { kind: "behind"; iteration: number; peersHead: number }
  /** A commit rejected by the chain rules, an author excluded (commit-checks.ts). */
  | CheckEvent
  /** Two signed messages one signer must never sign both of (see evidence.ts). */
  | { kind: "equivocation"; evidence: Equivocation }
  /** A validly signed commit for a later iteration: a hint to fetch what leads to it, nothing more. */
  | { kind: "ahead"; iteration: number; proposer: string }
  /**
   * The process did not run for longer than a round deadline (see stall-watch.ts): the rounds
   * proposed nothing; the daemon must verify with peers that `iteration` is still open first.
   */
  | { kind: "stalled"; iteration: number; gapMs: number }
  /**
   * A one-step fork switch: the commit applied at `iteration` is being rolled back for a better
   * one (by `proposer`, at `rank`; `reason`: which rule made it better), applied next.
   */
  | { kind: "switched"; iteration: number; proposer: string; rank: number; reason: string }
  | { kind: "done"; iteration: number };

export class Rounds {
  private lastHash: Uint8Array = ZERO_HASH;
  /** Authors of the last applied commit: next round's expected contributors and proposers. */
  private lastAuthors: string[] = [];
  /** proposers(t) for the current author list (replaced, never changed in place, on each commit). */
  private order: { t: number; authors: readonly string[]; order: readonly string[] } | null = null;
  /** Authors whose contribution missed its commit: waited for in the next two rounds. */
  private readonly late = new LateAuthors();
  /** Contributions and early commits for rounds not applied yet (bounded). */
  private readonly inbox = new RoundInbox((e) => this.equivocation(e));
  /** Equivocation evidence this node holds (bounded). */
  readonly evidence = new EvidenceStore();
  private timers: NodeJS.Timeout[] = [];
  private roundStart = 0;
  /**
   * The highest iteration some peer is known to have applied (heartbeats, early commits). While
   * it is past our head, commits for our head exist: proposing one would fork the chain.
   */
  private peersHead = 0;
  private stopped = false;
  private proposing = false;
  private active = false;
  /** State before the last applied commit (see maybeSwitch). */
  private prev: { weights: Weights; hash: Uint8Array; authors: string[] } | null = null;
  /** Commits applied and the checksums after them (the commit log served to joiners). */
  private readonly history: AppliedHistory;
  /** Whether this process slept past a deadline since it last ran (checked before proposing). */
  private readonly stall: StallWatch;
  /** The iteration a pre-proposal self-check last failed at (reported once). */
  private divergedAt = -1;
  /** Our contribution, signed once per (iteration, parent) slot. */
  private readonly contributor: Contributor;
  /** Audits by recomputation of the commits we apply (none: no audits). */
  private audits: Audits | null = null;
  /** The chain's rules on what a commit may hold; what they refused. */
  private readonly checks: CommitChecks;

  constructor(
    private readonly self: Author,
    private readonly run: Pick<TrainingRun, "runId" | "algorithm">,
    private readonly replica: Replica,
    private readonly transport: RoundsTransport,
    private readonly opts: RoundsOptions,
    private readonly logger: Logger,
    private readonly onEvent: (e: RoundsEvent) => void = () => {},
  ) {
    this.history = new AppliedHistory(replica.iteration, replica.checksum());
    this.checks = new CommitChecks(run.runId, this.history, logger, onEvent);
    this.contributor = new Contributor(self, run, replica, transport.sign, opts.tamper);
    this.stall = new StallWatch(opts.roundTimeoutMs, (gapMs) => {
      if (this.isActive) this.onEvent({ kind: "stalled", iteration: this.head, gapMs });
    });
  }

  /** Audits this node's applied commits and checks the exclusions commits record. */
  useAudits(audits: Audits): void {
    this.audits = audits;
    this.checks.useAudits(audits);
  }

  /** True when a commit this node applied excluded `peer` (a peer id string). */
  isExcluded(peer: string): boolean {
    return this.checks.isExcluded(peer);
  }

  /** True when the commit with this hash was refused here for its exclusions (commit-checks.ts). */
  refusedForExclusions(hash: Uint8Array): boolean {
    return this.checks.refusedForExclusions(hash);
  }

  /** The commit of our chain for `iteration`, while kept. */
  commitAt(iteration: number): ChainedCommit | undefined {
    return this.history.commitAt(iteration);
  }

  /** Next iteration to apply. */
  get head(): number {
    return this.replica.iteration;
  }

  /** Hash of the last applied commit. */
  get headHash(): Uint8Array {
    return this.lastHash;
  }

  /** Our checksum after `iteration` applied iterations, while it is recent enough to be kept. */
  checksumAt(iteration: number): string | undefined {
    return this.history.checksumAt(iteration);
  }

  /** The last commit applied (none before the first, or right after a snapshot without anchor). */
  lastApplied(): ChainedCommit | undefined {
    return this.history.last();
  }

  /** The commits applied and kept, oldest first (a copy). */
  appliedCommits(): readonly ChainedCommit[] {
    return this.history.all();
  }

  /** The encoded commits from `from` on, at most `max` of them (what the commits protocol serves). */
  commitsFrom(from: number, max: number): Uint8Array[] {
    return this.history.encodedFrom(from, max);
  }

  /** After a restart: the commits before our head, read back from the commit log file. */
  restoreLog(commits: readonly EncodedCommit[]): void {
    this.history.restore(commits);
  }

  /** Continue a chain after a snapshot or checkpoint: the state is at `head` after `hash`. */
  resumeChain(hash: Uint8Array, authors: string[]): void {
    this.lastHash = hash;
    this.lastAuthors = authors;
  }

  /**
   * Jumps to a snapshot: the state after `iteration` applied iterations. `anchor` is the commit
   * that produced it (its hash is what the next commit chains to); null when no peer served it,
   * and then the first replayed commit sets the chain (see resumeChain).
   */
  jumpTo(
    weights: Weights,
    iteration: number,
    checksum: string,
    anchor: EncodedCommit | null,
  ): void {
    this.clearTimers();
    this.replica.reset(weights, iteration);
    // Nothing before the snapshot can be rolled back to or served as our chain any more.
    this.prev = null;
    const entry = anchor ? chained(anchor) : null;
    this.history.jumpTo(iteration, checksum, entry);
    this.inbox.dropPendingBefore(iteration);
    if (anchor && entry) {
      this.resumeChain(entry.hash, anchor.commit.entries.map((e) => e.author.id));
    } else {
      this.resumeChain(ZERO_HASH, []);
    }
  }

  /** What is held for iterations not yet applied (bounded by ROUND_CAPS). */
  held(): { contributions: number; commits: number } {
    return this.inbox.held();
  }

  /**
   * This node holds a verified commit past `iteration - 1`: some peer applied it. Only for
   * proof (a commit that verified against our chain), never for a claim such as a heartbeat.
   */
  notePeerHead(iteration: number): void {
    if (iteration > this.peersHead) this.peersHead = iteration;
  }

  /** Forgets what peers reported (after a catch-up): later heartbeats report afresh. */
  forgetPeersHead(): void {
    this.peersHead = 0;
  }

  /** True when some peer is known to be past our head: we are behind and must not propose. */
  get behind(): boolean {
    return this.peersHead > this.head;
  }

  /** Begins the round at the current head: contributes and proposes from now on. */
  start(): void {
    this.stopped = false;
    this.active = true;
    this.stall.start();
    this.beginRound();
  }

  /** Applies commits fed to it without contributing or proposing (catching up). */
  follow(): void {
    this.stopped = false;
    this.active = false;
    this.clearTimers();
  }

  /** True while contributing and proposing. */
  get isActive(): boolean {
    return this.active && !this.stopped;
  }

  stop(): void {
    this.stopped = true;
    this.active = false;
    this.stall.stop();
    this.clearTimers();
  }

  /**
   * `author` contributed for `iteration`, already committed: wait for it in the next two rounds
   * (if it is not a member already and not hopelessly far behind).
   */
  noteLate(author: string, iteration: number): void {
    this.late.note(author, iteration, this.head, this.lastAuthors);
  }

  /**
   * A contribution whose signature verified (gossip validation), made for `iteration` on the
   * commit `parentHash`. Only those made on the commit we chain to can enter our commit; others
   * are kept (bounded) in case a one-step fork switch makes their parent ours. Two valid ones
   * from one author for one (iteration, parent) that differ are equivocation.
   */
  onContribution(c: SignedContribution, iteration: number, parentHash: Uint8Array): void {
    if (this.checks.isExcluded(c.author.id)) return;
    if (iteration < this.head) {
      // Too late for its commit: wait for this author next round. A joiner, or a node that was
      // behind, contributes for an iteration already committed; waiting for it once (at most
      // 0.5 x roundTimeout) lets it catch up and be included, instead of chasing a fast swarm.
      this.noteLate(c.author.id, iteration);
      return;
    }
    if (this.inbox.addContribution(c, iteration, parentHash, this.head) !== "held") return;
    if (iteration === this.head && !equalBytes(parentHash, this.lastHash))
      this.logger.debug({ iteration, author: c.author.id, parent: toHex(parentHash).slice(0, 12), ours: toHex(this.lastHash).slice(0, 12) }, "contribution on another parent");
    if (iteration === this.head) this.maybeProposeEarly();
  }

  /** The contributions for `t` made on the commit we chain to, by author. */
  private usable(t: number): Map<string, SignedContribution> {
    return this.inbox.usable(t, this.lastHash);
  }

  private equivocation(evidence: Equivocation): void {
    if (!this.evidence.add(evidence)) return;
    this.logger.warn(
      { kind: evidence.kind, signer: evidence.signer, iteration: evidence.iteration, parent: toHex(evidence.parentHash).slice(0, 12) },
      "equivocation: two signed messages for one slot",
    );
    this.onEvent({ kind: "equivocation", evidence });
  }

  /**
   * A commit whose signatures verified (gossip validation, or commitFromBytes for the commits
   * protocol and fork resolution: the same check). Here, what needs the chain: its run, its
   * rank against the authors of the commit it chains to, and its checksum, by applying it.
   */
  onCommit(received: EncodedCommit): void {
    if (this.stopped) return;
    const { commit } = received;
    // Another run's commit (served over /commits: gossip validation already drops them) is no
    // fault of its signer, who may be honest in that run: ignored, nobody charged.
    if (commit.runId !== this.run.runId) return;
    if (this.checks.refused(chained(received).hash)) return;
    if (commit.iteration === this.head - 1) {
      this.maybeSwitch(received);
      return;
    }
    if (commit.iteration < this.head) return;
    if (commit.iteration > this.head) {
      // A commit for a later iteration cannot be verified yet (its rank needs the commit before
      // it): kept for its turn, and a hint to fetch what leads to it. Never "behind" on it.
      if (this.inbox.addPendingCommit(received) !== "held") return;
      this.onEvent({ kind: "ahead", iteration: commit.iteration, proposer: commit.proposer });
      return;
    }
    if (!equalBytes(commit.prevHash, this.lastHash)) {
      this.onEvent({
        kind: "diverged",
        iteration: commit.iteration,
        reason: "commit chained to a commit this node did not apply",
        unchained: received,
      });
      return;
    }
    if (!this.checks.rankHolds(received, this.lastAuthors)) return;
    this.apply(received);
  }

  /**
   * One-step fork choice. Two valid commits for one iteration can exist (two nodes that each
   * believed they were the proposer at the start of a chain, or a fallback racing a slow
   * primary). Every node keeps the better one by the same rule: lower verified rank, then lower
   * hash. A node that applied the worse one rolls back one iteration and applies the better one
   * (checked by applying like any other); deeper forks are never resolved here.
   */
  private maybeSwitch(received: EncodedCommit): void {
    const { commit } = received;
    const last = this.history.last();
    const prev = this.prev;
    if (!last || !prev || last.commit.iteration !== commit.iteration || !equalBytes(commit.prevHash, prev.hash)) return;
    const hash = chained(received).hash;
    if (equalBytes(hash, last.hash)) return;
    if (!this.checks.rankHolds(received, prev.authors)) return;
    if (commit.proposer === last.commit.proposer) this.equivocation(commitEquivocation(last, received));
    if (!isBetter(commit, hash, last.commit, last.hash)) return;
    this.clearTimers();
    this.history.undoLast(this.replica.iteration);
    this.replica.reset(prev.weights, commit.iteration);
    this.lastHash = prev.hash;
    this.lastAuthors = prev.authors;
    this.prev = null;
    this.onEvent({
      kind: "switched",
      iteration: commit.iteration,
      proposer: commit.proposer,
      rank: commit.rank,
      reason: betterBecause(commit, last.commit),
    });
    // The better commit's checksum is a lie: back to the commit we had (it verified before).
    if (!this.apply(received)) this.apply(last);
  }

  private clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }

  /** Remembers the state before applying a commit, for a one-step fork switch. */
  private rememberPrev(): void {
    if (this.prev) this.prev.weights.set(this.replica.weights);
    this.prev = { weights: this.prev?.weights ?? this.replica.weights.slice(), hash: this.lastHash, authors: this.lastAuthors };
  }

  /**
   * Authors the round waits for: last commit's authors, those whose contribution to the last
   * iteration came too late to be included (a joiner), and this node.
   */
  private expected(): string[] {
    const set = new Set([...this.lastAuthors, ...this.late.recent(this.head)]);
    if (this.opts.contribute) set.add(this.self.id);
    return [...set];
  }

  /**
   * Who may propose iteration t, best first. Normally the authors of the last commit (a set
   * every node agrees on); at the start of a chain, the contributors this node has seen.
   */
  private proposers(t: number): readonly string[] {
    if (this.lastAuthors.length > 0) {
      // Asked on every contribution that arrives: kept for (t, the last commit's author list).
      const o = this.order;
      if (o && o.t === t && o.authors === this.lastAuthors) return o.order;
      const order = proposerOrder(this.run.runId, t, this.lastAuthors);
      this.order = { t, authors: this.lastAuthors, order };
      return order;
    }
    const seen = [...this.usable(t).keys()];
    return proposerOrder(this.run.runId, t, this.opts.contribute ? [...seen, this.self.id] : seen);
  }

  /**
   * Starts the next round on a later tick: a lone node would otherwise recurse round after round
   * (contribute -> propose -> apply -> contribute) without ever yielding to I/O.
   */
  private nextRound(): void {
    const t = this.head;
    setImmediate(() => {
      if (this.head === t) this.beginRound();
    });
  }

  private beginRound(): void {
    this.clearTimers();
    if (this.stopped) return;
    if (this.head >= this.opts.stopAt) {
      this.onEvent({ kind: "done", iteration: this.head });
      return;
    }
    const t = this.head;
    this.roundStart = performance.now();
    this.inbox.dropContributionsBefore(t);
    if (!this.active) {
      for (const c of this.inbox.takePending(t)) if (this.head === t) this.onCommit(c);
      return;
    }
    if (this.opts.contribute) this.contribute(t);
    this.scheduleTick(t, 0);
    // Commits that arrived early for this iteration.
    for (const c of this.inbox.takePending(t)) if (this.head === t) this.onCommit(c);
    if (this.head === t) this.maybeProposeEarly();
  }

  /** Computes, signs (over the commit we chain to) and publishes this node's contribution for t. */
  private contribute(t: number): void {
    this.stall.check();
    const work = this.stall.begin();
    const m = this.contributor.contribute(t, this.lastHash);
    if (!m) {
      this.logger.debug({ iteration: t }, "already contributed to this slot; not signing another");
      return;
    }
    this.onContribution({ author: this.self, payload: m.payload, signature: m.signature }, t, m.parentHash);
    this.transport
      .publishContribution(m)
      .catch((err) => this.logger.warn({ err, iteration: t }, "contribution publish failed"));
    this.stall.worked(work);
  }

  /** Tick k fires at (0.5 + 0.25 k) x roundTimeout: rank k and better may propose from then on. */
  private scheduleTick(t: number, k: number): void {
    const due = (0.5 + 0.25 * k) * this.opts.roundTimeoutMs - (performance.now() - this.roundStart);
    this.timers.push(
      setTimeout(
        () => {
          if (this.stopped || this.head !== t) return;
          const order = this.proposers(t);
          const rank = order.indexOf(this.self.id);
          const mayPropose = (rank >= 0 && rank <= k) || (k > order.length && this.opts.contribute);
          if (mayPropose && this.propose(t, k)) return;
          this.scheduleTick(t, k + 1);
        },
        Math.max(0, due),
      ),
    );
  }

  /** The primary proposer commits as soon as every expected author has contributed. */
  private maybeProposeEarly(): void {
    if (!this.isActive || this.lastAuthors.length === 0) return;
    const t = this.head;
    if (this.proposers(t)[0] !== this.self.id) return;
    const have = this.usable(t);
    if (this.expected().every((a) => have.has(a))) this.propose(t, 0);
  }

  /**
   * Commits iteration t with the usable contributions held, at the rank this node holds (never
   * above `maxRank`, the tick's); false when it holds none or may not propose.
   */
  private propose(t: number, maxRank: number): boolean {
    if (!this.isActive || this.head !== t || this.proposing) return false;
    // Slept past a deadline: t may be committed already; the daemon checks with peers first.
    if (this.stall.check()) return false;
    if (this.behind) {
      // A verified commit past t exists: a commit of ours would fork. The daemon catches up instead.
      this.onEvent({ kind: "behind", iteration: t, peersHead: this.peersHead });
      return false;
    }
    const { entries, exclusions } = this.checks.proposal(t, this.usable(t).values());
    if (entries.length === 0) return false;
    const eligible = this.lastAuthors.length > 0 ? this.lastAuthors : null;
    const rank = rankOf(this.run.runId, t, eligible, this.self.id, entries.map((e) => e.author.id));
    if (rank === null || rank > maxRank) return false;
    // Never sign a checksum over a state the chain does not vouch for (a flipped bit since the
    // last apply): honest peers would reject the commit as a lie, and our own chain would fork
    // from theirs. Once per iteration, "diverged" hands the node to repair instead.
    const before = this.history.checksumBefore(t);
    if (before !== undefined && this.replica.checksum() !== before) {
      if (this.divergedAt !== t) {
        this.divergedAt = t;
        this.onEvent({ kind: "diverged", iteration: t, reason: "our state before proposing does not match the verified chain" });
      }
      return false;
    }
    this.proposing = true;
    try {
      this.rememberPrev();
      this.replica.applyIteration(this.run.algorithm, entries);
      const sum = this.replica.checksum();
      const commit: Commit = {
        runId: this.run.runId,
        iteration: t,
        prevHash: this.lastHash,
        entries,
        checksum: fromHex(sum),
        rank,
        proposer: this.self.id,
        ...(exclusions.length > 0 ? { exclusions } : {}),
      };
      const signed = signCommit(commit, this.transport.sign);
      const entry = chained(signed);
      this.recordApplied(entry, sum);
      this.audit(entry);
      this.transport
        .publishCommit(signed.encoded)
        .catch((err) => this.logger.warn({ err, iteration: t }, "commit publish failed"));
    } finally {
      this.proposing = false;
    }
    this.nextRound();
    return true;
  }

  /**
   * Applies a commit whose rank holds and that chains to our head, verifying its checksum by the
   * result. False when it was rejected as a lie (state rolled back, nothing recorded).
   */
  private apply(received: EncodedCommit): boolean {
    const { commit } = received;
    if (!this.checks.exclusionsHold(received)) return false;
    this.rememberPrev();
    // A stall is reported before the work that follows it, which then counts as work, not sleep.
    this.stall.check();
    const work = this.stall.begin();
    this.replica.applyIteration(this.run.algorithm, commit.entries);
    this.stall.worked(work);
    const sum = this.replica.checksum();
    if (toHex(commit.checksum) !== sum) {
      const prev = this.prev;
      if (prev && this.checks.proposerLied(commit.iteration, prev.weights)) {
        // Our pre-state is the verified one and the update is deterministic: the proposer lied.
        // Every honest node reaches this same verdict alone; the fallback rank commits instead.
        this.replica.reset(prev.weights, commit.iteration);
        this.prev = null;
        this.checks.reject(received, `checksum ${toHex(commit.checksum).slice(0, 12)} is not the result ${sum.slice(0, 12)}`);
        return false;
      }
      // Our own state was wrong before this commit: we are the corrupted one. Repair.
      this.recordApplied(chained(received), sum);
      this.onEvent({
        kind: "diverged",
        iteration: commit.iteration,
        reason: `checksum after applying ${sum.slice(0, 12)} != proposer's ${toHex(commit.checksum).slice(0, 12)}, and our state before it did not match the chain`,
      });
      this.nextRound();
      return true;
    }
    const entry = chained(received);
    this.recordApplied(entry, sum);
    this.audit(entry);
    this.nextRound();
    return true;
  }

  /** Audits one entry of a commit just applied (verified), on the state it was applied to. */
  private audit(entry: ChainedCommit): void {
    if (this.audits && this.prev) this.audits.afterApply(entry, this.prev.weights);
  }

  private recordApplied(entry: ChainedCommit, sum: string): void {
    const { commit, hash } = entry;
    this.checks.noteApplied(commit);
    this.lastHash = hash;
    this.lastAuthors = commit.entries.map((e) => e.author.id);
    this.late.afterCommit(commit.iteration, new Set(this.lastAuthors), this.inbox.authorsAt(commit.iteration));
    this.history.record(entry, this.replica.iteration, sum);
    const ms = performance.now() - this.roundStart;
    this.onEvent({
      kind: "applied",
      iteration: this.replica.iteration,
      checksum: sum,
      contributions: commit.entries.length,
      rank: commit.rank,
      ms,
    });
    const stageAt = this.run.algorithm.stageAt?.bind(this.run.algorithm);
    if (stageAt && commit.iteration > 0 && stageAt(commit.iteration) !== stageAt(commit.iteration - 1))
      this.logger.info({ iteration: commit.iteration, stage: stageAt(commit.iteration) }, "stage switched");
  }
}
