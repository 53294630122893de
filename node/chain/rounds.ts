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
 * 1 at 0.75 x roundTimeout. A commit whose checksum differs from ours after applying, or a commit
 * chained to a commit we did not apply, means divergence: the node asks to be repaired.
 *
 * This class owns no sockets: the daemon feeds it decoded, validated messages and gives it the
 * publish functions, so it can be driven in tests without a network.
 */
import { equalBytes, fromHex, toHex } from "../../protocol/bytes.js";
import { MAX_COMMIT_ENTRIES } from "../../protocol/limits.js";
import type { Contribution } from "../../training/algorithms/algorithm.js";
import { compareAuthors } from "../../training/algorithms/algorithm.js";
import type { Weights } from "../../training/params.js";
import type { Replica } from "../../training/replica.js";
import type { Author } from "../../training/rng/seeds.js";
import type { TrainingRun } from "../../training/run-context.js";
import type { Logger } from "../observe/logger.js";
import {
  CHAIN_KEEP,
  type ChainedCommit,
  chained,
  type Commit,
  type EncodedCommit,
  isBetter,
  proposerOrder,
  ZERO_HASH,
} from "./commit.js";

export interface RoundsTransport {
  publishContribution(iteration: number, payload: Uint8Array): Promise<void>;
  /** Publishes an encoded commit. */
  publishCommit(encoded: Uint8Array): Promise<void>;
  /** The canonical wire encoding of a commit; its SHA-256 is the next commit's prevHash. */
  encodeCommit(commit: Commit): Uint8Array;
}

export interface RoundsOptions {
  /** Milliseconds; the proposer's wait is half of it, fallbacks step by a quarter. */
  readonly roundTimeoutMs: number;
  /** Stop after applying this many iterations (the run length by default). */
  readonly stopAt: number;
  /** Compute and publish contributions (false for a node that only follows). */
  readonly contribute: boolean;
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
  /** This node would have proposed `iteration`, but a peer is known to be past it. */
  | { kind: "behind"; iteration: number; peersHead: number }
  | { kind: "done"; iteration: number };

/** How many iterations back a late contribution still makes its author expected. */
const LATE_WINDOW = 64;

/**
 * Memory bounds on what is held for iterations not yet applied (gossip accepts up to 1,024
 * iterations ahead). An honest node contributes for its head and proposes one commit per
 * iteration, and honest nodes differ by a few iterations at most, so these caps only bind on a
 * flood: per signer, future contributions and pending commits; per iteration, contributions (a
 * commit holds at most MAX_COMMIT_ENTRIES; twice that leaves room to choose in timestamp order)
 * and competing commits (a primary, a fallback or two, and a fork).
 */
export const ROUND_CAPS = {
  futureContributionsPerSigner: 16,
  contributionsPerIteration: 2 * MAX_COMMIT_ENTRIES,
  pendingCommitsPerSigner: 16,
  pendingCommitsPerIteration: 4,
} as const;



export class Rounds {
  private lastHash: Uint8Array = ZERO_HASH;
  /** Authors of the last applied commit: next round's expected contributors and proposers. */
  private lastAuthors: string[] = [];
  /**
   * Authors whose contribution missed its commit, with the head when that was noticed: they are
   * waited for (at most 0.5 x roundTimeout a round) in the next two rounds, so a joiner or a slow
   * node gets included instead of chasing a fast swarm forever.
   */
  private readonly late = new Map<string, number>();
  private readonly contributions = new Map<number, Map<string, Contribution>>();
  private readonly pendingCommits = new Map<number, { commit: EncodedCommit; signer?: string }[]>();
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
  /** Commits applied, in order (the commit log served to joiners). */
  private readonly chainLog: ChainedCommit[] = [];
  /** Checksums after each applied iteration, recent ones only. */
  private readonly checksums = new Map<number, string>();

