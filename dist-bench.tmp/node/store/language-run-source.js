/**
 * Reads what a transformer run needs from disk: the Hugging Face checkpoint directory given by
 * `--model-dir` (config, canonical weights, tokenizer) and the text file given by `--data-file`.
 * training/language-run.ts checks both against the hashes the RunSpec names. A directory with
 * config.json and tokenizer.json but no weight files is a source without weights: a swarm node
 * then takes the initial state from a peer's verified snapshot.
 */
import { readFile } from "node:fs/promises";
import { hasWeightFiles, readHfCheckpoint, readHfConfig, readTokenizer } from "./hf-checkpoint.js";
export async function readLanguageRunSource(modelDir, dataFile, options = {}) {
    const ck = hasWeightFiles(modelDir) ? await readHfCheckpoint(modelDir, options) : null;
    const config = ck?.config ?? (await readHfConfig(modelDir));
    return {
        config,
        weights: ck?.weights ?? null,
        tokenizer: await readTokenizer(modelDir, config),
        data: new Uint8Array(await readFile(dataFile)),
        weightsFrom: modelDir,
        dataFrom: dataFile,
    };
}
//# sourceMappingURL=language-run-source.js.map