/**
 * Penalties charged to the signer of a provably bad message (a commit that usurps a rank or lies
 * about its checksum, an equivocation pair, a /commits reply that fails verification, snapshot bytes
 * a verified commit disproves), never to whoever relayed it. The score is gossipsub's
 * application-specific score (P5): node/node.ts passes `appSpecificScore` to
 * node/network/libp2p.ts, which weights it (APP_SPECIFIC_WEIGHT), so a charged peer sinks below
 * gossipsub's thresholds (one usurp or lie: graylisted).
 */
/** What each fault costs; a peer at or below `disconnectAt` is disconnected. */
export const PENALTY = {
    /** A commit at a rank its proposer does not hold, or from another run. */
    usurp: 50,
    /** A commit whose checksum our verified pre-state disproves. */
    lie: 50,
    /** Two signed messages for one slot. */
    equivocation: 100,
    /** A commits reply with a commit that does not verify. */
    badReply: 20,
    /**
     * Snapshot bytes that a verified commit's checksum disproves, or a chunk of the wrong shape
     * (count, length, its own hash): an honest holder of the same chain never serves either.
     */
    badSnapshot: 40,
    /** An exclusion whose contribution recomputes: a false accusation (audits.ts). */
    falseAccusation: 50,
    /** A contribution that does not recompute, proven and recorded in the chain: out of the run. */
    fraud: 100,
    disconnectAt: -100,
};
/** Peers remembered with a penalty: bounded, the oldest charge forgotten first. */
const KEEP = 10_000;
export class Penalties {
    scores = new Map();
    /** Charges `peer` (a peer id string) and returns its score after the charge. */
    charge(peer, cost) {
        const score = (this.scores.get(peer) ?? 0) - cost;
        this.scores.delete(peer);
        this.scores.set(peer, score);
        if (this.scores.size > KEEP)
            this.scores.delete(this.scores.keys().next().value);
        return score;
    }
    /** The peer's score: 0 for a peer never charged, negative after a charge. */
    score(peer) {
        return this.scores.get(peer) ?? 0;
    }
    /** True when the peer should be disconnected. */
    shunned(peer) {
        return this.score(peer) <= PENALTY.disconnectAt;
    }
    /** gossipsub's scoreParams.appSpecificScore (weighted by libp2p.ts's APP_SPECIFIC_WEIGHT). */
    appSpecificScore = (peer) => this.score(peer);
}
//# sourceMappingURL=penalties.js.map