/**
 * Audits by recomputation (issue 15; docs/security.md, "Audits"). Every contribution is
 * reproducible: the state it was measured on, the seed-derived direction and the seed-derived
 * batch fix its bytes, up to float differences between backends (the algorithm's `audit` allows
 * for those). So:
 *
 * - After applying commit t, a node recomputes one other author's entry of it, the author picked
 *   by H(a secret of this node, commit t's hash): no author can know before its contribution is
 *   committed whether it will be audited, nor by whom, and a proposer that grinds its commit's
 *   hash (by the subset of its own entries it includes) cannot steer any auditor away from a lie,
 *   as it could when the pick was H(hash, auditor id) with the ids known (finding 10). Audits run
 *   only while their CPU stays within `budget` (a share of the process's other CPU time, 10% by
 *   default).
 * - A mismatch is a fraud proof anyone can check: the author's signed entry in commit t of the
 *   chain. The node gossips it (`publishProof`) and records it as an exclusion in the next commit
 *   it proposes (within EXCLUSION_WINDOW iterations of t). A node that receives a gossiped proof
 *   recomputes it (`takeProof`; one about a commit it has not applied yet waits for it, bounded)
 *   and, when it holds, records it too: the exclusion reaches the chain through whichever node
 *   proposes first, not only through its auditor. A proof that recomputes honest costs its auditor
 *   (`chargeFalseProof`), and its later proofs are ignored. Checking gossiped proofs has a CPU
 *   budget of its own (`PROOF_BUDGET`, whatever the audit budget): proofs from a crowd of fresh
 *   authors, each lying once, cost at most that share; past it a proof is ignored (the auditor
 *   that found a true one records it in its own proposal).
 * - Every node that receives a commit with an exclusion recomputes the entry itself before
 *   accepting the commit (`check`), from a kept snapshot and the commits after it: a false
 *   accusation gets the commit rejected and its proposer charged; a true one excludes the author
 *   from that commit on, at the same iteration on every replica.
 */
import { randomBytes } from "node:crypto";
import { equalBytes, sha256, toHex } from "../../protocol/bytes.js";
import { entryParent } from "../../protocol/codec.js";
import { EXCLUSION_WINDOW, MAX_COMMIT_EXCLUSIONS } from "../../protocol/limits.js";
import { inTimestampOrder } from "../../training/algorithms/contribution.js";
import { checksum, type Weights } from "../../training/params.js";
import type { TrainingRun } from "../../training/run-context.js";
import type { FaultReporter } from "../observe/faults.js";
import { type Logger, BoundedMap, BoundedSet } from "../ground/index.js";
import type { ChainedCommit, Exclusion, SignedContribution } from "./commit.js";

export interface AuditOptions {
  /** Share of this process's other CPU time audits may use; 0 turns them off. */
  readonly budget: number;
  /** Test fault `audit-liar`: every audit of ours reports fraud, so this node accuses honest authors. */
  readonly liar?: boolean;
  /** The run's pipelined-rounds `staleness`: how many earlier states a stale entry may need. */
  readonly staleness?: number;
  /** Gossips a fraud proof our own audit found, so that any proposer may record it. */
  readonly publishProof?: (proof: ProofClaim) => void;
  /** Charges the auditor of a gossiped proof that recomputes honest. */
  readonly chargeFalseProof?: (auditor: string, reason: string, iteration: number) => void;
}

/** What a fraud proof claims: `accused`'s entry in the commit `commitHash` at `iteration` does not recompute. */
export interface ProofClaim {
  readonly iteration: number;
  readonly commitHash: Uint8Array;
  readonly accused: string;
}

/** fraud: the entry does not recompute; honest: it does; unknown: the state it needs is gone. */
export type Verdict = "fraud" | "honest" | "unknown";

/** What the audits read of the node: the chain it applied and the snapshots it keeps. */
export interface AuditChain {
  commitAt(iteration: number): ChainedCommit | undefined;
  /** Our checksum after `iteration` applied iterations, while kept. */
  checksumAt(iteration: number): string | undefined;
  /** Kept states, any order. */
  snapshots(): readonly { readonly iteration: number; readonly checksum: string; readonly weights: Weights }[];
  /** Whether an applied commit excluded this author. */
  isExcluded(author: string): boolean;
}

/** Verdicts remembered, by (commit, author): a proof is recomputed once however often it comes. */
const VERDICTS_KEPT = 1024;
/** Auditors whose gossiped proof recomputed honest, remembered (oldest forgotten first) so their proofs cost nothing more. */
const FALSE_AUDITORS_KEPT = 1024;
/** Gossiped proofs about commits not applied yet, kept until they are (oldest dropped first). */
const PENDING_PROOFS_KEPT = 64;
const AUDIT_DOMAIN = new TextEncoder().encode("seedswarm/audit/v2");
/** Share of this process's other CPU time that checking gossiped proofs may use. */
export const PROOF_BUDGET = 0.1;

