/**
 * A transformer run (model kind `transformer`): what a RunSpec turns into once the node has the
 * checkpoint and the text file it names. The spec names both by content hash, so this checks the
 * bytes it is given against them before anything trains: every node starts from the same weights
 * and draws minibatches from the same examples. Knows no I/O (node/store reads the files).
 */
import type * as tf from "@tensorflow/tfjs-core";
import { SeedswarmError } from "../protocol/errors.js";
import { type TextDatasetSpec } from "../protocol/dataset-spec.js";
import { type TransformerModelSpec } from "../protocol/model-spec.js";
import { type RunSpec, runIdOf } from "../protocol/run-spec.js";
import { Spsa } from "./algorithms/spsa.js";
import { type TextDataset, textDataset } from "./data/text-dataset.js";
import type { TextTokenizer } from "./data/tokenizer.js";
import type { TransformerConfig } from "./hf/config.js";
import { defaultLmForward, type LmForwardOptions } from "./backends.js";
import { openLmForward } from "./lm-forward.js";
import { buildTransformer, type LanguageModel, tokenBatch } from "./models/transformer.js";
import { meanNextTokenLoss, windowsOf } from "./next-token-loss.js";
import { checksum } from "./params.js";
import { Replica } from "./replica.js";
import { causalLmTask } from "./tasks/causal-lm.js";
import { promptClassificationTask, scorePrompts, tokenizePromptTask } from "./tasks/prompt-classification.js";
import type { Task } from "./tasks/task.js";
import type { HeldOutScore, TrainingRun } from "./run-context.js";

export type LanguageRunErrorCode = "LM_WEIGHTS_MISMATCH" | "LM_DATA_MISMATCH" | "LM_ARCHITECTURE_MISMATCH" | "LM_DATA_UNUSABLE";

export class LanguageRunError extends SeedswarmError<LanguageRunErrorCode> {}

/** What the node supplies for a transformer spec: the checkpoint it read and the dataset file's bytes. */
export interface LanguageRunSource {
  readonly config: TransformerConfig;
  /**
   * Canonical weights (layout order) of the checkpoint; null when the directory holds only
   * config.json and the tokenizer (the state then comes from a peer's snapshot, verified against
   * `model.weightsHash` or a verified commit).
   */
  readonly weights: Float32Array | null;
  readonly tokenizer: TextTokenizer;
  /** The text dataset file, as bytes (its SHA-256 must be the spec's dataset.contentHash). */
  readonly data: Uint8Array;
  /** For error messages: where the weights and the data came from. */
  readonly weightsFrom: string;
  readonly dataFrom: string;
}

export interface LanguageRun extends TrainingRun {
  readonly model: LanguageModel;
  readonly text: TextDataset;
  readonly tokenizer: TextTokenizer;
  readonly task: Task;
  readonly algorithm: Spsa;
}

/** Sequences per forward pass of a held-out evaluation: bounds its memory. */
const EVAL_BATCH = 16;

function tokenSequences(examples: TextDataset["train"], tokenizer: TextTokenizer, length: number): number[][] {
  return examples.flatMap((e) => windowsOf(tokenizer.encode(e.text), length));
}

/** Mean next-token loss over windows, EVAL_BATCH at a time, weighted by predicted tokens. */
function heldOutLm(model: LanguageModel, weights: readonly tf.Tensor[], windows: readonly number[][]): HeldOutScore {
  let sum = 0;
  let tokens = 0;
  for (let s = 0; s < windows.length; s += EVAL_BATCH) {
    const r = meanNextTokenLoss(model, weights, tokenBatch(windows.slice(s, s + EVAL_BATCH)));
    sum += r.loss * r.tokens;
    tokens += r.tokens;
  }
  return { loss: sum / tokens, accuracy: null, examples: tokens };
}

/**
 * Checks the source against the spec and builds the model, task, algorithm and held-out score.
 * `options` choose the engine of the SPSA pairs (lm-forward.ts).
 * @throws LanguageRunError naming both hashes when the weights or the data are not the spec's,
 *   the architectures when they differ, and the file when it yields no usable example;
 *   LmForwardError when the engine asked for cannot serve the run.
 */
