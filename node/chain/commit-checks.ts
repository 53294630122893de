/**
 * The chain's rules on what a commit may hold, checked against our chain (docs/security.md, the
 * verified chain). Signatures were checked before (gossip validation, commitFromBytes); here:
 *   - its admission (admission.ts) is checked, never believed: rank r is valid only if the
 *     proposer is r-th in the admission order computed from the verified commits before t (or, at
 *     the fallback rank n + 1, an author of one of its own entries), and it holds at most
 *     NEWCOMER_SLOTS authors who are not members. At the start of a chain (prevHash = ZERO_HASH)
 *     the eligible set is the commit's own authors; when the commits before it are not all held
 *     (a snapshot joiner's first iterations), a rank is checked only loosely and nobody is charged;
 *   - no entry by an author the chain excluded, and every exclusion it records recomputed here
 *     (audits.ts) and found to hold. An exclusion this node cannot recompute (it lacks the state)
 *     stays chain state (our proposals leave the author out, as every node's do) but bans nobody:
 *     only exclusions this node proved itself make it refuse the author's messages, and those bans
 *     derive from the applied history, so a rolled-back commit unbans. Exclusions of this node are
 *     never taken on faith, and runs whose algorithm has no audit (Binary) take no exclusions.
 * A commit that breaks one is rejected: its hash is remembered (a replay is refused without
 * applying) and its proposer charged. Our own proposals are built under the same rules. The
 * checksum is checked by applying, which the rounds do; `proposerLied` says whom a mismatch
 * blames, and the rounds reject through `reject`.
 */
import { equalBytes, toHex } from "../../protocol/bytes.js";
import type { CommitMessage } from "../../protocol/codec.js";
import { MAX_COMMIT_ENTRIES } from "../../protocol/limits.js";
import { peerIdString } from "../../protocol/signing.js";
import { compareAuthors } from "../../training/algorithms/algorithm.js";
import { checksum as checksumOf, type Weights } from "../../training/params.js";
import { type Logger, BoundedSet } from "../ground/index.js";
import { type Admission, type AdmissionClaim, NEWCOMER_SLOTS, newcomersOf, rankFits } from "./admission.js";
import type { AppliedHistory } from "./applied-history.js";
import type { Audits } from "./audits.js";
import type { Offence } from "./penalties.js";
import {
  chained,
  type Commit,
  type EncodedCommit,
  type Exclusion,
  proposerOrder,
  type SignedContribution,
} from "./commit.js";
import { ROUND_CAPS } from "./round-inbox.js";

/** What the checks need to know of the run and this node. */
export interface CheckOptions {
  readonly runId: string;
  /** This node's peer id: never banned, and never excluded on faith. */
  readonly self: string;
  /** Whether the run's algorithm can recompute a contribution (an audit); false: no exclusions. */
  readonly auditable: boolean;
  /** The run's pipelined-rounds staleness (0: none): no entry may be staler. */
  readonly staleness?: number;
  /** Most entries a commit may hold (OPEN_SEATS in an open run); absent: MAX_COMMIT_ENTRIES. */
  readonly seats?: number;
}

/** What the checks report (part of RoundsEvent). */
export type CheckEvent =
  /**
   * A commit rejected by the chain rules, and the signer to charge: a rank the proposer does not
   * hold (usurping), a checksum that our verified pre-state disproves (a lie), a false accusation.
   */
  | { kind: "rejected"; iteration: number; proposer: string; rank: number; reason: string; offence: Offence }
  /**
   * A commit applied at `iteration` excludes `author` for its contribution to `offence`, which
   * does not recompute (audits.ts): its later contributions are refused.
   */
  | { kind: "excluded"; author: string; offence: number; iteration: number };

export class CommitChecks {
  /** Commits refused by the chain rules, by hash hex (bounded, oldest first). */
  private readonly rejected = new BoundedSet<string>(ROUND_CAPS.rejectedCommits);
  /** The subset refused by the exclusion rules (bounded the same way). */
  private readonly exclusionRefusals = new BoundedSet<string>(ROUND_CAPS.rejectedCommits);
  /**
   * Authors whose exclusion this node recomputed and found to hold (bounded): with the history,
   * what its bans derive from (isExcluded).
   */
  private readonly proven = new BoundedSet<string>(ROUND_CAPS.bannedAuthors);
  /** The bans at the history's last commit: proven exclusions the applied chain still records. */
  private bans: { at: unknown; banned: ReadonlySet<string> } = { at: null, banned: new Set() };
  /**
   * Authors excluded by commits we hold no longer (behind a snapshot, or before a resumed log):
   * left out of our proposals like the history's, never banned on that word alone (bounded).
   */
  private readonly inherited = new BoundedSet<string>(ROUND_CAPS.bannedAuthors);
  /** Audits by recomputation and the checks of exclusions (none: no exclusion recomputes here). */
  private audits: Audits | null = null;
  private readonly runId: string;
  private readonly staleness: number;
  /** Most entries a commit may hold (CheckOptions `seats`). */
  private readonly seats: number;

