/**
 * Reads what a transformer run needs from disk: the Hugging Face checkpoint directory given by
 * `--model-dir` (config, canonical weights, tokenizer) and the text file given by `--data-file`.
 * training/language-run.ts checks both against the hashes the RunSpec names. A directory with
 * config.json and tokenizer.json but no weight files is a source without weights: a swarm node
 * then takes the initial state from a peer's verified snapshot.
 */
import { readFile } from "node:fs/promises";
import { freemem } from "node:os";
import { SeedswarmError } from "../../protocol/errors.js";
import { transformerParameterCount } from "../../training/hf/config.js";
import type { LanguageRunSource } from "../../training/language-run.js";
import { hasWeightFiles, readHfCheckpoint, readHfConfig, type ReadOptions, readTokenizer } from "./hf-checkpoint.js";

export class ModelTooLargeError extends SeedswarmError<"LM_TOO_LARGE"> {}

/**
 * Float32 copies of the weights a training node holds at least: the canonical replica, the tensor
 * backend's copy, and the forward engine's (onnx worker's, or XNNPACK's packed matrices on wasm).
 */
export const WEIGHT_COPIES = 3;

/**
 * Reads the run's files. Before any weight is read, checks that the model fits: `available`
 * (default: the memory the OS reports free) must hold WEIGHT_COPIES float32 copies of it.
 * @throws ModelTooLargeError LM_TOO_LARGE naming the bytes needed and available
 */
export async function readLanguageRunSource(modelDir: string, dataFile: string, options: ReadOptions & { available?: number } = {}): Promise<LanguageRunSource> {
  const config = await readHfConfig(modelDir);
  const params = transformerParameterCount(config);
  const needed = WEIGHT_COPIES * 4 * params;
  const available = options.available ?? freemem();
  if (needed > available) {
    const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;
    throw new ModelTooLargeError(
      "LM_TOO_LARGE",
      `${modelDir}: ${params.toLocaleString("en-US")} parameters need ${needed} bytes (${gib(needed)}: ${WEIGHT_COPIES} float32 copies: the replica, the tensor backend's, the forward engine's); this machine has ${available} bytes (${gib(available)}) available`,
      { needed, available, params },
    );
  }
  const ck = hasWeightFiles(modelDir) ? await readHfCheckpoint(modelDir, options) : null;
  return {
    config,
    weights: ck?.weights ?? null,
    tokenizer: await readTokenizer(modelDir, config),
    data: new Uint8Array(await readFile(dataFile)),
    weightsFrom: modelDir,
    dataFrom: dataFile,
  };
}
