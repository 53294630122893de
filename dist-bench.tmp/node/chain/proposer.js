/**
 * This node's own commit for an iteration, once the rounds decided it may propose: the entries
 * and exclusions the chain's rules allow (commit-checks.ts), the rank it holds, a self-check that
 * our state is the one the chain vouches for, then applied onto the tip, signed and published.
 */
import { fromHex } from "../../protocol/bytes.js";
import { rankOf, ZERO_HASH } from "./commit.js";
import { signCommit } from "./commit-wire.js";
export class Proposer {
    p;
    /** True while our commit is being applied, signed and published (never re-entered). */
    busy = false;
    /** The iteration a pre-proposal self-check last failed at (reported once). */
    divergedAt = -1;
    constructor(p) {
        this.p = p;
    }
    /**
     * Commits iteration t with `usable` (the contributions made on the tip), at the rank this node
     * holds (never above `maxRank`); false when it holds none or may not propose.
     */
    commit(t, maxRank, usable, parents) {
        const { p } = this;
        const { entries, exclusions } = p.checks.proposal(t, usable);
        if (entries.length === 0)
            return false;
        const eligible = p.tip.authors.length > 0 ? p.tip.authors : null;
        const rank = rankOf(p.run.runId, t, eligible, p.self, entries.map((e) => e.author.id));
        if (rank === null || rank > maxRank)
            return false;
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
                const commit = {
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
        }
        finally {
            this.busy = false;
        }
        return true;
    }
}
//# sourceMappingURL=proposer.js.map