/** CPU microseconds (user + system) of a process.cpuUsage() reading. */
const micros = (u: NodeJS.CpuUsage) => u.user + u.system;

/** CPU spent in what ran through it: in all, and in the last run (the budgets' guess at the next). */
class CpuMeter {
  total = 0;
  last = 0;

  run<T>(fn: () => T): T {
    const start = process.cpuUsage();
    try {
      return fn();
    } finally {
      this.last = micros(process.cpuUsage(start));
      this.total += this.last;
    }
  }
}

export class Audits {
  private readonly verdicts = new BoundedMap<string, Verdict>(VERDICTS_KEPT);
  /** Frauds this node recomputed itself, by author: what it may record as exclusions. */
  private readonly proven = new Map<string, Exclusion>();
  private readonly falseAuditors = new BoundedSet<string>(FALSE_AUDITORS_KEPT);
  /** Proofs waiting for the commit they name, by iteration, then "auditor/accused". */
  private readonly pending = new BoundedMap<string, { readonly p: ProofClaim; readonly auditor: string }>(PENDING_PROOFS_KEPT);
  private readonly cpuStart = process.cpuUsage();
  /** CPU of our own audits and of exclusions checked in commits (the audit budget). */
  private readonly auditCpu = new CpuMeter();
  /** CPU of checking gossiped proofs, replay included (their own budget, PROOF_BUDGET). */
  private readonly proofCpu = new CpuMeter();
  /** Never leaves the process: what makes our picks unpredictable to the authors we audit. */
  private readonly secret = randomBytes(32);
  /**
   * Pipelined rounds: the states our last `staleness` commits were applied to, by the hash of the
   * commit each is the state after (the parent a stale entry is signed over), oldest first.
   */
  private readonly recentStates = new Map<string, Weights>();
  /** For /status and the logs. */
  readonly counts = {
    audited: 0,
    frauds: 0,
    skippedForBudget: 0,
    skippedNoState: 0,
    proofsChecked: 0,
    falseAccusations: 0,
    proofsSent: 0,
    proofsTaken: 0,
    proofsSkippedForBudget: 0,
  };

  constructor(
    private readonly self: string,
    private readonly run: Pick<TrainingRun, "algorithm" | "replicaAt">,
    private readonly chain: AuditChain,
    private readonly opts: AuditOptions,
    private readonly log: Logger,
    /** Logs and counts each contribution found not to recompute, and each false accusation refused. */
    private readonly fault: FaultReporter | null = null,
  ) {}

  /** False when the budget is 0 or the run's algorithm has no audit. */
  get enabled(): boolean {
    return this.opts.budget > 0 && this.run.algorithm.audit !== undefined;
  }

  /** The share of this process's CPU spent on audits and on checking gossiped proofs so far. */
  get cpuShare(): number {
    const total = micros(process.cpuUsage(this.cpuStart));
    return total > 0 ? (this.auditCpu.total + this.proofCpu.total) / total : 0;
  }

  /**
   * Commit `entry` was just applied to `pre` (the state after entry.commit.iteration applied
   * iterations; read now, never kept): audits one other author of it, budget permitting.
   */
  afterApply(entry: ChainedCommit, pre: Weights): void {
    this.takePending(entry.commit.iteration);
    if (!this.enabled) return;
    try {
      this.auditOne(entry, pre);
    } finally {
      this.keepState(entry.commit.prevHash, pre);
    }
  }

  private auditOne(entry: ChainedCommit, pre: Weights): void {
    const others = entry.commit.entries.filter((e) => e.author.id !== this.self);
    if (others.length === 0) return;
    if (this.overBudget(this.auditCpu, this.opts.budget)) {
      this.counts.skippedForBudget++;
      return;
    }
    const pick = others[this.pickIndex(entry.hash, others.length)];
    // A stale entry was measured on an earlier state of this chain: the one after its parent.
    const parent = entryParent(entry.commit, pick.staleness);
    const state = (pick.staleness ?? 0) === 0 ? pre : parent && this.recentStates.get(toHex(parent));
    if (!state) {
      this.counts.skippedNoState++;
      return;
    }
    this.counts.audited++;
    this.auditCpu.run(() => this.recompute(entry, pick, state, true));
  }

  /** Whether `meter`'s CPU, with its last run's again, exceeds `share` of the process's other CPU. */
  private overBudget(meter: CpuMeter, share: number): boolean {
    const other = micros(process.cpuUsage(this.cpuStart)) - this.auditCpu.total - this.proofCpu.total;
    return meter.total + meter.last > share * other;
  }