  constructor(
    private readonly self: Author,
    private readonly run: Pick<TrainingRun, "runId" | "algorithm">,
    private readonly replica: Replica,
    private readonly transport: RoundsTransport,
    private readonly opts: RoundsOptions,
    private readonly logger: Logger,
    private readonly onEvent: (e: RoundsEvent) => void = () => {},
  ) {
    this.checksums.set(replica.iteration, replica.checksum());
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
    return this.checksums.get(iteration);
  }

  /** The last commit applied (none before the first, or right after a snapshot without anchor). */
  lastApplied(): ChainedCommit | undefined {
    return this.chainLog[this.chainLog.length - 1];
  }

  /** The commits applied and kept, oldest first (a copy). */
  appliedCommits(): readonly ChainedCommit[] {
    return [...this.chainLog];
  }

  /** The encoded commits from `from` on, at most `max` of them (what the commits protocol serves). */
  commitsFrom(from: number, max: number): Uint8Array[] {
    return this.chainLog
      .filter((l) => l.commit.iteration >= from)
      .slice(0, max)
      .map((l) => l.encoded);
  }

  /** After a restart: the commits before our head, read back from the commit log file. */
  restoreLog(commits: readonly EncodedCommit[]): void {
    for (const c of commits) this.chainLog.push(chained(c));
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
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    this.replica.reset(weights, iteration);
    // Nothing before the snapshot can be rolled back to or served as our chain any more.
    this.prev = null;
    while (this.chainLog.length > 0 && this.chainLog[this.chainLog.length - 1].commit.iteration >= iteration - 1)
      this.chainLog.pop();
    for (const k of [...this.checksums.keys()]) if (k > iteration) this.checksums.delete(k);
    this.checksums.set(iteration, checksum);
    for (const k of [...this.pendingCommits.keys()]) if (k < iteration) this.pendingCommits.delete(k);
    if (anchor) {
      const entry = chained(anchor);
      this.chainLog.push(entry);
      this.resumeChain(entry.hash, anchor.commit.entries.map((e) => e.author.id));
    } else {
      this.resumeChain(ZERO_HASH, []);
    }
  }

  /** What is held for iterations not yet applied (bounded by ROUND_CAPS). */
  held(): { contributions: number; commits: number } {
    let contributions = 0;
    for (const byAuthor of this.contributions.values()) contributions += byAuthor.size;
    let commits = 0;
    for (const list of this.pendingCommits.values()) commits += list.length;
    return { contributions, commits };
  }

  /** A peer reports having applied `iteration` iterations (heartbeat, checksum answer). */
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
    this.beginRound();
  }

  /** Applies commits fed to it without contributing or proposing (catching up). */
  follow(): void {
    this.stopped = false;
    this.active = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }

  /** True while contributing and proposing. */
  get isActive(): boolean {
    return this.active && !this.stopped;
  }

  stop(): void {
    this.stopped = true;
    this.active = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }

  /**
   * `author` contributed for `iteration`, already committed: wait for it in the next two rounds
   * (if it is not a member already and not hopelessly far behind).
   */
  noteLate(author: string, iteration: number): void {
    if (iteration >= this.head - LATE_WINDOW && !this.lastAuthors.includes(author))
      this.late.set(author, this.head);
  }

  /** A validated contribution from gossip (author = gossip signer). */
  onContribution(c: Contribution, iteration: number): void {
    if (iteration < this.head) {
      // Too late for its commit: wait for this author next round. A joiner, or a node that was
      // behind, contributes for an iteration already committed; waiting for it once (at most
      // 0.5 x roundTimeout) lets it catch up and be included, instead of chasing a fast swarm.
      this.noteLate(c.author.id, iteration);
      return;
    }
    let byAuthor = this.contributions.get(iteration);
    if (byAuthor?.has(c.author.id)) return;
    if ((byAuthor?.size ?? 0) >= ROUND_CAPS.contributionsPerIteration) return;
    if (iteration > this.head && this.futureContributions(c.author.id) >= ROUND_CAPS.futureContributionsPerSigner) return;
    if (!byAuthor) {
      byAuthor = new Map();
      this.contributions.set(iteration, byAuthor);
    }
    byAuthor.set(c.author.id, c);
    if (iteration === this.head) this.maybeProposeEarly();
  }

