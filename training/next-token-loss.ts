/**
 * Causal language-model loss: the cross-entropy (natural log) of predicting token t+1 from
 * positions <= t, for every position whose token and next token are both real (not padding).
 * The vocabulary projection runs only on those rows.
 */
import * as tf from "@tensorflow/tfjs-core";
import { type LanguageModel, type TokenBatch, tokenBatch } from "./models/transformer.js";

/** The rows a batch predicts from (token and next token both real), their targets, and how many per sequence. */
export function predictedRows(batch: TokenBatch): { rows: number[]; targets: number[]; counts: number[] } {
  const T = batch.length;
  const rows: number[] = [];
  const targets: number[] = [];
  const counts = new Array<number>(batch.size).fill(0);
  for (let b = 0; b < batch.size; b++) {
    for (let t = 0; t + 1 < T; t++) {
      const i = b * T + t;
      if (batch.mask[i] && batch.mask[i + 1]) {
        rows.push(i);
        targets.push(batch.ids[i + 1]);
        counts[b]++;
      }
    }
  }
  return { rows, targets, counts };
}

/** The losses of `predictedRows`, in row order, split into one array per sequence. */
export function perSequence(flat: Float32Array, counts: readonly number[]): Float32Array[] {
  const out: Float32Array[] = [];
  let at = 0;
  for (const n of counts) {
    out.push(flat.slice(at, at + n));
    at += n;
  }
  return out;
}

/** Per-sequence next-token losses: entry t of sequence b is -log p(token t+1 | tokens <= t), over real tokens only. */
export function nextTokenLosses(model: LanguageModel, weights: readonly tf.Tensor[], batch: TokenBatch): Float32Array[] {
  const { rows, targets, counts } = predictedRows(batch);
  const flat =
    rows.length === 0
      ? new Float32Array(0)
      : (tf.tidy(() => {
          const h = tf.gather(model.hidden(weights, batch), tf.tensor1d(rows, "int32")) as tf.Tensor2D;
          const logits = model.head(weights, h);
          const picked = tf.gatherND(logits, tf.tensor2d(targets.flatMap((y, r) => [r, y]), [rows.length, 2], "int32"));
          return tf.sub(tf.logSumExp(logits, 1), picked);
        }).dataSync() as Float32Array);
  return perSequence(flat, counts);
}

/** The mean of per-sequence next-token losses over every predicted position, and how many there were. */
export function meanOfLosses(losses: readonly Float32Array[]): { loss: number; tokens: number } {
  let sum = 0;
  let tokens = 0;
  for (const seq of losses) {
    for (const l of seq) sum += l;
    tokens += seq.length;
  }
  return { loss: tokens === 0 ? Number.NaN : sum / tokens, tokens };
}

/** Mean next-token loss over every predicted position of a batch, and how many there were. */
export function meanNextTokenLoss(
  model: LanguageModel,
  weights: readonly tf.Tensor[],
  batch: TokenBatch,
): { loss: number; tokens: number } {
  return meanOfLosses(nextTokenLosses(model, weights, batch));
}

/** Splits a token stream into consecutive windows of at most `length` tokens (the last may be shorter; a 1-token tail predicts nothing and is dropped). */
export function windowsOf(ids: readonly number[], length: number): number[][] {
  if (!(Number.isInteger(length) && length >= 2)) throw new RangeError(`window length must be an integer >= 2, got ${length}`);
  const out: number[][] = [];
  for (let s = 0; s < ids.length; s += length) {
    const w = ids.slice(s, s + length);
    if (w.length >= 2) out.push(w);
  }
  return out;
}

/**
 * Next-token losses of many sequences, `batchSize` at a time (right-padded to the longest of each
 * batch): the same per-sequence values as `nextTokenLosses` on each alone.
 */
export function scoreSequences(
  model: LanguageModel,
  weights: readonly tf.Tensor[],
  sequences: readonly (readonly number[])[],
  batchSize: number,
  onBatch?: (done: number, total: number) => void,
): Float32Array[] {
  const out: Float32Array[] = [];
  for (let s = 0; s < sequences.length; s += batchSize) {
    out.push(...nextTokenLosses(model, weights, tokenBatch(sequences.slice(s, s + batchSize))));
    onBatch?.(Math.min(s + batchSize, sequences.length), sequences.length);
  }
  return out;
}