  /** Which of n entries of the commit `hash` we audit: H(domain, our secret, hash) mod n. */
  pickIndex(hash: Uint8Array, n: number): number {
    const h = sha256(Uint8Array.from([...AUDIT_DOMAIN, ...this.secret, ...hash]));
    return new DataView(h.buffer, h.byteOffset, 4).getUint32(0) % n;
  }

  /** Keeps the state after commit `hash` while a later entry may have been measured on it. */
  private keepState(hash: Uint8Array, state: Weights): void {
    const staleness = this.opts.staleness ?? 0;
    if (staleness === 0) return;
    const key = toHex(hash);
    // Reuses the oldest buffer: one weight copy per kept state, no allocation per iteration.
    let buf = this.recentStates.get(key);
    this.recentStates.delete(key);
    if (!buf && this.recentStates.size >= staleness) {
      const oldest = this.recentStates.keys().next().value as string;
      buf = this.recentStates.get(oldest);
      this.recentStates.delete(oldest);
    }
    if (buf instanceof Float32Array && state instanceof Float32Array && buf.length === state.length) buf.set(state);
    else buf = state.slice();
    this.recentStates.set(key, buf);
  }

  /**
   * Whether exclusion `x` holds: `offending` is our chain's commit x.iteration. Recomputes (once
   * per commit and author) from the newest kept snapshot at or before it, replaying the commits
   * in between; unknown when no kept state reaches back that far.
   */
  check(x: Exclusion, offending: ChainedCommit): Verdict {
    return this.auditCpu.run(() => this.judge(x, offending));
  }

  /** `check`'s verdict, unmetered; a false accusation is reported. */
  private judge(x: Exclusion, offending: ChainedCommit): Verdict {
    const verdict = this.verdictOn(x, offending);
    if (verdict === "honest") {
      this.counts.falseAccusations++;
      const reason = `${x.author}'s contribution to ${x.iteration} recomputes`;
      if (this.fault) this.fault("falseAccusation", "false accusation", { iteration: x.iteration, peer: x.author, reason, author: x.author });
      else this.log.warn({ author: x.author, iteration: x.iteration, reason }, "false accusation");
    }
    return verdict;
  }

  private verdictOn(x: Exclusion, offending: ChainedCommit): Verdict {
    const known = this.verdicts.get(this.key(offending, x.author));
    if (known) return known;
    const entry = offending.commit.entries.find((e) => e.author.id === x.author);
    if (!entry) return "honest";
    if (!this.run.algorithm.audit) return "unknown";
    const pre = this.stateAt(x.iteration - (entry.staleness ?? 0));
    if (!pre) return "unknown";
    this.counts.proofsChecked++;
    return this.recompute(offending, entry, pre, false);
  }

  /**
   * A fraud proof gossiped by `auditor` (its form and signature validated): checked by
   * recomputing, as a commit's exclusion is, and when it holds kept to record in our next
   * proposal. "false": the entry recomputes, so the auditor lied and is charged; "pending": the
   * commit it names is not applied here yet, but close (retried when it is); "ignored": nothing to do here
   * (another commit at that iteration on our chain, the accused already out, an auditor that is
   * no author of our chain near that iteration or lied before, no state to recompute on).
   * Recomputing costs at most once per (commit, accused) and once per lying auditor, and only an
   * author of our recent chain can ask for it.
   */
  takeProof(p: ProofClaim, auditor: string, retry = false): "proven" | "false" | "pending" | "ignored" {
    if (!this.run.algorithm.audit || this.chain.isExcluded(p.accused) || this.proven.has(p.accused) || this.falseAuditors.has(auditor)) return "ignored";
    // Only a recent author of our chain may ask for a recomputation, or a place in the wait list.
    if (!this.authorNear(auditor, p.iteration)) return "ignored";
    const offending = this.chain.commitAt(p.iteration);
    // Not applied yet, but close (at most two iterations past our newest): wait for it. Further
    // out, it is no proof we can check soon; the nodes that can will record it.
    if (!offending && !retry && this.chain.checksumAt(p.iteration - 1) !== undefined) {
      this.pending.set(`${p.iteration}/${auditor}/${p.accused}`, { p, auditor });
      return "pending";
    }
    if (!offending || !equalBytes(offending.hash, p.commitHash)) return "ignored";
    // A verdict already reached costs nothing; a new one waits for the proof budget.
    if (!this.verdicts.get(this.key(offending, p.accused)) && this.overBudget(this.proofCpu, PROOF_BUDGET)) {
      this.counts.proofsSkippedForBudget++;
      return "ignored";
    }
    let verdict: Verdict;
    try {
      verdict = this.proofCpu.run(() => this.judge({ author: p.accused, iteration: p.iteration }, offending));
    } catch (err) {
      // Called from a gossip handler or after an apply: a failed recomputation must unwind neither.
      this.log.warn({ err: (err as Error).message, iteration: p.iteration, auditor }, "fraud proof not checkable");
      return "ignored";
    }
    if (verdict === "fraud") {
      this.counts.proofsTaken++;
      this.proven.set(p.accused, { author: p.accused, iteration: p.iteration });
      this.log.info({ iteration: p.iteration, author: p.accused, auditor }, "fraud proof recomputed: recording the exclusion");
      return "proven";
    }
    if (verdict === "unknown") return "ignored";
    this.falseAuditors.add(auditor);
    this.opts.chargeFalseProof?.(auditor, `false fraud proof: ${p.accused}'s contribution to ${p.iteration} recomputes`, p.iteration);
    return "false";
  }

