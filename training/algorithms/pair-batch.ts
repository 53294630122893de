/**
 * What the batched pair sources (lowrank-forward.ts, fullrank-forward.ts) share: the k seeds'
 * minibatches stacked as one input, and the mean cross-entropy of each of 2k logit slices.
 */
import * as tf from "@tensorflow/tfjs-core";
import { sampleBatch, type Split } from "../data/dataset.js";
import type { Model } from "../models/model.js";
import type { Seed } from "../rng/seeds.js";

/** Losses of the k pairs: plus[j] at w + eps E_j, minus[j] at w - eps E_j. */
export interface PairLosses {
  readonly plus: number[];
  readonly minus: number[];
}

/**
 * What measures all k pairs of a contribution at once: low-rank directions (lowrank-forward.ts;
 * gpu/lm-pairs.ts on a device) or full-rank ones (fullrank-forward.ts).
 */
export interface PairLossSource {
  /**
   * The mean losses of the k = seeds.length pairs, minibatch j drawn from seed j. `stateKey`
   * (Replica.stateKey) names the weights: the same key, the same weights, so a source that keeps
   * a copy elsewhere (a device) need not copy them again. `rank` is the low-rank directions'
   * rank; a full-rank source ignores it.
   */
  losses(weights: Float32Array, seeds: readonly Seed[], size: number, eps: number, rank: number, stateKey?: string): PairLosses;
}

/** The layer widths of an MLP: inputs, hidden layers, classes. */
export function mlpWidths(model: Model, what: string): number[] {
  if (model.spec.kind !== "mlp") throw new RangeError(`${what} needs an mlp, not ${model.spec.kind}`);
  const [h, w, c] = model.spec.inputShape;
  return [h * w * c, ...model.spec.hidden, model.spec.classes];
}

/** The minibatches of `seeds`, stacked: rows j * size .. (j + 1) * size - 1 are seed j's. */
export interface StackedBatch {
  /** [seeds.length * size * features] on the host, valid until the next `stack` call. */
  readonly x: Float32Array;
  readonly y: Int32Array;
}

export class BatchStacker {
  /** The stacked rows, reused: a fresh 6 MB array per call cost more than the copy (page faults, GC). */
  private scratch = new Float32Array(0);

  constructor(
    private readonly train: Split,
    private readonly features: number,
  ) {
    if (train.x.length !== train.n * features) throw new RangeError("split does not match the model's input");
  }

  /**
   * Seed j's minibatch is sampleBatch's for it (what the materialised path measures), drawn into
   * its slice of one reused array: a resident split gathered by tf.gather was 4x slower on
   * tfjs-wasm (its gather is per element).
   */
  stack(seeds: readonly Seed[], size: number): StackedBatch {
    const rows = size * this.features;
    const n = seeds.length * rows;
    if (this.scratch.length < n) this.scratch = new Float32Array(n);
    const y = new Int32Array(seeds.length * size);
    seeds.forEach((seed, j) => y.set(sampleBatch(this.train, this.features, seed, size, this.scratch.subarray(j * rows)).y, j * size));
    return { x: this.scratch.subarray(0, n), y };
  }
}

/**
 * Mean cross-entropy of each slice of `logits` [2k, size, classes] (plus halves first, then minus)
 * against labels `y` (k * size, slice j's rows at j * size): the loss crossEntropy gives each
 * batch on its own. Call inside tf.tidy.
 */
export function sliceLosses(logits: tf.Tensor3D, y: Int32Array, k: number, size: number, classes: number): tf.Tensor1D {
  const labels = tf.reshape(tf.oneHot(tf.tensor1d(y, "int32"), classes), [k, size, classes]);
  const both = tf.concat([labels, labels], 0);
  return tf.neg(tf.mean(tf.sum(tf.mul(tf.logSoftmax(logits), both), 2), 1));
}
