/**
 * State shards as Learning@home experts: this node announces the chunks of its latest snapshot
 * as `snap.<iteration>.<chunk>` in the DHT, and a joiner beam-searches that grid for the newest
 * snapshot whose every chunk someone serves (a plan: who holds which chunk).
 */
import type { PeerId } from "@libp2p/interface";
import type { Membership } from "../../protocol/membership.js";
import type { SwarmNode } from "../network/libp2p.js";
import { defaultExpertOptions, ExpertDirectory, type ExpertSigner } from "../network/experts.js";
import type { Peers } from "../network/peers.js";
import { detach, type Logger } from "../ground/index.js";
import { defaultSyncOptions, type SnapshotPlan } from "./protocols.js";
import type { SnapshotStore } from "./snapshot-store.js";

/** The expert grid of state shards: `snap.<iteration>.<chunk>`. */
export const SNAPSHOT_GRID = "snap";

/** Chunks of a snapshot of `weightCount` weights: every snapshot of a run has the same count. */
export function snapshotChunks(weightCount: number, chunkBytes = defaultSyncOptions.chunkBytes): number {
  return Math.max(1, Math.ceil((weightCount * 4) / chunkBytes));
}

export class SnapshotPlanner {
  private readonly experts: ExpertDirectory;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly libp2p: SwarmNode,
    runId: string,
    private readonly snapshots: SnapshotStore,
    private readonly peers: Peers,
    /** Weights in the run's model. */
    private readonly weightCount: number,
    private readonly log: Logger,
    /** Whose expert records count (a member run: its members only). */
    membership: Membership,
    /** Signs our expert entries with this node's identity key. */
    sign: ExpertSigner,
  ) {
    this.experts = new ExpertDirectory(libp2p, runId, sign, log, defaultExpertOptions, membership);
  }

  /** Announces now and then every announce period, until stop. */
  start(): void {
    this.timer = setInterval(() => detach(this.announce(), this.log, "expert announce"), defaultExpertOptions.announceEveryMs);
    detach(this.announce(), this.log, "expert announce");
  }

  /** Stops announcing and withdraws our records (if the DHT answers quickly; else they expire). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.experts.stop();
  }

  /**
   * Pins the latest snapshot (kept, with the one pinned before, until the next announcement) and
   * declares its chunks as experts `snap.<iteration>.<chunk>` in the DHT.
   */
  private async announce(): Promise<void> {
    if (!this.timer) return; // stopped
    const snap = this.snapshots.pinLatest();
    if (!snap) return;
    const uids = Array.from(
      { length: snapshotChunks(this.weightCount) },
      (_, c) => `${SNAPSHOT_GRID}.${snap.iteration}.${c}`,
    );
    await this.experts.serve(uids);
  }

  /**
   * Beam search over the snapshot grid: the newest announced snapshots first, then their chunks;
   * the newest snapshot whose every chunk has a holder besides us wins. Null when the records
   * name none (then the caller asks its connected peers for their latest snapshot).
   */
  async plan(minIteration: number): Promise<{ plan: SnapshotPlan; peers: PeerId[] } | null> {
    const chunks = snapshotChunks(this.weightCount);
    const found = await this.experts.beamSearch(SNAPSHOT_GRID, [2, 2 * chunks], (c) => c[0]);
    const byIteration = new Map<number, PeerId[][]>();
    for (const f of found) {
      const [iteration, chunk] = f.coords;
      if (iteration < minIteration || chunk >= chunks) continue;
      const holders = f.holders.map((h) => h.peer).filter((p) => !p.equals(this.libp2p.peerId));
      const table = byIteration.get(iteration) ?? Array.from({ length: chunks }, () => []);
      table[chunk] = holders;
      byIteration.set(iteration, table);
    }
    const [best] = [...byIteration]
      .filter(([, table]) => table.every((h) => h.length > 0))
      .sort((a, b) => b[0] - a[0]);
    if (!best) return null;
    const [iteration, table] = best;
    const unique = new Map(table.flat().map((p) => [p.toString(), p]));
    // Holders we are not connected to are dialled (their addresses come from the DHT).
    const peers = await this.peers.reachable([...unique.values()]);
    if (peers.length === 0) return null;
    this.log.info({ iteration, chunks, holders: peers.length }, "snapshot found in the DHT");
    return { plan: { iteration, holders: (i) => table[i] ?? [] }, peers };
  }
}
