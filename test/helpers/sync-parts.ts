/**
 * The SyncParts a sync test builds around one libp2p host: its rounds, replica and peers, a real
 * snapshot planner over `snapshots` unless the test gives its own, and no snapshot decoding unless
 * the test downloads one.
 */
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { Rounds } from "../../node/chain/rounds.js";
import { signerOf } from "../../node/chain/signatures.js";
import type { SwarmNode } from "../../node/network/libp2p.js";
import type { Peers } from "../../node/network/peers.js";
import type { FaultReporter } from "../../node/observe/faults.js";
import type { Logger } from "../../node/ground/index.js";
import type { SyncParts } from "../../node/sync/catch-up.js";
import { ChainFix } from "../../node/sync/chain-fix.js";
import { SnapshotPlanner } from "../../node/sync/snapshot-plan.js";
import type { SnapshotStore } from "../../node/sync/snapshot-store.js";
import { Membership } from "../../protocol/membership.js";
import type { Replica } from "../../training/replica.js";

export interface SyncPartsOf {
  readonly host: SwarmNode;
  readonly runId: string;
  readonly self: string;
  readonly rounds: Rounds;
  readonly replica: Replica;
  readonly peers: Peers;
  readonly log: Logger;
  /** The test's planner, or the snapshots a real SnapshotPlanner plans over. */
  readonly planner: SnapshotPlanner | { readonly store: SnapshotStore };
  readonly decode?: SyncParts["decode"];
  readonly faults?: FaultReporter;
}

export async function syncParts(o: SyncPartsOf): Promise<SyncParts> {
  const weightCount = o.replica.weights.length;
  const planner =
    "store" in o.planner
      ? new SnapshotPlanner(o.host, o.runId, o.planner.store, o.peers, weightCount, o.log, Membership.OPEN, signerOf(await generateKeyPair("Ed25519")))
      : o.planner;
  return {
    libp2p: o.host,
    runId: o.runId,
    self: o.self,
    rounds: o.rounds,
    replica: o.replica,
    peers: o.peers,
    planner,
    fix: new ChainFix(o.rounds),
    log: o.log,
    decode:
      o.decode ??
      (() => {
        throw new Error("no snapshot download in this test");
      }),
    weightCount,
    faults: o.faults ?? (() => {}),
  };
}
