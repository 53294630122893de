/**
 * What the daemon does on each event of its rounds (chain/rounds-event.ts `RoundsEvent`): an applied
 * commit is logged, snapshotted, appended to the commit log and now and then checkpointed and
 * checked with peers; a divergence goes to repair, a peer ahead to catch-up (as a hint, fetched
 * at most once a round), a proven offence to the penalties. The rounds only report; every
 * reaction that needs the network or the disk is here.
 */
import { peerIdFromString } from "@libp2p/peer-id";
import type { Replica } from "../training/replica.js";
import type { TrainingRun } from "../training/run-context.js";
import type { CommitLogFile } from "./chain/commit-log.js";
import { PENALTY } from "./chain/penalties.js";
import { SLOW_CONTRIBUTION_ROUNDS } from "./chain/left-out-watch.js";
import type { Rounds, RoundsEvent } from "./chain/rounds.js";
import type { SwarmNode } from "./network/libp2p.js";
import type { Peers } from "./network/peers.js";
import type { NodeOptions } from "./node-options.js";
import type { FaultReporter } from "./observe/faults.js";
import { detach, type Logger } from "./ground/index.js";
import type { Metrics } from "./observe/metrics.js";
import type { RunMonitor } from "./observe/run-monitor.js";
import { type FaultHooks, flipOneBit } from "./ops/fault-hooks.js";
import type { CatchUp } from "./sync/catch-up.js";
import type { Repair } from "./sync/repair.js";

export interface RoundsEventParts {
  readonly opts: Pick<NodeOptions, "checkpointEvery" | "checkEvery">;
  readonly run: TrainingRun;
  readonly roundTimeoutMs: number;
  readonly rounds: Rounds;
  readonly replica: Replica;
  readonly commitLog: CommitLogFile;
  readonly libp2p: SwarmNode;
  readonly peers: Peers;
  readonly faults: FaultHooks;
  readonly metrics: Metrics | null;
  readonly log: Logger;
  /** The parts the daemon builds after the rounds (events may come before): read when needed. */
  readonly later: () => { readonly monitor?: RunMonitor; readonly catchUp: CatchUp; readonly repair: Repair };
  /** The daemon's own steps. */
  readonly takeSnapshot: () => void;
  readonly checkpoint: () => Promise<boolean>;
  readonly finish: () => Promise<void>;
  readonly penalise: (peer: string, cost: number, reason: string, iteration?: number) => void;
  /** Handled faults: one structured line and one /status count each (observe/faults.ts). */
  readonly fault: FaultReporter;
}

export class RoundsEventHandler {
  /** When a heartbeat or an early commit last made us fetch commits (one fetch a round at most). */
  private heartbeatPullAt = 0;
  /** Whether the `cut@` test fault has closed our connections. */
  private cutDone = false;
  /** When findPeersAgain last dialled (ms since the epoch). */
  private redialAt = 0;

  constructor(private readonly p: RoundsEventParts) {}

  handle(e: RoundsEvent): void {
    const { p } = this;
    switch (e.kind) {
      case "applied": {
        p.later().monitor?.onApplied(e.ms);
        p.log.info(
          {
            iteration: e.iteration,
            checksum: e.checksum,
            contributions: e.contributions,
            rank: e.rank,
            ms: Math.round(e.ms),
            loss: Math.round(p.run.algorithm.lastLoss * 10000) / 10000,
          },
          "applied",
        );
        p.takeSnapshot();
        const last = p.rounds.lastApplied();
        if (last) p.commitLog.append(last);
        const t = e.iteration;
        // Also while following or catching up: every applied commit is a state worth resuming from.
        if (p.opts.checkpointEvery > 0 && t % p.opts.checkpointEvery === 0) this.detach(p.checkpoint(), "checkpoint");
        if (t % p.opts.checkEvery === 0 && p.rounds.isActive) {
          if (p.peers.connected().length < 3) this.detach(p.later().catchUp.dialAuthors(), "author dials");
          // Alone (every connection dropped: an outage, a partition): look for the run again.
          if (p.libp2p.getConnections().length === 0) this.findPeersAgain();
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
        if (e.iteration > p.replica.iteration + 1) this.pullOnHint(e.proposer, "commits pulled on an early commit");
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
        p.penalise(e.proposer, PENALTY[e.offence], e.reason, e.iteration);
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
      case "left out": {
        const slow = e.contributionMs >= SLOW_CONTRIBUTION_ROUNDS * e.roundMs;
        p.log.warn(
          { iteration: e.iteration, commits: e.commits, contributionMs: Math.round(e.contributionMs), roundMs: Math.round(e.roundMs) },
          slow
            ? "none of our contributions is in the last commits: one takes longer to compute than several rounds of the swarm, so it arrives after its commit; this node follows and checks the chain without entries of its own"
            : "none of our contributions is in the last commits",
        );
        return;
      }
      case "done":
        this.detach(p.finish(), "finish");
        return;
    }
  }

  /**
   * A claim that `peer` is ahead: fetch its commits from our head (at most once a round, only
   * while training) and apply those that verify and chain onto ours. The claim changes nothing else.
   */
  pullOnHint(peer: string, what: string): void {
    const now = Date.now();
    if (!this.p.rounds.isActive || now - this.heartbeatPullAt <= this.p.roundTimeoutMs) return;
    this.heartbeatPullAt = now;
    this.detach(this.p.later().catchUp.pullFrom(peerIdFromString(peer)), what);
  }

  /**
   * With no connection left, dials the bootstrap peers and the run's DHT providers again, at most
   * once a round timeout: the chain's authors (dialAuthors) may be only ourselves by now.
   */
  private findPeersAgain(): void {
    const now = Date.now();
    if (now - this.redialAt < this.p.roundTimeoutMs) return;
    this.redialAt = now;
    this.p.log.info({ iteration: this.p.replica.iteration }, "no peers left; dialling bootstrap peers and providers again");
    this.detach(this.p.peers.dialBootstrap(), "bootstrap dials");
    this.detach(this.p.peers.dialProviders(), "provider dials");
  }

  /** Test hooks (see ops/fault-hooks.ts): a weight bit flipped, or a cut begins (every connection closed). */
  private maybeInjectFault(t: number): void {
    const { faults, replica, log } = this.p;
    if (faults.isolated(t) && !this.cutDone) {
      this.cutDone = true;
      log.warn({ iteration: t }, "fault injected: cut off from every peer");
      for (const c of this.p.libp2p.getConnections()) this.detach(c.close(), "cut a connection");
    }
    if (!faults.corruptNow(t)) return;
    flipOneBit(replica.weights);
    replica.reset(replica.weights, replica.iteration);
    log.warn({ iteration: t }, "fault injected: one weight bit flipped");
  }

  private detach(promise: Promise<unknown>, what: string): void {
    detach(promise, this.p.log, what);
  }
}
