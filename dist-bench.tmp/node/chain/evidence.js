/**
 * Equivocation evidence: two messages one signer signed for the same slot that no honest node
 * signs twice. For an author, two valid contributions for one (iteration, parentHash) with
 * different joinedAt or payload; for a proposer, two valid commits for one (iteration, prevHash).
 * Either pair proves the fault to anyone holding the signer's public key, so it is kept (bounded)
 * and the signer, never the relayer, is charged. An honest author that re-contributes after a
 * one-step fork switch signs a different parentHash, which is no equivocation.
 */
import { toHex } from "../../protocol/bytes.js";
/** The evidence that one proposer signed both commits `a` and `b` for one (iteration, prevHash). */
export function commitEquivocation(a, b) {
    return {
        kind: "commit",
        signer: a.commit.proposer,
        iteration: a.commit.iteration,
        parentHash: a.commit.prevHash,
        first: { encoded: a.encoded },
        second: { encoded: b.encoded },
    };
}
/** Pairs kept: enough to show a few faults per signer; an equivocator cannot grow it past this. */
export const EVIDENCE_KEEP = 256;
/** The evidence held, oldest dropped first; one pair per (kind, signer, iteration, parent). */
export class EvidenceStore {
    max;
    byKey = new Map();
    constructor(max = EVIDENCE_KEEP) {
        this.max = max;
    }
    /** Keeps the pair; false when a pair for the same slot is already held. */
    add(e) {
        const key = `${e.kind}/${e.signer}/${e.iteration}/${toHex(e.parentHash)}`;
        if (this.byKey.has(key))
            return false;
        this.byKey.set(key, e);
        if (this.byKey.size > this.max)
            this.byKey.delete(this.byKey.keys().next().value);
        return true;
    }
    /** Every pair held, oldest first. */
    all() {
        return [...this.byKey.values()];
    }
    /** Pairs held against `signer`. */
    against(signer) {
        return this.all().filter((e) => e.signer === signer);
    }
}
//# sourceMappingURL=evidence.js.map