  /** @param history our applied chain (shared with the rounds, read only here). */
  constructor(
    private readonly opts: CheckOptions,
    private readonly history: AppliedHistory,
    private readonly logger: Logger,
    private readonly onEvent: (e: CheckEvent) => void,
  ) {
    this.runId = opts.runId;
    this.staleness = opts.staleness ?? 0;
    this.seats = opts.seats ?? MAX_COMMIT_ENTRIES;
  }

  useAudits(audits: Audits): void {
    this.audits = audits;
  }

  /**
   * Authors that commits we do not hold excluded (sync/chain-behind.ts, a checkpoint's list):
   * left out of our proposals, so honest nodes that hold those commits accept ours; their
   * messages are not refused (that needs our own recomputation, isExcluded).
   */
  inherit(excluded: Iterable<string>): void {
    for (const author of excluded) {
      if (author === this.opts.self) continue;
      this.inherited.add(author);
    }
  }

  /**
   * True when the applied chain excludes `peer` (a peer id string) for an offence this node
   * recomputed: its messages are refused. Derived from the history on each move of its head, so
   * a rolled-back exclusion unbans; never this node itself.
   */
  isExcluded(peer: string): boolean {
    const last = this.history.last() ?? null;
    if (this.bans.at !== last) {
      const banned = new Set<string>();
      for (const author of this.history.excluded().keys()) if (this.proven.has(author)) banned.add(author);
      this.bans = { at: last, banned };
    }
    return peer !== this.opts.self && this.bans.banned.has(peer);
  }

  /** True when the chain rules refused the commit with this hash here. */
  refused(hash: Uint8Array): boolean {
    return this.rejected.has(toHex(hash));
  }

  /**
   * True when the commit with this hash was refused here for its exclusions (a false accusation,
   * an entry by an excluded author): a verdict no other chain view can change. A rank refusal is
   * not one: it was judged against our authors, and a deep fork is judged against the shared ones.
   */
  refusedForExclusions(hash: Uint8Array): boolean {
    return this.exclusionRefusals.has(toHex(hash));
  }

  private refuseForExclusions(received: EncodedCommit, reason: string, offence: Offence = "usurp"): void {
    const h = chained(received).hash;
    this.exclusionRefusals.add(toHex(h));
    this.reject(received, reason, offence, h);
  }

  /**
   * Why a gossiped commit whose proposer signature verified breaks the admission rules, where
   * this node knows them (null otherwise); asked before its entries' signatures. Known: for our
   * round on our tip (`at`), for a rival of the commit just applied (on what that chained to), and,
   * a round ahead, that it holds at most twice the newcomer slots of authors outside our window
   * (its members are ours and the newcomers of the commit between). A broken rank, seat or
   * newcomer cap against a whole window is charged, as the rounds would.
   */
  gossipProblem(
    m: CommitMessage,
    proposer: string,
    at: { readonly head: number; readonly hash: Uint8Array; readonly admission: Admission; readonly before: { readonly hash: Uint8Array; readonly admission: Admission } | null },
  ): string | null {
    const authors = m.entries.map((e) => peerIdString(e.author));
    if (m.iteration === at.head + 1 && at.admission.complete) {
      const strangers = authors.filter((a) => !at.admission.members.has(a)).length;
      return strangers > 2 * NEWCOMER_SLOTS ? `holds ${strangers} authors outside the window; a commit a round ahead holds at most ${2 * NEWCOMER_SLOTS}` : null;
    }
    const admission =
      m.iteration === at.head && equalBytes(m.prevHash, at.hash)
        ? at.admission
        : m.iteration === at.head - 1 && at.before && equalBytes(m.prevHash, at.before.hash)
          ? at.before.admission
          : null;
    if (!admission) return null;
    const claim = { iteration: m.iteration, prevHash: m.prevHash, rank: m.rank, proposer, entries: authors.map((id) => ({ author: { id } })) };
    const problem = this.admissionProblem(claim, admission);
    if (problem?.charge) this.charge(claim, problem.reason);
    return problem?.reason ?? null;
  }

  /** Reports a commit's proposer for a broken rule without holding the commit (gossip's pre-check: its proposer signature verified). */
  charge(commit: AdmissionClaim, reason: string): void {
    this.onEvent({ kind: "rejected", iteration: commit.iteration, proposer: commit.proposer, rank: commit.rank, reason, offence: "usurp" });
  }

