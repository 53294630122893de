/**
 * The language-model fixtures (test/fixtures/lm: tiny checkpoints and the outputs transformers
 * 5.17 computed for them; see its README) and the comparison with them that the tests and the
 * `lm` benchmark share. Needs an active tf backend.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs";
import type { HfCheckpoint } from "../../node/store/hf-checkpoint.js";
import { type TokenBatch, tokenBatch } from "../../training/models/transformer.js";
import { nextTokenLosses } from "../../training/next-token-loss.js";
import { toTensors } from "../../training/params.js";

/** The fixtures directory, with a trailing slash, from the compiled tests in dist/test/unit. */
export const LM_FIXTURES = fileURLToPath(new URL("../../../test/fixtures/lm/", import.meta.url));

export const LM_FIXTURE_MODELS = ["gpt2-tiny", "opt-tiny", "llama-tiny"] as const;

export interface ReferenceCase {
  name: string;
  input_ids: number[][];
  next_token_nll: number[][];
  mean_loss: number;
  probe_ids: number[];
  probe_logits: number[][][];
}

export function referenceCases(model: string): ReferenceCase[] {
  return (JSON.parse(readFileSync(`${LM_FIXTURES}${model}/reference.json`, "utf8")) as { cases: ReferenceCase[] }).cases;
}

function lastLogits(model: string, name: string): Float32Array {
  const b = readFileSync(`${LM_FIXTURES}${model}/${name}.last_logits.f32`);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** Per-sequence next-token losses and logits [b][t][v] of a batch. */
export function lossesAndLogits(ck: HfCheckpoint, weights: tf.Tensor[], batch: TokenBatch): FixtureOutputs {
  const losses = nextTokenLosses(ck.model, weights, batch);
  const logits = tf.tidy(() => ck.model.forward(weights, batch)).dataSync() as Float32Array;
  return { losses, logits };
}

export interface ReferenceErrors {
  /** Largest |logit - reference| over the probe logits at every position and the full last-position logits. */
  readonly logitErr: number;
  /** Largest relative error of a per-position next-token loss. */
  readonly lossErr: number;
  /** Whether every sequence has as many losses as the reference. */
  readonly lengthsMatch: boolean;
}

/** Per-sequence losses and logits [b][t][v] of a batch, from any forward. */
export interface FixtureOutputs {
  readonly losses: Float32Array[];
  readonly logits: Float32Array;
}

/** One forward's outputs against transformers' for a reference case; folds into `into`. */
function compareCase(name: string, c: ReferenceCase, V: number, out: FixtureOutputs, into: ReferenceErrors): ReferenceErrors {
  let { logitErr, lossErr, lengthsMatch } = into;
  const T = c.input_ids[0].length;
  const { losses, logits } = out;
  const last = lastLogits(name, c.name);
  c.input_ids.forEach((_, b) => {
    for (let t = 0; t < T; t++) {
      c.probe_ids.forEach((id, j) => {
        logitErr = Math.max(logitErr, Math.abs(logits[(b * T + t) * V + id] - c.probe_logits[b][t][j]));
      });
    }
    for (let v = 0; v < V; v++) logitErr = Math.max(logitErr, Math.abs(logits[(b * T + T - 1) * V + v] - last[b * V + v]));
    lengthsMatch &&= losses[b].length === c.next_token_nll[b].length;
    losses[b].forEach((l, t) => {
      const want = c.next_token_nll[b][t];
      lossErr = Math.max(lossErr, Math.abs(l - want) / Math.abs(want));
    });
  });
  return { logitErr, lossErr, lengthsMatch };
}

const NO_ERRORS: ReferenceErrors = { logitErr: 0, lossErr: 0, lengthsMatch: true };

/** A fixture checkpoint's outputs (tfjs, the active backend) against transformers' for every reference case. */
export function referenceErrors(name: string, ck: HfCheckpoint): ReferenceErrors {
  const weights = toTensors(ck.model.layout, ck.weights);
  try {
    return referenceCases(name).reduce(
      (acc, c) => compareCase(name, c, ck.config.vocabSize, lossesAndLogits(ck, weights, tokenBatch(c.input_ids)), acc),
      NO_ERRORS,
    );
  } finally {
    tf.dispose(weights);
  }
}

/** The same comparison for a forward that answers asynchronously (onnxruntime). */
export async function referenceErrorsOf(
  name: string,
  vocab: number,
  forward: (batch: TokenBatch) => Promise<FixtureOutputs>,
): Promise<ReferenceErrors> {
  let acc = NO_ERRORS;
  for (const c of referenceCases(name)) acc = compareCase(name, c, vocab, await forward(tokenBatch(c.input_ids)), acc);
  return acc;
}
