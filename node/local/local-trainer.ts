/**
 * `seedswarm train`: one process, no network, any number of simulated authors per iteration.
 * Contributions are applied in timestamp order exactly as the swarm applies them, so a local run
 * and a swarm fed the same contributions end with the same checksum.
 */
import { existsSync } from "node:fs";
import type { Algorithm, Contribution } from "../../training/algorithms/algorithm.js";
import { useBackend } from "../../training/engine.js";
import type { Replica } from "../../training/replica.js";
import type { Author } from "../../training/rng/seeds.js";
import type { HeldOutScore, RunContext } from "../../training/run-context.js";
import { openTrainingRun, RunSourceError } from "../store/training-run.js";
import { loadCheckpoint, saveCheckpoint } from "../store/checkpoint.js";
import { checkpointPath } from "../store/data-dir.js";
import { type Logger, clearProgress, reportProgress } from "../ground/index.js";
import type { LocalTrainOptions } from "./local-train-options.js";

export { defaultLocalTrainOptions, type LocalTrainOptions } from "./local-train-options.js";

export interface Progress {
  readonly iteration: number;
  readonly total: number;
  /** Mean of the training losses measured this iteration. */
  readonly trainLoss: number;
  readonly itPerSec: number;
  readonly test?: HeldOutScore;
}

export interface LocalTrainResult {
  readonly runId: string;
  readonly iteration: number;
  readonly checksum: string;
  readonly test: HeldOutScore;
  readonly history: Progress[];
  readonly seconds: number;
  readonly checkpoint: string;
  readonly resumedFrom: number;
}

/** The simulated authors of a local run: fixed ids and join times, so runs are reproducible. */
export function localAuthors(n: number): Author[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `local-${String(i).padStart(3, "0")}`,
    joinedAt: 0,
  }));
}

/** Computes every author's contribution for the replica's iteration and applies them. */
export function localIteration(
  run: RunContext | Algorithm,
  replica: Replica,
  authors: readonly Author[],
): Contribution[] {
  const algorithm = "algorithm" in run ? run.algorithm : run;
  const contributions = authors.map((author) => ({
    author,
    payload: algorithm.contribute(replica, author),
  }));
  replica.applyIteration(algorithm, contributions);
  return contributions;
}

/** Trains locally, resuming from and writing checkpoints under `dataDir`. */
export async function trainLocally(
  opts: LocalTrainOptions,
  log: Logger,
): Promise<LocalTrainResult> {
  const backend = await useBackend(opts.backend, log);
  const run = await openTrainingRun(opts.spec, opts, log, opts.lmForward);
  const total = Math.min(opts.stopAt ?? opts.spec.iterations, opts.spec.iterations);
  const path = checkpointPath(opts.dataDir, run.runId);
  const resumed = opts.resume && existsSync(path) ? await loadCheckpoint(path) : null;
  const replica = resumed ? run.replicaAt(resumed.weights, resumed.iteration) : (run.initialReplica() ?? noWeights(opts.spec.name, opts.modelDir));
  if (resumed) {
    log.info(
      { iteration: resumed.iteration, checksum: resumed.checksum.slice(0, 16), path },
      "resumed from checkpoint",
    );
  }
  const resumedFrom = replica.iteration;
  const authors = localAuthors(opts.authors);
  log.info(
    {
      run: run.runId.slice(0, 16),
      name: opts.spec.name,
      params: run.params,
      backend,
      authors: opts.authors,
      from: resumedFrom,
      to: total,
    },
    "training",
  );
  const history: Progress[] = [];
  const started = performance.now();
  let windowStart = started;
  let windowIters = 0;
  let lastReport = started;
  while (replica.iteration < total && !opts.signal?.aborted) {
    localIteration(run.algorithm, replica, authors);
    windowIters += 1;
    const t = replica.iteration;
    const stageAt = run.algorithm.stageAt?.bind(run.algorithm);
    if (stageAt && stageAt(t - 1) !== stageAt(t - 2) && t > 1) log.info({ iteration: t - 1, stage: stageAt(t - 1) }, "stage switched");
    const now = performance.now();
    const due = (every: number) => every > 0 && t % every === 0;
    reportProgress("training", t, total, `loss ${run.algorithm.lastLoss.toFixed(4)}`);
    const test =
      due(opts.evalEvery) && t < total
        ? run.heldOut(replica.backend.tensors, opts.evalLimit)
        : undefined;
    if (test || now - lastReport > 2000) {
      const p: Progress = {
        iteration: t,
        total,
        trainLoss: run.algorithm.lastLoss,
        itPerSec: (windowIters * 1000) / Math.max(1, now - windowStart),
        test,
      };
      history.push(p);
      log.info(
        {
          iteration: t,
          total,
          loss: round(p.trainLoss),
          itPerSec: round(p.itPerSec),
          testAccuracy: test?.accuracy == null ? undefined : round(test.accuracy),
          testLoss: test && round(test.loss),
        },
        "progress",
      );
      lastReport = now;
      windowStart = now;
      windowIters = 0;
    }
    if (due(opts.checkpointEvery) && t < total)
      await saveCheckpoint(path, opts.spec, t, replica.weights);
  }
  clearProgress();
  const cp = await saveCheckpoint(path, opts.spec, replica.iteration, replica.weights);
  const test = run.heldOut(replica.backend.tensors);
  const seconds = (performance.now() - started) / 1000;
  log.info(
    {
      iteration: replica.iteration,
      testAccuracy: test.accuracy === null ? undefined : round(test.accuracy),
      testLoss: round(test.loss),
      seconds: round(seconds),
      checksum: cp.checksum,
      checkpoint: path,
    },
    opts.signal?.aborted ? "stopped early; checkpoint written" : "done",
  );
  replica.dispose();
  return {
    runId: run.runId,
    iteration: cp.iteration,
    checksum: cp.checksum,
    test,
    history,
    seconds,
    checkpoint: path,
    resumedFrom,
  };
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

/** A local run has no peers to take the initial state from: it needs the weight files. */
function noWeights(run: string, modelDir: string | undefined): never {
  throw new RunSourceError(
    "RUN_WEIGHTS_MISSING",
    `${modelDir ?? "the model directory"} has config.json but no weights (model.safetensors): run ${run} trains locally only from its checkpoint's weights`,
    { run, modelDir: modelDir ?? null },
  );
}
