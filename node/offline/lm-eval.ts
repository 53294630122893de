/**
 * `seedswarm eval --model-dir`: scores text or token ids with a Hugging Face checkpoint, so a
 * forward pass can be compared with any other implementation (transformers, llama.cpp, ...).
 * Scored on onnxruntime's CPU provider (`engine.forward` "onnx", or "auto") or on the active tf
 * backend ("tfjs"); the result names the engine and its tokens per second.
 */
import { readFile } from "node:fs/promises";
import * as tf from "@tensorflow/tfjs";
import { SeedswarmError } from "../../protocol/errors.js";
import type { LmForwardOptions } from "../../training/backends.js";
import { scoreSequences, windowsOf } from "../../training/next-token-loss.js";
import { OnnxTransformer } from "../../training/onnx/index.js";
import { toTensors } from "../../training/params.js";
import { clearProgress, reportProgress } from "../ground/index.js";
import { buildTransformer, tokenBatch } from "../../training/models/transformer.js";
import { loadCheckpoint } from "../store/checkpoint.js";
import { type HfCheckpoint, readHfCheckpoint, readHfConfig, readTokenizer } from "../store/hf-checkpoint.js";

export class LmEvalError extends SeedswarmError<"LM_EVAL_INPUT"> {}

export interface LmEvalOptions {
  /** Sequences per forward pass. */
  readonly batchSize: number;
  /** Tokens per window of a text (default: the model's positions, at most 1024). */
  readonly context?: number;
  /** A seedswarm checkpoint of a transformer run whose weights to score (with the directory's config and tokenizer). */
  readonly checkpoint?: string;
  /** What runs the forward: onnx (auto) or the tf backend (tfjs), on how many cores. */
  readonly engine: LmForwardOptions;
}

interface Scored {
  readonly modelDir: string;
  readonly architecture: string;
  /** Content hash of the canonical weights. */
  readonly checksum: string;
  /** What ran the forward passes, e.g. "onnxruntime cpu (2 threads)" or "tfjs (wasm)". */
  readonly engine: string;
  /** Tokens through the model (padding included) per second of scoring, loading excluded. */
  readonly tokensPerSecond: number;
}

export interface TextScore extends Scored {
  readonly tokenizer: string;
  /** Tokens predicted (every token of every window but the first). */
  readonly tokens: number;
  readonly windows: number;
  /** Mean next-token loss (natural log) over the predicted tokens. */
  readonly loss: number;
  readonly perplexity: number;
}

export interface TokenIdsScore extends Scored {
  /** Per sequence, the next-token loss (natural log) at every position but the last. */
  readonly losses: number[][];
}

/**
 * Loads a checkpoint, showing per-tensor progress on a terminal (a large model takes a while).
 * With `checkpointFile` (a seedswarm checkpoint of a transformer run) its weights are scored
 * instead, with the directory's config.json and tokenizer (the weight files may be absent).
 */
async function load(modelDir: string, checkpointFile?: string): Promise<HfCheckpoint> {
  if (checkpointFile !== undefined) {
    const config = await readHfConfig(modelDir);
    const model = buildTransformer(config);
    const cp = await loadCheckpoint(checkpointFile);
    const m = cp.spec.model;
    if (m.kind !== "transformer" || m.architecture !== config.architecture || !(cp.weights instanceof Float32Array) || cp.weights.length !== model.layout.size) {
      throw new LmEvalError(
        "LM_EVAL_INPUT",
        `${checkpointFile} is a checkpoint of run ${cp.spec.name} (${m.kind === "transformer" ? `${m.architecture}, ${cp.weights.length} weights` : m.kind}), not of the ${config.architecture} model in ${modelDir} (${model.layout.size} weights)`,
        { file: checkpointFile, modelDir },
      );
    }
    return { dir: modelDir, config, model, weights: cp.weights, checksum: cp.checksum, files: [checkpointFile] };
  }
  try {
    return await readHfCheckpoint(modelDir, { onProgress: (done, total) => reportProgress("loading tensors", done, total) });
  } finally {
    clearProgress();
  }
}

type Scores = { losses: Float32Array[]; engine: string; tokensPerSecond: number };

