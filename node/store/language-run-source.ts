/**
 * Reads what a transformer run needs from disk: the Hugging Face checkpoint directory given by
 * `--model-dir` (config, canonical weights, tokenizer) and the text file given by `--data-file`.
 * training/language-run.ts checks both against the hashes the RunSpec names.
 */
import { readFile } from "node:fs/promises";
import type { LanguageRunSource } from "../../training/language-run.js";
import { readHfCheckpoint, type ReadOptions, readTokenizer } from "./hf-checkpoint.js";

export async function readLanguageRunSource(modelDir: string, dataFile: string, options: ReadOptions = {}): Promise<LanguageRunSource> {
  const ck = await readHfCheckpoint(modelDir, options);
  return {
    config: ck.config,
    weights: ck.weights,
    tokenizer: await readTokenizer(modelDir, ck.config),
    data: new Uint8Array(await readFile(dataFile)),
    weightsFrom: modelDir,
    dataFrom: dataFile,
  };
}
