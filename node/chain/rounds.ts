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
 * in the same (timestamp) order. A dead author costs at most one 0.5 x roundTimeout wait (it is
 * missing from the next commit's authors); a dead primary is replaced by rank 1 at 0.75 x roundTimeout.
 *
 * The verified chain (issue 11; docs/security.md; docs/architecture.md "The verified chain"): a
 * commit is valid by local checks alone: signed contributions made on our chain, a signed commit
 * whose rank and exclusions hold (commit-checks.ts), its checksum verified by applying it
 * (chain-tip.ts); fork choice by lower rank, then lower hash; a later commit is only a hint.
 * Pipelined rounds (RunSpec `staleness`, contribution-slots.ts): a node also fills the slots up to
 * `staleness` iterations past its head, measured on its tip, while commits are in flight.
 *
 * This class owns no sockets: the daemon feeds it decoded, validated messages and gives it the
 * publish functions, so it can be driven in tests without a network. Out of it: the chain's tip
 * and its moves (chain-tip.ts), who may propose and when (proposer-schedule.ts), our own commit
 * (proposer.ts), the events it reports (rounds-event.ts).
 */
import { equalBytes, toHex } from "../../protocol/bytes.js";
import type { CommitMessage } from "../../protocol/codec.js";
import type { Weights } from "../../training/params.js";
import type { Replica } from "../../training/replica.js";
import type { Author } from "../../training/rng/seeds.js";
import type { TrainingRun } from "../../training/run-context.js";
import type { Logger } from "../ground/index.js";
import { chained, type Commit, type EncodedCommit, type SignedContribution } from "./commit.js";
import type { Audits } from "./audits.js";
import { ChainTip } from "./chain-tip.js";
import { CommitChecks } from "./commit-checks.js";
import { Contributor } from "./contributor.js";
import type { RoundsOptions } from "./rounds-options.js";
import type { RoundsTransport } from "./rounds-transport.js";
import { LateAuthors } from "./late-authors.js";
import { LeftOutWatch } from "./left-out-watch.js";
import { type Equivocation, EvidenceStore } from "./evidence.js";
import { AppliedHistory, type KeptCommit } from "./applied-history.js";
import { Proposer } from "./proposer.js";
import { ProposerSchedule } from "./proposer-schedule.js";
import { RoundInbox } from "./round-inbox.js";
import { ContributionSlots } from "./contribution-slots.js";
import type { RoundsEvent } from "./rounds-event.js";
import { StallWatch } from "./stall-watch.js";

export type { RoundsEvent } from "./rounds-event.js";
export type { RoundsOptions } from "./rounds-options.js";
export type { RoundsTransport } from "./rounds-transport.js";

export class Rounds {
  /** Authors whose contribution missed its commit: waited for in the next two rounds. */
  private readonly late: LateAuthors;
  /** Contributions and early commits for rounds not applied yet (bounded). */
  private readonly inbox = new RoundInbox((e) => this.equivocation(e), (a) => this.late.isMember(a, this.head));
  /** Equivocation evidence this node holds (bounded). */
  readonly evidence = new EvidenceStore();
  /**
   * The highest iteration some peer is known to have applied (heartbeats, early commits). While
   * it is past our head, commits for our head exist: proposing one would fork the chain.
   */
  private peersHead = 0;
  /** Whether our contributions get into the commits we apply (the "left out" report). */
  private readonly leftOut = new LeftOutWatch();
  private stopped = false;
  private active = false;
  /** Commits applied and the checksums after them (the commit log served to joiners). */
  private readonly history: AppliedHistory;
  /** Whether this process slept past a deadline since it last ran (checked before proposing). */
  private readonly stall: StallWatch;
  /** Our contribution, signed once per (iteration, parent) slot. */
  private readonly contributor: Contributor;
  /** The chain's rules on what a commit may hold; what they refused. */
  private readonly checks: CommitChecks;
  /** The last applied commit's hash and authors, the state before it; applying moves it. */
  private readonly tip: ChainTip;
  /** Who may propose the open iteration, and from when. */
  private readonly schedule: ProposerSchedule;
  /** Our own commit, when the schedule says we may propose. */
  private readonly proposer: Proposer;
  /** Which states a contribution may be measured on, and which slot we fill next. */
  private readonly slots: ContributionSlots;

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
    this.late = new LateAuthors(opts.roundTimeoutMs);
    this.checks = new CommitChecks({ runId: run.runId, self: self.id, auditable: run.algorithm.audit !== undefined, staleness: opts.staleness ?? 0, seats: opts.seats }, this.history, logger, onEvent);
    this.contributor = new Contributor(self, run, replica, transport.sign, opts.tamper);
    this.stall = new StallWatch(opts.roundTimeoutMs, (gapMs) => {
      if (this.isActive) this.onEvent({ kind: "stalled", iteration: this.head, gapMs });
    });
    this.tip = new ChainTip(run, replica, this.history, this.checks, this.stall, {
      applied: (c, sum) => this.applied(c, sum),
      rollingBack: () => this.schedule.clear(),
      equivocation: (e) => this.equivocation(e),
      onEvent,
    });
    this.schedule = new ProposerSchedule(
      { runId: run.runId, self: self.id, roundTimeoutMs: opts.roundTimeoutMs, contribute: opts.contribute },
      this.tip,
      this.late,
      (t) => this.usable(t).keys(),
    );
    this.slots = new ContributionSlots(opts.staleness ?? 0, {
      head: () => this.head,
      tipHash: () => this.tip.hash,
      hashAt: (i) => this.history.hashAt(i),
    });
    this.proposer = new Proposer({
      self: self.id,
      run,
      replica,
      history: this.history,
      checks: this.checks,
      tip: this.tip,
      sign: transport.sign,
      publish: (encoded) => transport.publishCommit(encoded),
      logger,
      onEvent,
    });
  }

  /** Audits this node's applied commits and checks the exclusions commits record. */
  useAudits(audits: Audits): void {
    this.tip.useAudits(audits);
    this.checks.useAudits(audits);
  }

  /** True when a commit this node applied excluded `peer` (a peer id string). */
  isExcluded(peer: string): boolean { return this.checks.isExcluded(peer); }
  /** Whether `author` is a member of the chain at our head (admission.ts): an author of its last commits; gossip's budgets spare members. */
  isMember(author: string): boolean { return this.tip.admission.members.has(author); }
  /** Why a commit breaks its admission where this node knows it (CommitChecks.gossipProblem; gossip asks before its entries' signatures). */
  commitProblem(m: CommitMessage, proposer: string): string | null { return this.checks.gossipProblem(m, proposer, { head: this.head, hash: this.tip.hash, admission: this.tip.admission, before: this.tip.before }); }
  /** The chain behind an adopted snapshot (sync/chain-behind.ts): kept before its anchor; the authors it excluded, out. */
  addChainBehind(commits: readonly EncodedCommit[], excluded: readonly string[]): void {
    this.history.prepend(commits);
    this.checks.inherit(excluded);
    // The commits behind the anchor complete the window of the next round's admission.
    this.tip.resume(this.tip.hash, [...this.tip.authors]);
  }

  /** True when the commit with this hash was refused here for its exclusions (commit-checks.ts). */
  refusedForExclusions(hash: Uint8Array): boolean { return this.checks.refusedForExclusions(hash); }

  /** The commit of our chain for `iteration`, while kept. */
  commitAt(iteration: number): KeptCommit | undefined { return this.history.commitAt(iteration); }

  /** Next iteration to apply. */
  get head(): number {
    return this.replica.iteration;
  }

  /** Hash of the last applied commit. */
  get headHash(): Uint8Array {
    return this.tip.hash;
  }

  /** Our checksum after `iteration` applied iterations, while it is recent enough to be kept. */
  checksumAt(iteration: number): string | undefined { return this.history.checksumAt(iteration); }

  /** The last commit applied (none before the first, or right after a snapshot without anchor). */
  lastApplied(): KeptCommit | undefined { return this.history.last(); }

  /** The commits applied and kept, oldest first (a copy). */
  appliedCommits(): readonly KeptCommit[] { return this.history.all(); }

  /** The encoded commits from `from` on, at most `max` of them (what the commits protocol serves). */
  commitsFrom(from: number, max: number): Uint8Array[] {
    return this.history.encodedFrom(from, max);
  }

  /** After a restart: the commits before our head, read back from the commit log file. */
  restoreLog(commits: readonly EncodedCommit[]): void {
    this.history.restore(commits);
    // The restored commits are the window the next round's admission is computed from.
    this.tip.resume(this.tip.hash, [...this.tip.authors]);
  }

  /** Continue a chain after a snapshot or checkpoint: the state is at `head` after `hash`. */
  resumeChain(hash: Uint8Array, authors: string[]): void {
    this.tip.resume(hash, authors);
  }

  /**
   * Jumps to a snapshot: the state after `iteration` applied iterations. `anchor` is the commit
   * that produced it (its hash is what the next commit chains to); null when no peer served it,
   * and then the first replayed commit sets the chain (see resumeChain).
   */
  jumpTo(weights: Weights, iteration: number, checksum: string, anchor: EncodedCommit | null): void {
    this.schedule.clear();
    this.tip.jumpTo(weights, iteration, checksum, anchor);
    this.inbox.dropPendingBefore(iteration);
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

  /** Begins the round at the current head: contributes and proposes from now on (`startsChain`, `withPeers`: see ProposerSchedule). */
  start(startsChain = false, withPeers = false): void {
    this.schedule.setStartsChain(startsChain, withPeers);
    this.stopped = false;
    this.active = true;
    this.stall.start();
    this.slots.restarted();
    this.beginRound();
  }

  /** Applies commits fed to it without contributing or proposing (catching up). */
  follow(): void {
    this.stopped = false;
    this.active = false;
    this.schedule.clear();
  }

  /** True while contributing and proposing. */
  get isActive(): boolean {
    return this.active && !this.stopped;
  }

  stop(): void {
    this.stopped = true;
    this.active = false;
    this.stall.stop();
    this.schedule.clear();
  }

  /** `author` contributed for `iteration`, already committed: late, unless a member (late-authors.ts). */
  noteLate(author: string, iteration: number): "late" | "refused" | "no" {
    return this.late.note(author, iteration, this.head, this.tip.authors, performance.now());
  }

  /**
   * A contribution whose signature verified (gossip validation), made for `iteration` on the
   * commit `parentHash`. Only those made on the commit we chain to can enter our commit; others
   * are kept (bounded) in case a one-step fork switch makes their parent ours. Two valid ones
   * from one author for one (iteration, parent) that differ are equivocation.
   */
  onContribution(c: SignedContribution, iteration: number, parentHash: Uint8Array): void {
    if (this.checks.isExcluded(c.author.id)) return;
    this.schedule.heard(c.author.id, iteration);
    if (iteration < this.head) {
      // Too late for its commit (a joiner, a node that was behind): waited for next round, once.
      this.noteLate(c.author.id, iteration);
      return;
    }
    if (this.inbox.addContribution(c, iteration, parentHash, this.head) !== "held") return;
    // Made at a head 2+ past ours (it reaches `staleness` past its author's): a hint, like an early commit.
    const authorHead = iteration - this.slots.staleness;
    if (authorHead > this.head + 1) this.onEvent({ kind: "ahead", iteration: authorHead, proposer: c.author.id });
    const ours = iteration === this.head ? this.slots.parentsFor(iteration)[c.staleness ?? 0] : undefined;
    if (ours !== undefined && !(ours && equalBytes(parentHash, ours)))
      this.logger.debug({ iteration, author: c.author.id, parent: toHex(parentHash).slice(0, 12), ours: ours && toHex(ours).slice(0, 12) }, "contribution on another parent");
    if (iteration === this.head) this.maybeProposeEarly();
  }

  /** The contributions for `t` made on our chain (the commit it chains to, or pipelined, earlier), by author. */
  private usable(t: number): Map<string, SignedContribution> {
    return this.inbox.usable(t, this.slots.parentsFor(t));
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
      // A rival of the commit we applied last: the better one of the two stays (chain-tip.ts).
      if (this.tip.switchTo(received)) this.nextRound();
      return;
    }
    if (commit.iteration < this.head) return;
    if (commit.iteration > this.head) {
      // A commit for a later iteration cannot be verified yet (its rank needs the commit before
      // it): kept for its turn, and a hint to fetch what leads to it. Never "behind" on it.
      if (this.inbox.addPendingCommit(received, this.head) !== "held") return;
      this.onEvent({ kind: "ahead", iteration: commit.iteration, proposer: commit.proposer });
      return;
    }
    if (!equalBytes(commit.prevHash, this.tip.hash)) {
      this.onEvent({
        kind: "diverged",
        iteration: commit.iteration,
        reason: "commit chained to a commit this node did not apply",
        unchained: received,
      });
      return;
    }
    if (!this.checks.admissionHolds(received, this.tip.admission)) return;
    // Verified by applying it (chain-tip.ts); a lie is refused and the fallback rank commits.
    if (this.tip.apply(received)) this.nextRound();
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
    this.schedule.clear();
    if (this.stopped) return;
    if (this.head >= this.opts.stopAt) {
      this.onEvent({ kind: "done", iteration: this.head });
      return;
    }
    const t = this.head;
    this.schedule.roundBegins(t);
    this.inbox.dropContributionsBefore(t);
    if (!this.active) {
      for (const c of this.inbox.takePending(t)) if (this.head === t) this.onCommit(c);
      return;
    }
    this.schedule.scheduleTick(t, 0, () => !this.stopped && this.head === t, (k) => this.propose(t, k));
    // Commits that arrived early for this iteration; then, pipelined, a commit whose
    // contributions are all in goes out before we measure anything (it is what others wait for).
    for (const c of this.inbox.takePending(t)) if (this.head === t) this.onCommit(c);
    if (this.head === t) this.maybeProposeEarly();
    if (this.head === t) this.fill();
  }

  /** Contributes to our next open slots, one per tick (contribution-slots.ts). */
  private fill(): void {
    if (this.isActive && this.opts.contribute)
      this.slots.fill(this.opts.stopAt, (t) => this.inbox.heldFrom(t, this.self.id), (t, k) => this.contribute(t, k), () => this.isActive);
  }

  /**
   * Computes, signs (over the commit we chain to, the tip) and publishes this node's contribution
   * for t, measured on the tip `staleness` iterations early.
   */
  private contribute(t: number, staleness: number): void {
    this.stall.check();
    const work = this.stall.begin();
    const m = this.leftOut.timed(() => this.contributor.contribute(t, this.tip.hash, staleness));
    if (!m) {
      this.logger.debug({ iteration: t }, "already contributed to this slot; not signing another");
      return;
    }
    this.onContribution({ author: this.self, payload: m.payload, signature: m.signature, ...(staleness > 0 ? { staleness } : {}) }, t, m.parentHash);
    this.transport
      .publishContribution(m)
      .catch((err) => this.logger.warn({ err, iteration: t }, "contribution publish failed"));
    this.stall.worked(work);
  }

  /** The primary proposer commits as soon as every expected author, or a quorum, has contributed. */
  private maybeProposeEarly(): void {
    if (!this.isActive) return;
    const t = this.head;
    if (this.opts.censor && this.tip.admission.order[0] === this.self.id && this.usable(t).has(this.self.id)) {
      this.propose(t, 0);
      return;
    }
    if (this.schedule.mayProposeEarly(t, () => this.usable(t), () => this.maybeProposeEarly())) this.propose(t, 0);
  }

  /**
   * Commits iteration t with the usable contributions held, at the rank this node holds (never
   * above `maxRank`, the tick's); false when it holds none or may not propose.
   */
  private propose(t: number, maxRank: number): boolean {
    if (!this.isActive || this.head !== t || this.proposer.busy) return false;
    // Slept past a deadline: t may be committed already; the daemon checks with peers first.
    if (this.stall.check()) return false;
    if (this.behind) {
      // A verified commit past t exists: a commit of ours would fork. The daemon catches up instead.
      this.onEvent({ kind: "behind", iteration: t, peersHead: this.peersHead });
      return false;
    }
    const usable = [...this.usable(t).values()].filter((c) => !this.opts.censor || c.author.id === this.self.id);
    if (!this.proposer.commit(t, maxRank, usable, this.slots.parentsFor(t))) return false;
    this.nextRound();
    return true;
  }

  /** A commit became the tip: late authors, the "applied" event, a stage switch. */
  private applied(commit: Commit, sum: string): void {
    this.late.afterCommit(commit.iteration, new Set(this.tip.authors), this.inbox.authorsAt(commit.iteration), performance.now());
    const ms = this.schedule.elapsed();
    this.onEvent({ kind: "applied", iteration: this.replica.iteration, checksum: sum, contributions: commit.entries.length, rank: commit.rank, ms });
    const counted = this.isActive && this.opts.contribute && commit.proposer !== this.self.id; // not our own: LeftOutWatch.applied
    const out = this.leftOut.applied(commit.iteration, ms, counted ? commit.entries.some((e) => e.author.id === this.self.id) : null);
    if (out) this.onEvent({ kind: "left out", ...out });
    const stageAt = this.run.algorithm.stageAt?.bind(this.run.algorithm);
    if (stageAt && commit.iteration > 0 && stageAt(commit.iteration) !== stageAt(commit.iteration - 1))
      this.logger.info({ iteration: commit.iteration, stage: stageAt(commit.iteration) }, "stage switched");
  }
}
