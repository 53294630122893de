/**
 * Opens the run a spec names, for the local trainer and the daemon alike: an image run from the
 * spec alone, a transformer run from the spec plus the checkpoint directory and text file this
 * node was given (checked against the spec's hashes by training/language-run.ts). A checkpoint
 * directory may lack the weights (config.json and tokenizer.json only): the run then has no initial
 * replica and a swarm node takes its state from a peer (node/sync/initial-state.ts).
 */
import { SeedswarmError } from "../../protocol/errors.js";
import { openLanguageRun } from "../../training/language-run.js";
import { imageTrainingRun, loadDataset, openRun } from "../../training/run-context.js";
import { readLanguageRunSource } from "./language-run-source.js";
export class RunSourceError extends SeedswarmError {
}
export async function openTrainingRun(spec, sources) {
    if (spec.model.kind !== "transformer")
        return imageTrainingRun(await openRun(spec, await loadDataset(spec, sources.idxDir)));
    if (!sources.modelDir || !sources.dataFile) {
        throw new RunSourceError("RUN_SOURCE_MISSING", `run ${spec.name} fine-tunes a transformer: give --model-dir (its Hugging Face checkpoint) and --data-file (its text)`, { run: spec.name });
    }
    return openLanguageRun(spec, await readLanguageRunSource(sources.modelDir, sources.dataFile));
}
//# sourceMappingURL=training-run.js.map