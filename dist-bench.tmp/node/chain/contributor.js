/**
 * This node's own contribution to a round: computed on the replica, signed over the commit it is
 * made on, at most once per (iteration, parent) slot. A repair or rewind that brings the node back
 * to a slot it contributed to (with other weights, so another payload) would otherwise sign an
 * equivocation and be cut off.
 */
import { toHex } from "../../protocol/bytes.js";
import { contributionSignedBytes } from "../../protocol/signing.js";
/** Slots (iteration, parent) remembered as signed by this node: more than a repair rewinds. */
const SIGNED_SLOTS_KEPT = 4096;
export class Contributor {
    self;
    run;
    replica;
    sign;
    tamper;
    /** The slots this node signed a contribution for, recent ones, oldest first. */
    signedSlots = new Set();
    constructor(self, run, replica, sign, tamper) {
        this.self = self;
        this.run = run;
        this.replica = replica;
        this.sign = sign;
        this.tamper = tamper;
    }
    /**
     * The signed contribution for `t` made on `parentHash` (the replica's tip), measured `staleness`
     * iterations early (pipelined rounds; t = the replica's iteration + staleness); null when this
     * slot was signed already.
     */
    contribute(t, parentHash, staleness = 0) {
        const slot = `${t}/${toHex(parentHash)}`;
        if (this.signedSlots.has(slot))
            return null;
        this.signedSlots.add(slot);
        if (this.signedSlots.size > SIGNED_SLOTS_KEPT)
            this.signedSlots.delete(this.signedSlots.values().next().value);
        const { algorithm } = this.run;
        const honest = algorithm.contribute(this.replica, this.self, t);
        const tamper = this.tamper;
        const payload = tamper ? tamper(honest, () => algorithm.contribute(this.replica, { id: `${this.self.id}/other`, joinedAt: this.self.joinedAt }, t)) : honest;
        const m = {
            runId: this.run.runId,
            iteration: t,
            joinedAt: this.self.joinedAt,
            payload,
            parentHash,
            signature: new Uint8Array(0),
            ...(staleness > 0 ? { staleness } : {}),
        };
        return { ...m, signature: this.sign(contributionSignedBytes(m)) };
    }
}
//# sourceMappingURL=contributor.js.map