/**
 * What the daemon does on each event of its rounds (chain/rounds-event.ts `RoundsEvent`): an applied
 * commit is logged, snapshotted, appended to the commit log and now and then checkpointed and
 * checked with peers; a divergence goes to repair, a peer ahead to catch-up (as a hint, fetched
 * at most once a round), a proven offence to the penalties. The rounds only report; every
 * reaction that needs the network or the disk is here.
 */
import { peerIdFromString } from "@libp2p/peer-id";
import { PENALTY } from "./chain/penalties.js";
import { detach } from "./observe/logger.js";
import { flipOneBit } from "./ops/fault-hooks.js";
export class RoundsEventHandler {
    p;
    /** When a heartbeat or an early commit last made us fetch commits (one fetch a round at most). */
    heartbeatPullAt = 0;
    /** Whether the `cut@` test fault has closed our connections. */
    cutDone = false;
    /** When findPeersAgain last dialled (ms since the epoch). */
    redialAt = 0;
    constructor(p) {
        this.p = p;
    }
    handle(e) {
        const { p } = this;
        switch (e.kind) {
            case "applied": {
                p.later().monitor?.onApplied(e.ms);
                p.log.info({
                    iteration: e.iteration,
                    checksum: e.checksum,
                    contributions: e.contributions,
                    rank: e.rank,
                    ms: Math.round(e.ms),
                    loss: Math.round(p.run.algorithm.lastLoss * 10000) / 10000,
                }, "applied");
                p.takeSnapshot();
                const last = p.rounds.lastApplied();
                if (last)
                    p.commitLog.append(last);
                const t = e.iteration;
                // Also while following or catching up: every applied commit is a state worth resuming from.
                if (p.opts.checkpointEvery > 0 && t % p.opts.checkpointEvery === 0)
                    this.detach(p.checkpoint(), "checkpoint");
                if (t % p.opts.checkEvery === 0 && p.rounds.isActive) {
                    if (p.peers.connected().length < 3)
                        this.detach(p.later().catchUp.dialAuthors(), "author dials");
                    // Alone (every connection dropped: an outage, a partition): look for the run again.
                    if (p.libp2p.getConnections().length === 0)
                        this.findPeersAgain();
                    this.detach(p.later().repair.verifyWithPeers(t, "periodic"), "periodic check");
                }
                this.maybeInjectFault(t);
                return;
            }
            case "diverged":
                p.metrics?.checksumMismatches.inc();
                p.log.warn({ iteration: e.iteration, reason: e.reason }, "divergence suspected");
                if (e.unchained) {
                    this.detach(p.later().repair.resolveFork(e.unchained), "fork resolution");
                    return;
                }
                // Compare where we stand now; peers at or past our head know their checksum there.
                this.detach(p.later().repair.verifyWithPeers(p.replica.iteration, e.reason), "divergence check");
                return;
            case "behind":
                p.log.debug({ iteration: e.iteration, peersHead: e.peersHead }, "behind a peer: not proposing");
                this.detach(p.later().catchUp.catchUp("a peer is past our head"), "catch-up");
                return;
            case "ahead":
                // A signed commit past our head is a hint, like a heartbeat: fetch and verify, no more.
                if (e.iteration > p.replica.iteration + 1)
                    this.pullOnHint(e.proposer, "commits pulled on an early commit");
                return;
            case "stalled": {
                // Never propose for an iteration not verified to be open: the others may have committed it.
                const stalledMs = Math.round(e.gapMs);
                const reason = `did not run for ${stalledMs} ms, past the ${p.roundTimeoutMs} ms round deadline`;
                p.fault("stall", "process stalled past the round deadline; catching up before proposing", { iteration: e.iteration, peer: null, reason, stalledMs });
                this.detach(p.later().catchUp.afterStall(), "catch-up after a stall");
                return;
            }
            case "switched":
                p.fault("forkSwitch", "switching to a better commit", { iteration: e.iteration, peer: e.proposer, reason: e.reason, rank: e.rank });
                return;
            case "rejected":
                p.fault("commitRejected", "commit rejected", { iteration: e.iteration, peer: e.proposer, reason: e.reason, proposer: e.proposer, rank: e.rank });
                p.penalise(e.proposer, e.reason.startsWith("checksum") ? PENALTY.lie : e.reason.startsWith("false accusation") ? PENALTY.falseAccusation : PENALTY.usurp, e.reason, e.iteration);
                return;
            case "excluded": {
                const reason = `its contribution to ${e.offence} does not recompute`;
                p.fault("authorExcluded", "author excluded", { iteration: e.iteration, peer: e.author, reason, author: e.author, offence: e.offence });
                p.penalise(e.author, PENALTY.fraud, `excluded at ${e.iteration}: ${reason}`, e.iteration);
                return;
            }
            case "equivocation":
                p.penalise(e.evidence.signer, PENALTY.equivocation, `equivocating ${e.evidence.kind}`, e.evidence.iteration);
                return;
            case "done":
                this.detach(p.finish(), "finish");
                return;
        }
    }
    /**
     * A claim that `peer` is ahead: fetch its commits from our head (at most once a round, only
     * while training) and apply those that verify and chain onto ours. The claim changes nothing else.
     */
    pullOnHint(peer, what) {
        const now = Date.now();
        if (!this.p.rounds.isActive || now - this.heartbeatPullAt <= this.p.roundTimeoutMs)
            return;
        this.heartbeatPullAt = now;
        this.detach(this.p.later().catchUp.pullFrom(peerIdFromString(peer)), what);
    }
    /**
     * With no connection left, dials the bootstrap peers and the run's DHT providers again, at most
     * once a round timeout: the chain's authors (dialAuthors) may be only ourselves by now.
     */
    findPeersAgain() {
        const now = Date.now();
        if (now - this.redialAt < this.p.roundTimeoutMs)
            return;
        this.redialAt = now;
        this.p.log.info({ iteration: this.p.replica.iteration }, "no peers left; dialling bootstrap peers and providers again");
        this.detach(this.p.peers.dialBootstrap(), "bootstrap dials");
        this.detach(this.p.peers.dialProviders(), "provider dials");
    }
    /** Test hooks (see ops/fault-hooks.ts): a weight bit flipped, or a cut begins (every connection closed). */
    maybeInjectFault(t) {
        const { faults, replica, log } = this.p;
        if (faults.isolated(t) && !this.cutDone) {
            this.cutDone = true;
            log.warn({ iteration: t }, "fault injected: cut off from every peer");
            for (const c of this.p.libp2p.getConnections())
                this.detach(c.close(), "cut a connection");
        }
        if (!faults.corruptNow(t))
            return;
        flipOneBit(replica.weights);
        replica.reset(replica.weights, replica.iteration);
        log.warn({ iteration: t }, "fault injected: one weight bit flipped");
    }
    detach(promise, what) {
        detach(promise, this.p.log, what);
    }
}
//# sourceMappingURL=rounds-events.js.map