  /** Refuses a commit for good (its hash: computed when not given) and reports its proposer for `offence`. */
  reject(received: EncodedCommit, reason: string, offence: Offence = "usurp", hash?: Uint8Array): void {
    const { commit } = received;
    const h = toHex(hash ?? chained(received).hash);
    this.rejected.add(h);
    // Logged and counted by the daemon, with the charge (observe/faults.ts).
    this.onEvent({ kind: "rejected", iteration: commit.iteration, proposer: commit.proposer, rank: commit.rank, reason, offence });
  }

  /**
   * True when the commit's admission holds (admission.ts): its rank is the one its proposer holds
   * in `admission` (computed from the commits before it), it holds at most the run's seats
   * (counted: always checked) and at most NEWCOMER_SLOTS newcomers; otherwise the commit is
   * rejected and its proposer charged. When the commits before it are not all held here (`admission.complete` false), demotions and probation may be unknown
   * to us: a rank is then taken if the proposer is one of the expected authors (or an author of
   * its own entry at a fallback rank), the newcomer cap is not checked, and nobody is charged.
   */
  admissionHolds(received: EncodedCommit, admission: Admission): boolean {
    const problem = this.admissionProblem(received.commit, admission);
    if (problem === null) return true;
    if (problem.charge) this.reject(received, problem.reason);
    else this.logger.debug({ iteration: received.commit.iteration, rank: received.commit.rank, reason: problem.reason }, "commit does not fit a window held in part");
    return false;
  }

  /**
   * Why `commit` breaks the admission rules in `admission` (null: it does not), and whether that
   * charges its proposer (only where the window is whole). Charges nobody itself: gossip asks it
   * of a commit whose proposer signature verified, before its entries cost their verifications.
   */
  admissionProblem(commit: AdmissionClaim, admission: Admission): { reason: string; charge: boolean } | null {
    // Counted, so checked whatever this node holds of the window.
    if (commit.entries.length > this.seats) return { reason: `holds ${commit.entries.length} entries; a commit of this run holds at most ${this.seats}`, charge: true };
    const fit = rankFits(this.runId, admission, commit);
    if (!fit.checkable && fit.holds) {
      this.logger.debug({ iteration: commit.iteration, rank: commit.rank }, "rank checked loosely: the commits before it are not all held here");
      return null;
    }
    if (!fit.holds) return { reason: fit.rank === null ? "proposer may not propose this iteration" : `claims rank ${commit.rank}, holds ${fit.rank}`, charge: fit.checkable };
    if (!admission.complete) return null;
    const newcomers = newcomersOf(admission, commit.entries.map((e) => e.author.id)).length;
    if (newcomers <= NEWCOMER_SLOTS) return null;
    return { reason: `holds ${newcomers} newcomers; a commit may hold ${NEWCOMER_SLOTS}`, charge: true };
  }

  /**
   * Pipelined rounds: the older parents stale entries were signed over are our chain's commits
   * t-2, t-3, ... (gossip checked each entry against them, and that they are exactly as many as
   * the stalest entry needs), and no entry is staler than the run allows. One we no longer keep
   * (a snapshot joiner's first iterations) is taken on the signatures. Otherwise the commit is
   * rejected and its proposer charged: it built on contributions made on another chain.
   */
  parentsHold(received: EncodedCommit): boolean {
    const { commit } = received;
    const older = commit.olderParents ?? [];
    if (older.length > this.staleness) {
      this.reject(received, `entries up to ${older.length} iterations stale; the run allows ${this.staleness}`);
      return false;
    }
    for (let i = 0; i < older.length; i++) {
      const j = commit.iteration - 2 - i;
      const ours = j < -1 ? null : this.history.hashAt(j);
      if (ours === undefined) continue;
      if (ours === null || !equalBytes(ours, older[i])) {
        this.reject(received, `older parent ${i} is not our commit ${j}`);
        return false;
      }
    }
    return true;
  }

  /**
   * Applying commit `iteration` did not give its checksum: true when our state before it (`pre`)
   * was the verified one (the previous commit's checksum), so, the update being deterministic,
   * its proposer lied; false when we are the corrupted one.
   */
  proposerLied(iteration: number, pre: Weights): boolean {
    const expected = this.history.checksumBefore(iteration);
    return expected !== undefined && checksumOf(pre) === expected;
  }

