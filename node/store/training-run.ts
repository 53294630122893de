/**
 * Opens the run a spec names, for the local trainer and the daemon alike: an image run from the
 * spec alone, a transformer run from the spec plus the checkpoint directory and text file this
 * node was given (checked against the spec's hashes by training/language-run.ts). A checkpoint
 * directory may lack the weights (config.json and tokenizer.json only): the run then has no initial
 * replica and a swarm node takes its state from a peer (node/sync/initial-state.ts).
 */
import { SeedswarmError } from "../../protocol/errors.js";
import type { RunSpec } from "../../protocol/run-spec.js";
import { defaultLmForward, type LmForwardOptions } from "../../training/backends.js";
import { openLanguageRun } from "../../training/language-run.js";
import { imageTrainingRun, loadDataset, openRun, type TrainingRun } from "../../training/run-context.js";
import type { Logger } from "../ground/index.js";
import { readLanguageRunSource } from "./language-run-source.js";

export class RunSourceError extends SeedswarmError<"RUN_SOURCE_MISSING" | "RUN_WEIGHTS_MISSING"> {}

/** Where a transformer run's files are on this machine. */
export interface RunSources {
  /** An IDX image run's directory of four files (their bytes must hash to the spec's). */
  readonly idxDir?: string;
  readonly modelDir?: string;
  readonly dataFile?: string;
}

/** Opens the run; a transformer run's contributions are measured by the engine `lmForward` names (training/lm-forward.ts). */
export async function openTrainingRun(spec: RunSpec, sources: RunSources, log?: Logger, lmForward: LmForwardOptions = defaultLmForward): Promise<TrainingRun> {
  if (spec.model.kind !== "transformer") return imageTrainingRun(await openRun(spec, await loadDataset(spec, sources.idxDir)));
  if (!sources.modelDir || !sources.dataFile) {
    throw new RunSourceError(
      "RUN_SOURCE_MISSING",
      `run ${spec.name} fine-tunes a transformer: give --model-dir (its Hugging Face checkpoint) and --data-file (its text)`,
      { run: spec.name },
    );
  }
  const run = openLanguageRun(spec, await readLanguageRunSource(sources.modelDir, sources.dataFile), lmForward);
  if (run.forward) log?.info(run.forward, "contributions' forward passes");
  return run;
}