  /** The proofs that waited for commit `t`, now applied. */
  private takePending(t: number): void {
    for (const [key, { p, auditor }] of this.pending) {
      if (p.iteration !== t) continue;
      this.pending.delete(key);
      this.takeProof(p, auditor, true);
    }
  }

  /** Whether `peer` has an entry in one of our commits within EXCLUSION_WINDOW of `t`: a recent author, not a free identity. */
  private authorNear(peer: string, t: number): boolean {
    for (let i = Math.max(0, t - EXCLUSION_WINDOW); i <= t + EXCLUSION_WINDOW; i++)
      if (this.chain.commitAt(i)?.commit.entries.some((e) => e.author.id === peer)) return true;
    return false;
  }

  /**
   * The exclusions this node proved itself that a commit at iteration t may record: within the
   * window, and of authors `excluded` does not already name. Proofs past the window are dropped.
   */
  provable(t: number, excluded: (author: string) => boolean): Exclusion[] {
    for (const [a, x] of this.proven) if (t - x.iteration > EXCLUSION_WINDOW || excluded(a)) this.proven.delete(a);
    return [...this.proven.values()].filter((x) => x.iteration < t).slice(0, MAX_COMMIT_EXCLUSIONS);
  }

  private key(c: ChainedCommit, author: string): string {
    return `${Buffer.from(c.hash).toString("hex")}/${author}`;
  }

  private recompute(c: ChainedCommit, entry: SignedContribution, pre: Weights, ours: boolean): Verdict {
    const audit = this.run.algorithm.audit?.bind(this.run.algorithm);
    if (!audit) return "unknown";
    const start = process.cpuUsage();
    const replica = this.run.replicaAt(pre.slice(), c.commit.iteration);
    let problem: string | null;
    try {
      problem = audit(replica, entry.author, entry.payload);
    } finally {
      replica.dispose();
    }
    if (this.opts.liar && ours) problem ??= "test fault audit-liar: reported without cause";
    const ms = Math.round(micros(process.cpuUsage(start)) / 1000);
    const verdict: Verdict = problem === null ? "honest" : "fraud";
    this.verdicts.set(this.key(c, entry.author.id), verdict);
    if (verdict === "fraud") {
      this.counts.frauds++;
      if (ours && !this.proven.has(entry.author.id)) {
        this.proven.set(entry.author.id, { author: entry.author.id, iteration: c.commit.iteration });
        const publish = this.opts.publishProof;
        if (publish) {
          this.counts.proofsSent++;
          // On the next turn: after our own commit's publish (audited as it is applied), so a
          // proof never leaves before the commit it names and finds no receiver that can check it.
          const claim = { iteration: c.commit.iteration, commitHash: c.hash, accused: entry.author.id };
          setImmediate(() => publish(claim));
        }
      }
      const ctx = { iteration: c.commit.iteration, peer: entry.author.id, reason: problem ?? "", author: entry.author.id, ms, by: ours ? "audit" : "proof check" };
      if (this.fault) this.fault("auditFailed", "contribution does not recompute", ctx);
      else this.log.warn(ctx, "contribution does not recompute");
    }
    return verdict;
  }

  /** The state after `t` applied iterations of our chain: a kept snapshot plus the commits after it, each checked. */
  private stateAt(t: number): Weights | null {
    const bases = [...this.chain.snapshots()].filter((s) => s.iteration <= t).sort((a, b) => b.iteration - a.iteration);
    for (const base of bases) {
      if (this.chain.checksumAt(base.iteration) !== base.checksum) continue;
      const w = base.weights.slice();
      let i = base.iteration;
      for (; i < t; i++) {
        const c = this.chain.commitAt(i);
        if (!c) break;
        this.run.algorithm.apply(w, i, inTimestampOrder(c.commit.entries));
        if (this.chain.checksumAt(i + 1) !== checksum(w)) break;
      }
      if (i === t) return w;
    }
    return null;
  }
}