/** Scores sequences with the checkpoint's weights on the engine, showing per-batch progress. */
async function score(ck: HfCheckpoint, sequences: readonly (readonly number[])[], batchSize: number, engine: LmForwardOptions): Promise<Scores> {
  if (engine.forward === "webgpu") throw new LmEvalError("LM_EVAL_INPUT", "--lm-forward webgpu: eval scores on onnx (auto) or tfjs", { forward: engine.forward });
  const progress = (done: number, total: number) => reportProgress("scoring sequences", done, total);
  let tokens = 0;
  for (let s = 0; s < sequences.length; s += batchSize) tokens += tokenBatch(sequences.slice(s, s + batchSize)).ids.length;
  const t0 = performance.now();
  const rate = () => (tokens * 1000) / Math.max(1e-3, performance.now() - t0);
  const onTfjs = (note = ""): Scores => {
    const weights = toTensors(ck.model.layout, ck.weights);
    try {
      return { losses: scoreSequences(ck.model, weights, sequences, batchSize, progress), engine: `tfjs (${tf.getBackend()})${note}`, tokensPerSecond: rate() };
    } finally {
      tf.dispose(weights);
    }
  };
  try {
    if (engine.forward === "tfjs") return onTfjs();
    let onnx: OnnxTransformer;
    try {
      onnx = await OnnxTransformer.create(ck.config, ck.weights, { threads: engine.threads });
    } catch (err) {
      // Only auto falls back, and says so; onnx asked for by name fails with the cause.
      if (engine.forward === "onnx") throw new LmEvalError("LM_EVAL_INPUT", `--lm-forward onnx: ${(err as Error).message}`, { forward: "onnx" });
      return onTfjs(`; auto: onnx failed to open (${(err as Error).message})`);
    }
    try {
      const losses: Float32Array[] = [];
      for (let s = 0; s < sequences.length; s += batchSize) {
        losses.push(...(await onnx.nextTokenLosses(tokenBatch(sequences.slice(s, s + batchSize)))));
        progress(Math.min(s + batchSize, sequences.length), sequences.length);
      }
      const threads = `${engine.threads} thread${engine.threads === 1 ? "" : "s"}`;
      return { losses, engine: `onnxruntime cpu (${threads})`, tokensPerSecond: rate() };
    } finally {
      await onnx.release();
    }
  } finally {
    clearProgress();
  }
}

const described = (ck: HfCheckpoint, scores: Scores): Scored => ({
  modelDir: ck.dir,
  architecture: ck.config.architecture,
  checksum: ck.checksum,
  engine: scores.engine,
  tokensPerSecond: scores.tokensPerSecond,
});

/** Mean next-token loss and perplexity of a text file, in consecutive windows of `context` tokens. */
export async function scoreTextFile(modelDir: string, textFile: string, options: LmEvalOptions): Promise<TextScore> {
  const ck = await load(modelDir, options.checkpoint);
  const tokenizer = await readTokenizer(modelDir, ck.config);
  const ids = tokenizer.encode(await readFile(textFile, "utf8"));
  const context = options.context ?? Math.min(ck.config.maxPositions, 1024);
  if (context > ck.config.maxPositions && ck.config.architecture !== "llama") {
    throw new LmEvalError("LM_EVAL_INPUT", `context ${context} is longer than the model's ${ck.config.maxPositions} positions`, { context });
  }
  const windows = windowsOf(ids, context);
  if (windows.length === 0) {
    throw new LmEvalError("LM_EVAL_INPUT", `${textFile} has ${ids.length} token(s): nothing to predict`, { file: textFile });
  }
  const scores = await score(ck, windows, options.batchSize, options.engine);
  const losses = scores.losses;
  let sum = 0;
  let tokens = 0;
  for (const l of losses) {
    for (const v of l) sum += v;
    tokens += l.length;
  }
  const loss = sum / tokens;
  return { ...described(ck, scores), tokenizer: tokenizer.name, tokens, windows: windows.length, loss, perplexity: Math.exp(loss) };
}

/** Parses a JSON file of token-id arrays, each checked against the vocabulary and positions. */
async function readTokenIds(file: string, vocabSize: number, maxLength: number): Promise<number[][]> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new LmEvalError("LM_EVAL_INPUT", `${file}: not JSON (${(err as Error).message})`, { file });
  }
  if (!Array.isArray(raw) || raw.length === 0) throw new LmEvalError("LM_EVAL_INPUT", `${file}: expected a non-empty JSON array of token-id arrays`, { file });
  raw.forEach((seq, i) => {
    if (!Array.isArray(seq) || seq.length === 0 || seq.length > maxLength) {
      throw new LmEvalError("LM_EVAL_INPUT", `${file}: sequence ${i} must be an array of 1 to ${maxLength} token ids`, { file, sequence: i });
    }
    const bad = seq.find((id) => !Number.isInteger(id) || id < 0 || id >= vocabSize);
    if (bad !== undefined) {
      throw new LmEvalError("LM_EVAL_INPUT", `${file}: sequence ${i} holds ${JSON.stringify(bad)}, not an id below ${vocabSize}`, { file, sequence: i });
    }
  });
  return raw as number[][];
}

/** Per-position next-token losses of each sequence of a JSON file of token-id arrays. */
export async function scoreTokenIdsFile(modelDir: string, idsFile: string, options: LmEvalOptions): Promise<TokenIdsScore> {
  const ck = await load(modelDir, options.checkpoint);
  const maxLength = ck.config.architecture === "llama" ? Number.MAX_SAFE_INTEGER : ck.config.maxPositions;
  const sequences = await readTokenIds(idsFile, ck.config.vocabSize, maxLength);
  const scores = await score(ck, sequences, options.batchSize, options.engine);
  return { ...described(ck, scores), losses: scores.losses.map((l) => Array.from(l)) };
}