  /** Contributions held from `author` for iterations past our head. */
  private futureContributions(author: string): number {
    let n = 0;
    for (const [t, byAuthor] of this.contributions) if (t > this.head && byAuthor.has(author)) n++;
    return n;
  }

  /** Commits held from `signer` for iterations past our head. */
  private pendingFrom(signer: string): number {
    let n = 0;
    for (const list of this.pendingCommits.values()) for (const p of list) if (p.signer === signer) n++;
    return n;
  }

  /**
   * A validated commit, with the bytes it came as (gossip, the commits protocol, a fork switch)
   * and, from gossip, its signer (for the per-signer cap on commits held for later).
   */
  onCommit(received: EncodedCommit, signer?: string): void {
    if (this.stopped) return;
    const { commit } = received;
    if (commit.iteration === this.head - 1) {
      this.maybeSwitch(received);
      return;
    }
    if (commit.iteration < this.head) return;
    if (commit.iteration > this.head) {
      // A commit for a later iteration: its proposer applied everything before it.
      this.notePeerHead(commit.iteration + 1);
      const list = this.pendingCommits.get(commit.iteration) ?? [];
      if (list.length >= ROUND_CAPS.pendingCommitsPerIteration) return;
      if (signer !== undefined && this.pendingFrom(signer) >= ROUND_CAPS.pendingCommitsPerSigner) return;
      list.push({ commit: received, signer });
      this.pendingCommits.set(commit.iteration, list);
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
    this.apply(commit, received.encoded);
  }

  /**
   * One-step fork choice. Two commits for one iteration can exist (two nodes that each believed
   * they were the proposer at the start of a chain, or a fallback racing a slow primary). Every
   * node keeps the better one by the same rule: lower rank, then more entries, then lower hash.
   * A node that applied the worse one rolls back one iteration and applies the better one; deeper
   * forks are left to checksum verification and repair.
   */
  private maybeSwitch(received: EncodedCommit): void {
    const { commit, encoded } = received;
    const last = this.chainLog[this.chainLog.length - 1];
    const prev = this.prev;
    if (!last || !prev || last.commit.iteration !== commit.iteration || !equalBytes(commit.prevHash, prev.hash)) return;
    const hash = chained(received).hash;
    if (equalBytes(hash, last.hash) || !isBetter(commit, hash, last.commit, last.hash)) return;
    this.logger.info({ iteration: commit.iteration, rank: commit.rank, entries: commit.entries.length }, "switching to a better commit");
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    this.chainLog.pop();
    this.checksums.delete(this.replica.iteration);
    this.replica.reset(prev.weights, commit.iteration);
    this.lastHash = prev.hash;
    this.lastAuthors = prev.authors;
    this.prev = null;
    this.apply(commit, encoded);
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
    const recentlyLate = [...this.late].filter(([, at]) => at >= this.head - 1).map(([a]) => a);
    const set = new Set([...this.lastAuthors, ...recentlyLate]);
    if (this.opts.contribute) set.add(this.self.id);
    return [...set];
  }

  /**
   * Who may propose iteration t, best first. Normally the authors of the last commit (a set
   * every node agrees on); at the start of a chain, the contributors this node has seen.
   */
  private proposers(t: number): string[] {
    if (this.lastAuthors.length > 0) return proposerOrder(this.run.runId, t, this.lastAuthors);
    const seen = [...(this.contributions.get(t)?.keys() ?? [])];
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
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    if (this.stopped) return;
    if (this.head >= this.opts.stopAt) {
      this.onEvent({ kind: "done", iteration: this.head });
      return;
    }
    const t = this.head;
    this.roundStart = performance.now();
    for (const old of this.contributions.keys()) if (old < t) this.contributions.delete(old);
    if (!this.active) {
      const early = this.pendingCommits.get(t);
      this.pendingCommits.delete(t);
      for (const c of early ?? []) if (this.head === t) this.onCommit(c.commit, c.signer);
      return;
    }
    if (this.opts.contribute) {
      const payload = this.run.algorithm.contribute(this.replica, this.self);
      this.onContribution({ author: this.self, payload }, t);
      this.transport
        .publishContribution(t, payload)
        .catch((err) => this.logger.warn({ err, iteration: t }, "contribution publish failed"));
    }
    this.scheduleTick(t, 0);
    // Commits that arrived early for this iteration.
    const early = this.pendingCommits.get(t);
    this.pendingCommits.delete(t);
    for (const c of early ?? []) if (this.head === t) this.onCommit(c.commit, c.signer);
    if (this.head === t) this.maybeProposeEarly();
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
          if (mayPropose && this.propose(t, rank >= 0 ? rank : k)) return;
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
    const have = this.contributions.get(t);
    if (have && this.expected().every((a) => have.has(a))) this.propose(t, 0);
  }

  /** Commits iteration t with the contributions held; false when there are none yet. */
  private propose(t: number, rank: number): boolean {
    if (!this.isActive || this.head !== t || this.proposing) return false;
    if (this.behind) {
      // Peers already committed t: a commit of ours would fork. The daemon catches up instead.
      this.onEvent({ kind: "behind", iteration: t, peersHead: this.peersHead });
      return false;
    }
    // At most what a commit may carry (the codec refuses more): the first in timestamp order,
    // the same choice whoever proposes.
    const entries = [...(this.contributions.get(t)?.values() ?? [])]
      .sort((a, b) => compareAuthors(a.author, b.author))
      .slice(0, MAX_COMMIT_ENTRIES);
    if (entries.length === 0) return false;
    this.proposing = true;
    try {
      this.rememberPrev();
      this.replica.applyIteration(this.run.algorithm, entries);
      const sum = this.replica.checksum();
      const commit: Commit = {
        iteration: t,
        prevHash: this.lastHash,
        entries,
        checksum: fromHex(sum),
        rank,
      };
      const encoded = this.transport.encodeCommit(commit);
      this.recordApplied(commit, encoded, sum);
      this.transport
        .publishCommit(encoded)
        .catch((err) => this.logger.warn({ err, iteration: t }, "commit publish failed"));
    } finally {
      this.proposing = false;
    }
    this.nextRound();
    return true;
  }

  private apply(commit: Commit, encoded: Uint8Array): void {
    this.rememberPrev();
    this.replica.applyIteration(this.run.algorithm, commit.entries);
    const sum = this.replica.checksum();
    this.recordApplied(commit, encoded, sum);
    if (toHex(commit.checksum) !== sum) {
      // Either side may be wrong: the daemon asks other peers and repairs if it is us. Rounds go
      // on meanwhile, so an honest node never stalls on a faulty proposer.
      this.onEvent({
        kind: "diverged",
        iteration: commit.iteration,
        reason: `checksum after applying ${sum.slice(0, 12)} != proposer's ${toHex(commit.checksum).slice(0, 12)}`,
      });
    }
    this.nextRound();
  }

  private recordApplied(commit: Commit, encoded: Uint8Array, sum: string): void {
    const { hash } = chained({ commit, encoded });
    this.lastHash = hash;
    this.lastAuthors = commit.entries.map((e) => e.author.id);
    const included = new Set(this.lastAuthors);
    for (const a of included) this.late.delete(a);
    // Contributions that arrived for this iteration but are not in its commit (a fallback
    // proposer's view, a race): their authors are late too.
    for (const a of this.contributions.get(commit.iteration)?.keys() ?? [])
      if (!included.has(a)) this.late.set(a, commit.iteration + 1);
    for (const [a, at] of this.late) if (at < commit.iteration) this.late.delete(a);
    this.chainLog.push({ commit, hash, encoded });
    if (this.chainLog.length > CHAIN_KEEP) this.chainLog.shift();
    this.checksums.set(this.replica.iteration, sum);
    this.checksums.delete(this.replica.iteration - CHAIN_KEEP);
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
