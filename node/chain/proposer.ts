/**
 * This node's own commit for an iteration, once the rounds decided it may propose: the entries
 * and exclusions the chain's rules allow (commit-checks.ts), the rank it holds, a self-check that
 * our state is the one the chain vouches for, then applied onto the tip, signed and published.
 */
import { fromHex } from "../../protocol/bytes.js";
import type { Replica } from "../../training/replica.js";
import type { TrainingRun } from "../../training/run-context.js";
import type { Logger } from "../ground/index.js";
import type { AppliedHistory } from "./applied-history.js";
import type { ChainTip } from "./chain-tip.js";
import { type Commit, rankOf, type SignedContribution, ZERO_HASH } from "./commit.js";
import type { CommitChecks } from "./commit-checks.js";
import { signCommit } from "./commit-wire.js";
import type { RoundsEvent } from "./rounds-event.js";
import type { Signer } from "./signatures.js";

export interface ProposerParts {
  /** This node's peer id. */
  readonly self: string;
  readonly run: Pick<TrainingRun, "runId">;
  readonly replica: Replica;
  readonly history: AppliedHistory;
  readonly checks: CommitChecks;
  readonly tip: ChainTip;
  readonly sign: Signer;
  readonly publish: (encoded: Uint8Array) => Promise<void>;
  readonly logger: Logger;
  readonly onEvent: (e: RoundsEvent) => void;
}

export class Proposer {
  /** True while our commit is being applied, signed and published (never re-entered). */
  busy = false;
  /** The iteration a pre-proposal self-check last failed at (reported once). */
  private divergedAt = -1;

  constructor(private readonly p: ProposerParts) {}

  /**
   * Commits iteration t with `usable` (the contributions made on the tip), at the rank this node
   * holds (never above `maxRank`); false when it holds none or may not propose.
   */
  commit(t: number, maxRank: number, usable: Iterable<SignedContribution>, parents: readonly (Uint8Array | null)[]): boolean {
    const { p } = this;
    const admission = p.tip.admission;
    const { entries, exclusions } = p.checks.proposal(t, usable, admission);
    if (entries.length === 0) return false;
    const eligible = admission.order.length > 0 ? admission.order : null;
    const rank = rankOf(p.run.runId, t, eligible, p.self, entries.map((e) => e.author.id));
    if (rank === null || rank > maxRank) return false;
    // Never sign a checksum over a state the chain does not vouch for (a flipped bit since the
    // last apply): honest peers would reject the commit as a lie, and our own chain would fork
    // from theirs. Once per iteration, "diverged" hands the node to repair instead.
    const before = p.history.checksumBefore(t);
    if (before !== undefined && p.replica.checksum() !== before) {
      if (this.divergedAt !== t) {
        this.divergedAt = t;
        p.onEvent({ kind: "diverged", iteration: t, reason: "our state before proposing does not match the verified chain" });
      }
      return false;
    }
    // Pipelined: the hashes our stale entries were signed over (usable ones name known parents).
    const stalest = Math.max(0, ...entries.map((e) => e.staleness ?? 0));
    const olderParents = parents.slice(1, 1 + stalest).map((h) => h ?? ZERO_HASH);
    this.busy = true;
    try {
      const signed = p.tip.applyOwn(entries, (prevHash, sum) => {
        const commit: Commit = {
          runId: p.run.runId,
          iteration: t,
          prevHash,
          entries,
          checksum: fromHex(sum),
          rank,
          proposer: p.self,
          ...(exclusions.length > 0 ? { exclusions } : {}),
          ...(olderParents.length > 0 ? { olderParents } : {}),
        };
        return signCommit(commit, p.sign);
      });
      p.publish(signed.encoded).catch((err) => p.logger.warn({ err, iteration: t }, "commit publish failed"));
    } finally {
      this.busy = false;
    }
    return true;
  }
}
