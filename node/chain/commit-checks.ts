/**
 * The chain's rules on what a commit may hold, checked against our chain (docs/security.md, the
 * verified chain). Signatures were checked before (gossip validation, commitFromBytes); here:
 *   - its rank is checked, never believed: rank r is valid only if the proposer is r-th in
 *     proposerOrder over the authors of the verified commit t-1 (or, at the fallback rank n + 1,
 *     an author of one of its own entries). At the start of a chain (prevHash = ZERO_HASH) the
 *     eligible set is the commit's own authors; when the predecessor's authors are unknown (a
 *     snapshot without its anchor commit), the rank cannot be checked;
 *   - no entry by an author the chain excluded, and every exclusion it records recomputed here
 *     (audits.ts) and found to hold.
 * A commit that breaks one is rejected: its hash is remembered (a replay is refused without
 * applying) and its proposer charged. Our own proposals are built under the same rules. The
 * checksum is checked by applying, which the rounds do; `proposerLied` says whom a mismatch
 * blames, and the rounds reject through `reject`.
 */
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { MAX_COMMIT_ENTRIES } from "../../protocol/limits.js";
import { compareAuthors } from "../../training/algorithms/algorithm.js";
import { checksum as checksumOf, type Weights } from "../../training/params.js";
import type { Logger } from "../observe/logger.js";
import type { AppliedHistory } from "./applied-history.js";
import type { Audits } from "./audits.js";
import {
  chained,
  type Commit,
  type EncodedCommit,
  type Exclusion,
  rankOf,
  type SignedContribution,
  ZERO_HASH,
} from "./commit.js";
import { ROUND_CAPS } from "./round-inbox.js";

/** What the checks report (part of RoundsEvent). */
export type CheckEvent =
  /**
   * A commit rejected by the chain rules, and the signer to charge: a rank the proposer does not
   * hold (usurping), a checksum that our verified pre-state disproves (a lie), a false accusation.
   */
  | { kind: "rejected"; iteration: number; proposer: string; rank: number; reason: string }
  /**
   * A commit applied at `iteration` excludes `author` for its contribution to `offence`, which
   * does not recompute (audits.ts): its later contributions are refused.
   */
  | { kind: "excluded"; author: string; offence: number; iteration: number };

export class CommitChecks {
  /** Commits refused by the chain rules, by hash hex (bounded, oldest first). */
  private readonly rejected = new Set<string>();
  /** The subset refused by the exclusion rules (bounded the same way). */
  private readonly exclusionRefusals = new Set<string>();
  /**
   * Every author an applied commit excluded, never forgotten on a rewind (bounded): their
   * messages are refused. What a commit may contain is decided by the chain (history.excluded()).
   */
  private readonly banned = new Set<string>();
  /** Audits by recomputation and the checks of exclusions (none: exclusions taken unchecked). */
  private audits: Audits | null = null;

  /** @param history our applied chain (shared with the rounds, read only here). */
  constructor(
    private readonly runId: string,
    private readonly history: AppliedHistory,
    private readonly logger: Logger,
    private readonly onEvent: (e: CheckEvent) => void,
    /** The run's pipelined-rounds staleness (0: none): no entry may be staler. */
    private readonly staleness = 0,
  ) {}

  useAudits(audits: Audits): void {
    this.audits = audits;
  }

  /**
   * Authors excluded by the commits behind a snapshot we adopted (sync/chain-behind.ts):
   * refused and left out of our proposals like those our applied commits excluded.
   */
  inherit(excluded: Iterable<string>): void {
    for (const author of excluded) {
      this.banned.add(author);
      if (this.banned.size > ROUND_CAPS.bannedAuthors) this.banned.delete(this.banned.values().next().value as string);
    }
  }

