/** What a swarm daemon is told, and the defaults (the daemon itself is node.ts). */
import type { RunSpec } from "../protocol/run-spec.js";
import { type BackendChoice, defaultLmForward, type LmForwardOptions } from "../training/backends.js";
import type { HttpOptions } from "./observe/http-server.js";
import { defaultNetworkOptions, type NetworkOptions } from "./network/network-options.js";

export interface NodeOptions {
  /** The run to train; or leave it out and name `runId` to fetch the spec from peers. */
  readonly spec?: RunSpec;
  /** A run to join by id: its spec comes from this node's checkpoint or from a peer. */
  readonly runId?: string;
  readonly dataDir: string;
  /** An IDX image run's directory of four files (their bytes must hash to the spec's). */
  readonly idxDir?: string;
  /** A transformer run's Hugging Face checkpoint directory (its weights must hash to the spec's). */
  readonly modelDir?: string;
  /** A transformer run's text file (its bytes must hash to the spec's). */
  readonly dataFile?: string;
  readonly backend: BackendChoice;
  /** What measures a transformer run's contributions and audits, on how many cores. */
  readonly lmForward?: LmForwardOptions;
  readonly network: NetworkOptions;
  /** Verify the checksum with a random peer every this many iterations. */
  readonly checkEvery: number;
  /** Stop (checkpoint, leave, exit) after this many applied iterations (at most the run length). */
  readonly stopAt: number;
  /** How long to look for peers before starting a chain alone. */
  readonly joinWaitMs: number;
  /** Wait (up to joinWaitMs) for this many peers before training: a swarm that starts together. */
  readonly minPeers: number;
  /** Time allowed from a stop signal to exit. */
  readonly leaveDeadlineMs: number;
  /** Checkpoint every this many iterations (0: only when stopping). */
  readonly checkpointEvery: number;
  /** Serve /status, /metrics, /healthz and the dashboard here (null: no HTTP server). */
  readonly http: HttpOptions | null;
  /** Evaluate test accuracy (on a fixed subset) every this many iterations (0: never). */
  readonly evalEvery: number;
  /** Test examples in that subset (the first ones of the test set). */
  readonly evalLimit: number;
  /** Share of this process's other CPU that audits by recomputation may use (0: no audits of ours). */
  readonly auditBudget: number;
}

/**
 * The default audit budget (node/chain/audits.ts): audits cost at most a tenth of the CPU that
 * training and networking use. Defined here, not beside the audits, so that the command line can
 * read its defaults without loading the training code (and TensorFlow.js) behind them.
 */
export const DEFAULT_AUDIT_BUDGET = 0.1;

export const defaultNodeOptions = {
  backend: "auto",
  lmForward: defaultLmForward,
  network: defaultNetworkOptions,
  // The brief's C: one random-peer comparison per 10 iterations costs one small request.
  checkEvery: 10,
  // Long enough for bootstrap dials and a first heartbeat; short enough for a lone first node.
  joinWaitMs: 3000,
  // Start with whoever is there: a run must not need a quorum to make progress.
  minPeers: 0,
  // Spot instances give 30 s to 2 min of notice; a checkpoint takes milliseconds.
  leaveDeadlineMs: 10_000,
  checkpointEvery: 100,
  // Off: an operator opts in, on loopback unless they say otherwise (the CLI checks).
  http: null,
  // Every 50 iterations costs ~1% of a tiny round and well under that of an MNIST one.
  evalEvery: 50,
  evalLimit: 1000,
  // Issue 15's budget: audits cost at most a tenth of what training and networking cost.
  auditBudget: DEFAULT_AUDIT_BUDGET,
} as const satisfies Partial<NodeOptions>;
