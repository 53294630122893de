/**
 * Audits by recomputation (issue 15; docs/security.md, "Audits"). Every contribution is
 * reproducible: the state it was measured on, the seed-derived direction and the seed-derived
 * batch fix its bytes, up to float differences between backends (the algorithm's `audit` allows
 * for those). So:
 *
 * - After applying commit t, a node recomputes one other author's entry of it, the author picked
 *   by H(commit t's hash, this node's id): no author can know before its contribution is
 *   committed whether it will be audited, nor by whom. Audits run only while their CPU stays
 *   within `budget` (a share of the process's other CPU time, 10% by default).
 * - A mismatch is a fraud proof anyone can check: the author's signed entry in commit t of the
 *   chain. The node records it as an exclusion in the next commit it proposes (within
 *   EXCLUSION_WINDOW iterations of t).
 * - Every node that receives a commit with an exclusion recomputes the entry itself before
 *   accepting the commit (`check`), from a kept snapshot and the commits after it: a false
 *   accusation gets the commit rejected and its proposer charged; a true one excludes the author
 *   from that commit on, at the same iteration on every replica.
 */
import { sha256, toHex } from "../../protocol/bytes.js";
import { entryParent } from "../../protocol/codec.js";
import { EXCLUSION_WINDOW, MAX_COMMIT_EXCLUSIONS } from "../../protocol/limits.js";
import { inTimestampOrder } from "../../training/algorithms/contribution.js";
import { checksum } from "../../training/params.js";
/** The default budget: audits cost at most a tenth of the CPU that training and networking use. */
export const DEFAULT_AUDIT_BUDGET = 0.1;
/** Verdicts remembered, by (commit, author): a proof is recomputed once however often it comes. */
const VERDICTS_KEPT = 1024;
const AUDIT_DOMAIN = new TextEncoder().encode("seedswarm/audit/v1");
/** CPU microseconds (user + system) of a process.cpuUsage() reading. */
const micros = (u) => u.user + u.system;
export class Audits {
    self;
    run;
    chain;
    opts;
    log;
    fault;
    verdicts = new Map();
    /** Frauds this node recomputed itself, by author: what it may record as exclusions. */
    proven = new Map();
    cpuStart = process.cpuUsage();
    auditMicros = 0;
    lastAuditMicros = 0;
    /**
     * Pipelined rounds: the states our last `staleness` commits were applied to, by the hash of the
     * commit each is the state after (the parent a stale entry is signed over), oldest first.
     */
    recentStates = new Map();
    /** For /status and the logs. */
    counts = { audited: 0, frauds: 0, skippedForBudget: 0, skippedNoState: 0, proofsChecked: 0, falseAccusations: 0 };
    constructor(self, run, chain, opts, log, 
    /** Logs and counts each contribution found not to recompute, and each false accusation refused. */
    fault = null) {
        this.self = self;
        this.run = run;
        this.chain = chain;
        this.opts = opts;
        this.log = log;
        this.fault = fault;
    }
    /** False when the budget is 0 or the run's algorithm has no audit. */
    get enabled() {
        return this.opts.budget > 0 && this.run.algorithm.audit !== undefined;
    }
    /** The share of this process's CPU spent on audits so far. */
    get cpuShare() {
        const total = micros(process.cpuUsage(this.cpuStart));
        return total > 0 ? this.auditMicros / total : 0;
    }
    /**
     * Commit `entry` was just applied to `pre` (the state after entry.commit.iteration applied
     * iterations; read now, never kept): audits one other author of it, budget permitting.
     */
    afterApply(entry, pre) {
        if (!this.enabled)
            return;
        try {
            this.auditOne(entry, pre);
        }
        finally {
            this.keepState(entry.commit.prevHash, pre);
        }
    }
    auditOne(entry, pre) {
        const others = entry.commit.entries.filter((e) => e.author.id !== this.self);
        if (others.length === 0)
            return;
        const spent = this.auditMicros + this.lastAuditMicros;
        if (spent > this.opts.budget * (micros(process.cpuUsage(this.cpuStart)) - this.auditMicros)) {
            this.counts.skippedForBudget++;
            return;
        }
        const h = sha256(Uint8Array.from([...AUDIT_DOMAIN, ...entry.hash, ...new TextEncoder().encode(this.self)]));
        const pick = others[new DataView(h.buffer, h.byteOffset, 4).getUint32(0) % others.length];
        // A stale entry was measured on an earlier state of this chain: the one after its parent.
        const parent = entryParent(entry.commit, pick.staleness);
        const state = (pick.staleness ?? 0) === 0 ? pre : parent && this.recentStates.get(toHex(parent));
        if (!state) {
            this.counts.skippedNoState++;
            return;
        }
        this.counts.audited++;
        this.recompute(entry, pick, state, true);
    }
    /** Keeps the state after commit `hash` while a later entry may have been measured on it. */
    keepState(hash, state) {
        const staleness = this.opts.staleness ?? 0;
        if (staleness === 0)
            return;
        const key = toHex(hash);
        // Reuses the oldest buffer: one weight copy per kept state, no allocation per iteration.
        let buf = this.recentStates.get(key);
        this.recentStates.delete(key);
        if (!buf && this.recentStates.size >= staleness) {
            const oldest = this.recentStates.keys().next().value;
            buf = this.recentStates.get(oldest);
            this.recentStates.delete(oldest);
        }
        if (buf instanceof Float32Array && state instanceof Float32Array && buf.length === state.length)
            buf.set(state);
        else
            buf = state.slice();
        this.recentStates.set(key, buf);
    }
    /**
     * Whether exclusion `x` holds: `offending` is our chain's commit x.iteration. Recomputes (once
     * per commit and author) from the newest kept snapshot at or before it, replaying the commits
     * in between; unknown when no kept state reaches back that far.
     */
    check(x, offending) {
        const verdict = this.verdictOn(x, offending);
        if (verdict === "honest") {
            this.counts.falseAccusations++;
            const reason = `${x.author}'s contribution to ${x.iteration} recomputes`;
            if (this.fault)
                this.fault("falseAccusation", "false accusation", { iteration: x.iteration, peer: x.author, reason, author: x.author });
            else
                this.log.warn({ author: x.author, iteration: x.iteration, reason }, "false accusation");
        }
        return verdict;
    }
    verdictOn(x, offending) {
        const known = this.verdicts.get(this.key(offending, x.author));
        if (known)
            return known;
        const entry = offending.commit.entries.find((e) => e.author.id === x.author);
        if (!entry)
            return "honest";
        if (!this.run.algorithm.audit)
            return "unknown";
        const pre = this.stateAt(x.iteration - (entry.staleness ?? 0));
        if (!pre)
            return "unknown";
        this.counts.proofsChecked++;
        return this.recompute(offending, entry, pre, false);
    }
    /**
     * The exclusions this node proved itself that a commit at iteration t may record: within the
     * window, and of authors `excluded` does not already name. Proofs past the window are dropped.
     */
    provable(t, excluded) {
        for (const [a, x] of this.proven)
            if (t - x.iteration > EXCLUSION_WINDOW || excluded(a))
                this.proven.delete(a);
        return [...this.proven.values()].filter((x) => x.iteration < t).slice(0, MAX_COMMIT_EXCLUSIONS);
    }
    key(c, author) {
        return `${Buffer.from(c.hash).toString("hex")}/${author}`;
    }
    recompute(c, entry, pre, ours) {
        const audit = this.run.algorithm.audit?.bind(this.run.algorithm);
        if (!audit)
            return "unknown";
        const start = process.cpuUsage();
        const replica = this.run.replicaAt(pre.slice(), c.commit.iteration);
        let problem;
        try {
            problem = audit(replica, entry.author, entry.payload);
        }
        finally {
            replica.dispose();
        }
        if (this.opts.liar && ours)
            problem ??= "test fault audit-liar: reported without cause";
        this.lastAuditMicros = micros(process.cpuUsage(start));
        this.auditMicros += this.lastAuditMicros;
        const verdict = problem === null ? "honest" : "fraud";
        this.verdicts.set(this.key(c, entry.author.id), verdict);
        if (this.verdicts.size > VERDICTS_KEPT)
            this.verdicts.delete(this.verdicts.keys().next().value);
        if (verdict === "fraud") {
            this.counts.frauds++;
            if (ours && !this.proven.has(entry.author.id))
                this.proven.set(entry.author.id, { author: entry.author.id, iteration: c.commit.iteration });
            const ctx = { iteration: c.commit.iteration, peer: entry.author.id, reason: problem ?? "", author: entry.author.id, ms: Math.round(this.lastAuditMicros / 1000), by: ours ? "audit" : "proof check" };
            if (this.fault)
                this.fault("auditFailed", "contribution does not recompute", ctx);
            else
                this.log.warn(ctx, "contribution does not recompute");
        }
        return verdict;
    }
    /** The state after `t` applied iterations of our chain: a kept snapshot plus the commits after it, each checked. */
    stateAt(t) {
        const bases = [...this.chain.snapshots()].filter((s) => s.iteration <= t).sort((a, b) => b.iteration - a.iteration);
        for (const base of bases) {
            if (this.chain.checksumAt(base.iteration) !== base.checksum)
                continue;
            const w = base.weights.slice();
            let i = base.iteration;
            for (; i < t; i++) {
                const c = this.chain.commitAt(i);
                if (!c)
                    break;
                this.run.algorithm.apply(w, i, inTimestampOrder(c.commit.entries));
                if (this.chain.checksumAt(i + 1) !== checksum(w))
                    break;
            }
            if (i === t)
                return w;
        }
        return null;
    }
}
//# sourceMappingURL=audits.js.map