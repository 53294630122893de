/**
 * The state of a node that has no initial weights of its own (a transformer node whose
 * `--model-dir` holds config.json and tokenizer.json only) and no checkpoint: taken from its
 * peers' snapshots, verified like any snapshot and never on a holder's word. The holders' latest
 * snapshot is vouched for by the verified commit that produced it (an anchor run, anchor-run.ts);
 * the snapshot at iteration 0 by the RunSpec itself, whose `model.weightsHash` is the checksum of
 * the initial state. Runs before the rounds exist, so nothing is built on a state not yet known.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { SeedswarmError } from "../../protocol/errors.js";
import type { Weights } from "../../training/params.js";
import { chained, type EncodedCommit, ZERO_HASH } from "../chain/commit.js";
import { PENALTY } from "../chain/penalties.js";
import type { Peers } from "../network/peers.js";
import { ANCHOR_QUORUM, type AnchorParts, joinerReference } from "./anchor-run.js";
import { chainBehind, excludedBy, holdersFirst } from "./chain-behind.js";
import { defaultSyncOptions } from "./protocols.js";
import { fetchVerifiedSnapshot, type SnapshotFetchParts, type VerifiedSnapshot } from "./snapshot-fetch.js";

/** Snapshot downloads tried before giving up, however short the join wait. */
const MIN_ATTEMPTS = 3;


export class InitialStateError extends SeedswarmError<"STATE_NO_PEERS" | "STATE_UNVERIFIED"> {}

export interface InitialStateParts extends AnchorParts {
  readonly peers: Pick<Peers, "connected" | "admits" | "waitFor">;
  /** The checksum of the run's initial state (a transformer spec's model.weightsHash; null: unknown, only later snapshots verify). */
  readonly initialChecksum: string | null;
  /** Weights in the run's model: every snapshot has weightCount x 4 bytes. */
  readonly weightCount: number;
  readonly decode: (bytes: Uint8Array) => Weights;
  /** How long to look for peers. */
  readonly joinWaitMs: number;
  /** Aborted when the daemon stops. */
  readonly signal: AbortSignal;
  /** Where the missing weights were looked for (for the error message). */
  readonly weightsFrom: string;
}

/** A verified state from peers and the chain it continues. */
export interface InitialState {
  readonly weights: Weights;
  readonly iteration: number;
  /** The commit that produced the state (none at iteration 0: the chain starts there), its hash and authors. */
  readonly chain: { readonly hash: Uint8Array; readonly authors: string[]; readonly commits: EncodedCommit[]; readonly excluded?: readonly string[] };
}

/**
 * A verified state from peers: their latest snapshot, else the one at iteration 0.
 * @throws InitialStateError STATE_NO_PEERS (no peer found within joinWaitMs: a lone node without
 *   weights has nothing to train), STATE_UNVERIFIED (no peer served a snapshot that verifies).
 */
export async function initialStateFromPeers(s: InitialStateParts): Promise<InitialState> {
  const context = { weightsFrom: s.weightsFrom, joinWaitMs: s.joinWaitMs };
  s.log.info(context, "no initial weights and no checkpoint: taking the state from peers");
  if (!(await s.peers.waitFor(1, Date.now() + s.joinWaitMs, s.signal))) {
    throw new InitialStateError(
      "STATE_NO_PEERS",
      `${s.weightsFrom} holds no weights (model.safetensors) and no peer of the run was found within ${s.joinWaitMs} ms to take the state from: give the weight files, or --bootstrap a running peer`,
      context,
    );
  }
  const parts: SnapshotFetchParts = {
    node: s.libp2p,
    runId: s.runId,
    log: s.log,
    opts: defaultSyncOptions,
    weightCount: s.weightCount,
    decode: s.decode,
    blame: (peer, reason) => s.blame?.(peer, reason, PENALTY.badSnapshot),
    reference: (iteration, holders) => joinerReference(s, iteration, holders, s.initialChecksum),
  };
  let problem = "";
  // A peer still starting, or a request timing out on a loaded machine, costs one attempt: try
  // again, a second apart, until the join wait is over (MIN_ATTEMPTS at least).
  const deadline = Date.now() + s.joinWaitMs;
  for (let attempt = 1; attempt <= MIN_ATTEMPTS || Date.now() < deadline; attempt++) {
    if (s.signal.aborted) break;
    if (attempt > 1) await sleep(1000);
    // The latest (anchored by a commit) first; the initial state (vouched for by the spec) after.
    for (const want of [{ minIteration: 0 }, { minIteration: 0, iterations: [0] }]) {
      let snap: VerifiedSnapshot;
      try {
        snap = await fetchVerifiedSnapshot(parts, s.peers.connected(), want);
      } catch (err) {
        problem = (err as Error).message;
        s.log.info({ problem, attempt, iterations: want.iterations ?? "latest" }, "no verified snapshot for the initial state");
        continue;
      }
      const { weights, iteration, checksum, blamed, anchor, holders } = snap;
      s.log.info({ iteration, checksum, blamed: blamed.length, anchored: anchor !== null }, "initial state adopted from a peer snapshot");
      if (!anchor) return { weights, iteration, chain: { hash: ZERO_HASH, authors: [], commits: [] } };
      const head = chained(anchor);
      // The chain behind the snapshot, and whom it excluded, before this node contributes or proposes.
      const behind = await chainBehind(s.libp2p, s.runId, anchor, holdersFirst(s.peers.connected(), holders));
      // Its bans only on a quorum's word (anchor-run.ts ANCHOR_QUORUM; security review, finding 8).
      const excluded = snap.vouchers === undefined || snap.vouchers >= ANCHOR_QUORUM ? excludedBy(behind) : [];
      return { weights, iteration, chain: { hash: head.hash, authors: anchor.commit.entries.map((e) => e.author.id), commits: [...behind, anchor], excluded } };
    }
  }
  throw new InitialStateError(
    "STATE_UNVERIFIED",
    `${s.weightsFrom} holds no weights and no peer served a snapshot that verifies against the run (${problem})`,
    context,
  );
}