  /**
   * The exclusion rules for a commit that chains to our head; a false accusation is rejected,
   * charging its proposer. An exclusion whose offending commit we do not keep (we joined after
   * it), or whose state we can no longer rebuild, is chain state we cannot check: accepted, but it
   * bans nobody here (noteApplied). Refused outright: any exclusion in a run whose algorithm has no
   * audit (no node could ever check it, so any proposer could ban every honest author), and one
   * of this node that it cannot recompute (it knows its own contribution).
   */
  exclusionsHold(received: EncodedCommit): boolean {
    const { commit } = received;
    const excluded = this.history.excluded();
    const barred = commit.entries.find((e) => excluded.has(e.author.id));
    if (barred) {
      this.refuseForExclusions(received, `entry by ${barred.author.id}, excluded at ${excluded.get(barred.author.id)}`);
      return false;
    }
    for (const x of commit.exclusions ?? []) {
      if (excluded.has(x.author)) continue;
      if (!this.opts.auditable) {
        this.refuseForExclusions(received, "exclusions are off in this run: its algorithm has no audit");
        return false;
      }
      const verdict = this.verdict(x);
      if (verdict === "honest") {
        this.refuseForExclusions(received, `false accusation: ${x.author}'s contribution to ${x.iteration} recomputes`, "falseAccusation");
        return false;
      }
      if (verdict === "unknown" && x.author === this.opts.self) {
        this.refuseForExclusions(received, `excludes this node for its contribution to ${x.iteration}, which cannot be recomputed here`);
        return false;
      }
    }
    return true;
  }

  /** Our audits' verdict on an exclusion ("unknown": its commit or state is not held here). */
  private verdict(x: Exclusion): "honest" | "fraud" | "unknown" {
    const offending = this.history.commitAt(x.iteration);
    return offending && this.audits ? this.audits.check(x, offending) : "unknown";
  }

  /**
   * What our commit for `t` holds under the same rules: the exclusions our audits proved (of
   * entries in commits we keep), and the usable contributions of authors neither the chain nor
   * this commit excludes: every member's (admission.ts) in timestamp order, then at most
   * NEWCOMER_SLOTS newcomers by H(runId, t, author), at most what a commit may carry (the codec
   * refuses more): the same choice whoever proposes.
   */
  proposal(t: number, usable: Iterable<SignedContribution>, admission: Admission): { entries: SignedContribution[]; exclusions: Exclusion[] } {
    const excluded = this.history.excluded();
    const exclusions = (this.opts.auditable ? (this.audits?.provable(t, (a) => excluded.has(a)) ?? []) : []).filter((x) =>
      this.history.commitAt(x.iteration)?.commit.entries.some((e) => e.author.id === x.author),
    );
    const out = new Set([...excluded.keys(), ...this.inherited, ...exclusions.map((x) => x.author)]);
    const members: SignedContribution[] = [];
    const newcomers = new Map<string, SignedContribution>();
    for (const e of usable) {
      if (out.has(e.author.id)) continue;
      if (admission.members.has(e.author.id)) members.push(e);
      else newcomers.set(e.author.id, e);
    }
    const admitted = proposerOrder(this.runId, t, [...newcomers.keys()]).slice(0, Math.min(NEWCOMER_SLOTS, this.seats));
    // The most included members keep their seats; ties in H order, as proposers are ranked.
    const h = new Map(proposerOrder(this.runId, t, members.map((e) => e.author.id)).map((a, i) => [a, i]));
    const included = (e: SignedContribution) => admission.inclusions.get(e.author.id) ?? 0;
    const kept = members
      .sort((a, b) => included(b) - included(a) || (h.get(a.author.id) ?? 0) - (h.get(b.author.id) ?? 0))
      .slice(0, this.seats - admitted.length);
    const entries = [...kept, ...admitted.map((a) => newcomers.get(a) as SignedContribution)].sort((a, b) => compareAuthors(a.author, b.author));
    return { entries, exclusions };
  }

  /**
   * An applied commit's exclusions: those this node recomputed to fraud ban their author (reported
   * once each: the daemon charges and hangs up); those it cannot check are logged, and ban nobody.
   */
  noteApplied(commit: Commit): void {
    for (const x of commit.exclusions ?? []) {
      if (this.proven.has(x.author) || x.author === this.opts.self) continue;
      if (this.verdict(x) !== "fraud") {
        this.logger.info({ iteration: commit.iteration, author: x.author, offence: x.iteration }, "exclusion recorded by the chain, not checkable here: the author is left out of commits, not refused");
        continue;
      }
      this.proven.add(x.author);
      // Logged and counted by the daemon, with the charge (observe/faults.ts).
      this.onEvent({ kind: "excluded", author: x.author, offence: x.iteration, iteration: commit.iteration });
    }
  }
}
