/**
 * The state a starting daemon continues from, before the rounds exist: the replica as this node
 * left it (store/resume.ts: the newest readable checkpoint, then the commit log replayed past it),
 * or, with neither initial weights nor a checkpoint, a verified peer snapshot
 * (sync/initial-state.ts); our author identity; the chain to continue.
 */
import { mkdirSync } from "node:fs";
import type { RunSpec } from "../protocol/run-spec.js";
import type { Replica } from "../training/replica.js";
import type { Author } from "../training/rng/seeds.js";
import type { TrainingRun } from "../training/run-context.js";
import { stateFromBytes } from "../training/state-bytes.js";
import type { EncodedCommit } from "./chain/commit.js";
import { CommitLogFile } from "./chain/commit-log.js";
import type { NodeOptions } from "./node-options.js";
import { CheckpointWriter } from "./store/checkpoint.js";
import { checkpointPath, commitLogPath, runDir } from "./store/data-dir.js";
import { resumeFromDisk } from "./store/resume.js";
import { initialStateFromPeers, type InitialStateParts } from "./sync/initial-state.js";

/** The chain the rounds resume: the last commit's hash and authors, the commits that lead to it. */
export interface ResumedChain {
  readonly hash: Uint8Array;
  readonly authors: string[];
  readonly commits: EncodedCommit[];
  /** A peer snapshot's: the authors the commits behind it excluded (sync/chain-behind.ts). */
  readonly excluded?: readonly string[];
}

export interface LoadedState {
  readonly replica: Replica;
  readonly self: Author;
  readonly commitLog: CommitLogFile;
  readonly checkpoints: CheckpointWriter;
  /** Iteration of the checkpoint on disk resumed from (null: none or unknown). */
  readonly checkpointAt: number | null;
  readonly chain: ResumedChain;
}

/** What resuming from disk needs: no network. */
export interface LocalStateParts {
  readonly opts: Pick<NodeOptions, "dataDir" | "joinWaitMs" | "modelDir">;
  readonly runId: string;
  readonly spec: RunSpec;
  readonly run: TrainingRun;
  /** This node's peer id: its author id. */
  readonly peerId: string;
  readonly log: InitialStateParts["log"];
}

/** The state on disk (store/resume.ts): complete, or without replica and chain (peers must serve them). */
export type LocalState = LoadedState | (Omit<LoadedState, "replica" | "chain"> & { readonly replica: null; readonly chain: null });

export interface LoadStateParts extends Pick<InitialStateParts, "libp2p" | "peers" | "blame" | "signal">, LocalStateParts {}

/**
 * Resumes from disk: the newest readable checkpoint, then the commit log replayed past it. Needs
 * no network, so a node given its spec does it before libp2p starts: peers that connect then
 * hear the head it resumed at, never a head still being replayed (issue 16, R5).
 */
export async function loadLocalState(s: LocalStateParts): Promise<LocalState> {
  const { opts, runId, run, log } = s;
  const path = checkpointPath(opts.dataDir, runId);
  mkdirSync(runDir(opts.dataDir, runId), { recursive: true });
  const commitLog = new CommitLogFile(commitLogPath(opts.dataDir, runId), log);
  const resumed = await resumeFromDisk({
    checkpointPath: path,
    tempDirs: [opts.dataDir, runDir(opts.dataDir, runId)],
    commitLog,
    run,
    replica: run.initialReplica(),
    log,
  });
  const self = { id: s.peerId, joinedAt: resumed.joinedAt ?? Date.now() };
  const checkpoints = new CheckpointWriter(path, s.spec);
  if (!resumed.replica) return { replica: null, self, commitLog, checkpoints, checkpointAt: null, chain: null };
  const replica = resumed.replica;
  if (resumed.source !== "initial state") {
    // The replica's checksum when it is still at the checkpoint (nothing replayed past it).
    const checksum = replica.iteration === resumed.baseIteration ? replica.checksum() : undefined;
    log.info({ iteration: resumed.baseIteration, source: resumed.source, checksum }, "resumed from checkpoint");
  }
  if (resumed.replayed > 0)
    log.info(
      { from: resumed.baseIteration, iteration: replica.iteration, commits: resumed.replayed, checksum: replica.checksum() },
      "commit log replayed",
    );
  if (resumed.commits.length > 0)
    log.info({ commits: resumed.commits.length, from: resumed.commits[0].commit.iteration }, "commit log restored");
  const checkpointAt = resumed.source === "checkpoint" ? resumed.baseIteration : null;
  return { replica, self, commitLog, checkpoints, checkpointAt, chain: { ...resumed.chain, commits: resumed.commits } };
}

/**
 * Loads the state; see the file comment. `local`: what loadLocalState found before libp2p
 * started (read now when not given). With no replica on disk, a verified peer snapshot; taken
 * from no peer, libp2p stops and the error goes up.
 */
export async function loadState(s: LoadStateParts, local?: LocalState): Promise<LoadedState> {
  const found = local ?? (await loadLocalState(s));
  if (found.replica) return found;
  const { replica, chain } = await stateFromPeers(s);
  return { ...found, replica, chain };
}

/**
 * No initial weights and no checkpoint (a transformer node given config.json and the tokenizer
 * only): the state of a verified peer snapshot and the chain it continues.
 */
async function stateFromPeers(s: LoadStateParts): Promise<{ replica: Replica; chain: ResumedChain }> {
  const { spec, run } = s;
  const got = await initialStateFromPeers({
    libp2p: s.libp2p,
    runId: s.runId,
    peers: s.peers,
    log: s.log,
    blame: s.blame,
    initialChecksum: spec.model.kind === "transformer" ? spec.model.weightsHash : null,
    // A transformer's state is float32: one value per parameter.
    weightCount: run.params,
    decode: (bytes) => stateFromBytes(spec.model, bytes, run.params),
    joinWaitMs: s.opts.joinWaitMs,
    signal: s.signal,
    weightsFrom: s.opts.modelDir ?? "the model directory",
  }).catch(async (err: unknown) => {
    await s.libp2p.stop();
    throw err;
  });
  return { replica: run.replicaAt(got.weights, got.iteration), chain: got.chain };
}
