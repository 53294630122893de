/** What `seedswarm train` is told, and the defaults (the trainer itself is local-trainer.ts). */
import type { RunSpec } from "../../protocol/run-spec.js";
import { type BackendChoice, defaultLmForward, type LmForwardOptions } from "../../training/backends.js";

export interface LocalTrainOptions {
  readonly spec: RunSpec;
  readonly dataDir: string;
  readonly backend: BackendChoice;
  /** What measures a transformer run's contributions, on how many cores. */
  readonly lmForward?: LmForwardOptions;
  /** Simulated authors per iteration: 1 is plain single-node MeZO. */
  readonly authors: number;
  /** Stop after this many applied iterations (default: the spec's length). */
  readonly stopAt?: number;
  /** Evaluate test accuracy every this many iterations (0: only at the end). */
  readonly evalEvery: number;
  /** Test examples used by periodic evaluations (the final one uses all). */
  readonly evalLimit: number;
  /** Write a checkpoint every this many iterations (0: only at the end). */
  readonly checkpointEvery: number;
  /** Resume from the run's checkpoint in dataDir when there is one. */
  readonly resume: boolean;
  /** An IDX image run's directory of four files (their bytes must hash to the spec's). */
  readonly idxDir?: string;
  /** A transformer run's Hugging Face checkpoint directory (its weights must hash to the spec's). */
  readonly modelDir?: string;
  /** A transformer run's text file (JSONL/CSV; its bytes must hash to the spec's). */
  readonly dataFile?: string;
  /** Stops training cleanly (checkpoint written) when aborted. */
  readonly signal?: AbortSignal;
}

export const defaultLocalTrainOptions = {
  backend: "auto",
  lmForward: defaultLmForward,
  /** One author reproduces single-node training; more simulate a swarm. */
  authors: 1,
  /** Often enough to see the curve, rare enough to cost < 5% of the run on MNIST. */
  evalEvery: 200,
  /** 2,000 test images: +/-1% accuracy resolution at a tenth of the cost of the full set. */
  evalLimit: 2000,
  checkpointEvery: 500,
  resume: true,
} as const satisfies Partial<LocalTrainOptions>;