export function openLanguageRun(spec: RunSpec, source: LanguageRunSource, options: LmForwardOptions = defaultLmForward): LanguageRun {
  if (spec.model.kind !== "transformer" || spec.dataset.kind !== "text") {
    throw new LanguageRunError("LM_ARCHITECTURE_MISMATCH", `run ${spec.name} is a ${spec.model.kind} run, not a transformer run`, { kind: spec.model.kind });
  }
  const m: TransformerModelSpec = spec.model;
  const d: TextDatasetSpec = spec.dataset;
  if (source.config.architecture !== m.architecture) {
    throw new LanguageRunError(
      "LM_ARCHITECTURE_MISMATCH",
      `${source.weightsFrom} is a ${source.config.architecture} checkpoint; run ${spec.name} needs ${m.architecture}`,
      { expected: m.architecture, actual: source.config.architecture },
    );
  }
  const hash = source.weights ? checksum(source.weights) : null;
  if (hash !== null && hash !== m.weightsHash) {
    throw new LanguageRunError(
      "LM_WEIGHTS_MISMATCH",
      `${source.weightsFrom}: weights hash ${hash}, run ${spec.name} names ${m.weightsHash} (model.weightsHash): not the run's checkpoint`,
      { expected: m.weightsHash, actual: hash, from: source.weightsFrom },
    );
  }
  const text = textDataset(source.data, d.format, source.dataFrom);
  if (text.contentHash !== d.contentHash) {
    throw new LanguageRunError(
      "LM_DATA_MISMATCH",
      `${source.dataFrom}: content hash ${text.contentHash}, run ${spec.name} names ${d.contentHash} (dataset.contentHash): not the run's data`,
      { expected: d.contentHash, actual: text.contentHash, from: source.dataFrom },
    );
  }
  const unusable = (problem: string): never => {
    throw new LanguageRunError("LM_DATA_UNUSABLE", `${source.dataFrom}: ${problem}`, { from: source.dataFrom });
  };
  const runId = runIdOf(spec);
  const model = buildTransformer(source.config);
  const tokenizer = source.tokenizer;
  let task: Task;
  let heldOut: LanguageRun["heldOut"];
  let lmSequences: number[][] | null = null;
  if (d.task.kind === "causal-lm") {
    if (text.labels.length > 0) unusable("causal-lm needs unlabelled text, the file has labels");
    const train = tokenSequences(text.train, tokenizer, d.task.contextLength);
    const test = tokenSequences(text.test, tokenizer, d.task.contextLength);
    if (train.length === 0 || test.length === 0) unusable(`${train.length} training and ${test.length} held-out windows of >= 2 tokens: both must be > 0`);
    task = causalLmTask(model, train);
    lmSequences = train;
    heldOut = (weights, limit = Infinity) => heldOutLm(model, weights, test.slice(0, limit));
  } else {
    if (text.labels.length !== d.task.labelWords.length) {
      unusable(`${text.labels.length} labels (${JSON.stringify(text.labels)}), dataset.task.labelWords has ${d.task.labelWords.length}`);
    }
    // Learned position tables end at maxPositions; llama's RoPE does not, but it was trained that far.
    const prompts = tokenizePromptTask(d.task, tokenizer, source.config.maxPositions);
    const labelOf = (e: TextDataset["train"][number]) => text.labels.indexOf(e.label as string);
    if (text.train.length === 0 || text.test.length === 0) unusable("both the training and the held-out split need examples");
    task = promptClassificationTask(model, text.train.map((e) => prompts.prompt(e.text)), text.train.map(labelOf), prompts.labelIds);
    const testPrompts = text.test.map((e) => prompts.prompt(e.text));
    const testLabels = text.test.map(labelOf);
    heldOut = (weights, limit = Infinity) => {
      let loss = 0;
      let hits = 0;
      const n = Math.min(limit, testPrompts.length);
      for (let s = 0; s < n; s += EVAL_BATCH) {
        const e = Math.min(s + EVAL_BATCH, n);
        const r = scorePrompts(model, weights, testPrompts.slice(s, e), testLabels.slice(s, e), prompts.labelIds);
        loss += r.loss * r.examples;
        hits += r.accuracy * r.examples;
      }
      return { loss: loss / n, accuracy: hits / n, examples: n };
    };
  }
  const forward = openLmForward(spec, lmSequences, model, options);
  const algorithm = new Spsa(runId, spec, model, task, { pairs: forward.pairs });
  return {
    runId,
    spec,
    model,
    text,
    tokenizer,
    task,
    algorithm,
    params: model.layout.size,
    heldOut,
    forward: { engine: forward.description, reason: forward.reason },
    initialReplica: () => (source.weights ? new Replica(runId, model, source.weights.slice(), 0) : null),
    replicaAt: (weights, iteration) => new Replica(runId, model, weights, iteration),
  };
}
