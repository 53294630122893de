/**
 * The daemon's checkpoints (the file itself is store/checkpoint.ts): the state and the chain
 * position taken together, the commit log made durable up to them first, where our peers listen
 * kept beside them (store/known-peers.ts), and the commit log compacted after each.
 */
import { toHex } from "../protocol/bytes.js";
import { CHAIN_KEEP } from "./chain/commit.js";
import type { Rounds } from "./chain/rounds.js";
import type { LoadedState } from "./load-state.js";
import type { Peers } from "./network/peers.js";
import type { Logger } from "./ground/index.js";
import { writeKnownPeers } from "./store/known-peers.js";

export class Checkpointer {
  /** Iteration of the checkpoint on disk (null: none or unknown); the next save makes it the previous one. */
  private checkpointAt: number | null;

  constructor(
    /** What the daemon continued from: the replica, our author, the commit log, the checkpoint file. */
    private readonly state: Pick<LoadedState, "replica" | "self" | "commitLog" | "checkpoints" | "checkpointAt">,
    private readonly rounds: Pick<Rounds, "lastApplied" | "headHash">,
    private readonly peers: Pick<Peers, "listenAddresses">,
    /** Where the peers' addresses are kept (store/data-dir.ts knownPeersPath). */
    private readonly knownPeersFile: string,
    private readonly log: Logger,
  ) {
    this.checkpointAt = state.checkpointAt;
  }

  /**
   * Writes a checkpoint of the current state (saves are serialized, never interleaved), after
   * making the commit log durable up to it. Never rejects: a failed write (a full disk) is logged
   * and training goes on without it (the previous checkpoint and the commit log still resume the
   * node; the next checkpoint tries again). True when written.
   */
  async write(): Promise<boolean> {
    const { replica, self, commitLog, checkpoints } = this.state;
    // Everything the checkpoint holds is taken now, together: rounds go on while it is written.
    const last = this.rounds.lastApplied();
    const iteration = replica.iteration;
    const weights = replica.weights.slice();
    const chain = {
      hash: toHex(last?.hash ?? this.rounds.headHash),
      authors: last ? last.commit.entries.map((e) => e.author.id) : [],
      joinedAt: self.joinedAt,
    };
    await commitLog.sync();
    try {
      await checkpoints.save(iteration, weights, chain);
    } catch (err) {
      this.log.error({ iteration, err }, "checkpoint failed; training goes on without it");
      return false;
    }
    commitLog.reopenIfStopped();
    await this.keepPeerAddresses();
    // The log keeps what a resume from either checkpoint replays and the chain served to peers.
    const prevAt = this.checkpointAt;
    this.checkpointAt = iteration;
    if (prevAt !== null) await commitLog.compact(Math.min(prevAt, iteration - CHAIN_KEEP), CHAIN_KEEP);
    return true;
  }

  /**
   * Keeps where our peers listen beside the checkpoint (store/known-peers.ts); with no peer
   * connected, the last list stays. A failure costs only discovery after a restart.
   */
  private async keepPeerAddresses(): Promise<void> {
    try {
      const addrs = await this.peers.listenAddresses();
      if (addrs.length > 0) await writeKnownPeers(this.knownPeersFile, addrs);
    } catch (err) {
      this.log.debug({ err: (err as Error).message }, "peer addresses not kept");
    }
  }
}