  /** True when a commit this node applied (or one behind its snapshot) excluded `peer` (a peer id string). */
  isExcluded(peer: string): boolean {
    return this.banned.has(peer);
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

  private refuseForExclusions(received: EncodedCommit, reason: string): void {
    const h = chained(received).hash;
    this.exclusionRefusals.add(toHex(h));
    if (this.exclusionRefusals.size > ROUND_CAPS.rejectedCommits) this.exclusionRefusals.delete(this.exclusionRefusals.values().next().value as string);
    this.reject(received, reason, h);
  }

  /** Refuses a commit for good (its hash: computed when not given) and reports its proposer. */
  reject(received: EncodedCommit, reason: string, hash?: Uint8Array): void {
    const { commit } = received;
    const h = toHex(hash ?? chained(received).hash);
    this.rejected.add(h);
    if (this.rejected.size > ROUND_CAPS.rejectedCommits) this.rejected.delete(this.rejected.values().next().value as string);
    // Logged and counted by the daemon, with the charge (observe/faults.ts).
    this.onEvent({ kind: "rejected", iteration: commit.iteration, proposer: commit.proposer, rank: commit.rank, reason });
  }

  /**
   * True when the commit's rank is the one its proposer holds over `eligible` (the authors of
   * the commit it chains to); otherwise the commit is rejected and its proposer charged. When
   * the predecessor's authors are unknown the commit is taken on its signatures and its checksum
   * alone, and nobody is charged (an honest proposer's rank would look wrong from here).
   */
  rankHolds(received: EncodedCommit, eligible: readonly string[]): boolean {
    const { commit } = received;
    const start = equalBytes(commit.prevHash, ZERO_HASH);
    if (eligible.length === 0 && !start) {
      this.logger.debug({ iteration: commit.iteration, rank: commit.rank }, "rank not checkable: predecessor's authors unknown");
      return true;
    }
    const authors = commit.entries.map((e) => e.author.id);
    const rank = rankOf(this.runId, commit.iteration, eligible.length > 0 ? eligible : null, commit.proposer, authors);
    if (rank === commit.rank) return true;
    this.reject(received, rank === null ? "proposer may not propose this iteration" : `claims rank ${commit.rank}, holds ${rank}`);
    return false;
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
   * it), or whose state we can no longer rebuild, is taken on the chain's word.
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
      const offending = this.history.commitAt(x.iteration);
      const verdict = offending && this.audits ? this.audits.check(x, offending) : "unknown";
      if (verdict === "honest") {
        this.refuseForExclusions(received, `false accusation: ${x.author}'s contribution to ${x.iteration} recomputes`);
        return false;
      }
      if (verdict === "unknown")
        this.logger.warn({ iteration: commit.iteration, author: x.author, offence: x.iteration }, "exclusion not checkable here; taken on the chain's word");
    }
    return true;
  }

  /**
   * What our commit for `t` holds under the same rules: the exclusions our audits proved (of
   * entries in commits we keep), and the usable contributions of authors neither the chain nor
   * this commit excludes, at most what a commit may carry (the codec refuses more), the first in
   * timestamp order: the same choice whoever proposes.
   */
  proposal(t: number, usable: Iterable<SignedContribution>): { entries: SignedContribution[]; exclusions: Exclusion[] } {
    const excluded = this.history.excluded();
    const exclusions = (this.audits?.provable(t, (a) => excluded.has(a)) ?? []).filter((x) =>
      this.history.commitAt(x.iteration)?.commit.entries.some((e) => e.author.id === x.author),
    );
    const out = new Set([...excluded.keys(), ...this.banned, ...exclusions.map((x) => x.author)]);
    const entries = [...usable]
      .filter((e) => !out.has(e.author.id))
      .sort((a, b) => compareAuthors(a.author, b.author))
      .slice(0, MAX_COMMIT_ENTRIES);
    return { entries, exclusions };
  }

  /** Bans the authors an applied commit excludes (reported once each). */
  noteApplied(commit: Commit): void {
    for (const x of commit.exclusions ?? []) {
      if (this.banned.has(x.author)) continue;
      this.banned.add(x.author);
      if (this.banned.size > ROUND_CAPS.bannedAuthors) this.banned.delete(this.banned.values().next().value as string);
      // Logged and counted by the daemon, with the charge (observe/faults.ts).
      this.onEvent({ kind: "excluded", author: x.author, offence: x.iteration, iteration: commit.iteration });
    }
  }
}
