/**
 * The losses of k antithetic low-rank perturbations of an MLP in ONE batched forward pass, never
 * materialising a perturbed weight matrix: x (W +/- s A B^T) + (b +/- eps z) =
 * (x W + b) +/- (s (x A) B^T + eps z). Pair j is measured on seed j's minibatch (the same one the
 * materialised path draws), so the first layer's x W + b is computed once for both signs; deeper
 * layers see 2k different inputs, stacked as a batch of 2k [size, width] slices.
 *
 * Float results differ from the materialised path (lowrank.ts) in the last bits (another order of
 * operations): only the author's choice of byte depends on them, never the canonical update.
 */
import * as tf from "@tensorflow/tfjs-core";
import { type Split, sampleIndices } from "../data/dataset.js";
import type { Model } from "../models/model.js";
import type { Seed } from "../rng/seeds.js";
import { fillRademacher } from "../rng/noise.js";
import { Purpose, streamOf } from "../rng/seeds.js";
import { lowRankFactors, lowRankScale } from "./lowrank.js";

/** Losses of the k pairs: plus[j] at w + eps E_j, minus[j] at w - eps E_j. */
export interface PairLosses {
  readonly plus: number[];
  readonly minus: number[];
}

/** What measures all k low-rank pairs of a contribution at once (this file's MLP pass; gpu/lm-pairs.ts on a device). */
export interface PairLossSource {
  /**
   * The mean losses of the k = seeds.length pairs, minibatch j drawn from seed j. `stateKey`
   * (Replica.stateKey) names the weights: the same key, the same weights, so a source that keeps
   * a copy elsewhere (a device) need not copy them again.
   */
  losses(weights: Float32Array, seeds: readonly Seed[], size: number, eps: number, rank: number, stateKey?: string): PairLosses;
}

/** Whether a model's forward pass can take low-rank factors (dense layers only: the MLP). */
export function batchesLowRank(model: Model): boolean {
  return model.spec.kind === "mlp";
}

export class LowRankPairs implements PairLossSource {
  private readonly widths: number[];
  /** The stacked rows, reused: a fresh 6 MB array per call cost more than the copy (page faults, GC). */
  private scratch = new Float32Array(0);

  constructor(
    private readonly model: Model,
    private readonly train: Split,
  ) {
    if (model.spec.kind !== "mlp") throw new RangeError(`batched low-rank forward needs an mlp, not ${model.spec.kind}`);
    const [h, w, c] = model.spec.inputShape;
    this.widths = [h * w * c, ...model.spec.hidden, model.spec.classes];
  }

  /** The mean losses of the k = seeds.length pairs, minibatch j drawn from seed j. */
  losses(weights: Float32Array, seeds: readonly Seed[], size: number, eps: number, rank: number): PairLosses {
    const k = seeds.length;
    const features = this.widths[0];
    if (this.train.x.length !== this.train.n * features) throw new RangeError("split does not match the model's input");
    const idx = new Int32Array(k * size);
    const y = new Int32Array(k * size);
    seeds.forEach((seed, j) => {
      // The rows sampleBatch draws for this seed.
      const rows = sampleIndices(this.train.n, seed, size);
      for (let i = 0; i < size; i++) {
        idx[j * size + i] = rows[i];
        y[j * size + i] = this.train.y[rows[i]];
      }
    });
    const x = this.inputs(idx, features);
    const f = Math.fround;
    const s = f(eps * lowRankScale(rank));
    const layers = this.widths.length - 1;
    const out = tf.tidy(() => {
      let h: tf.Tensor3D | null = null;
      const input = tf.reshape(x, [k, size, features]) as tf.Tensor3D;
      for (let l = 0; l < layers; l++) {
        const [rows, cols] = [this.widths[l], this.widths[l + 1]];
        const t = this.model.layout.tensors;
        const w = tf.tensor2d(weights.subarray(t[2 * l].offset, t[2 * l].offset + rows * cols), [rows, cols]);
        const bias = tf.tensor1d(weights.subarray(t[2 * l + 1].offset, t[2 * l + 1].offset + cols));
        const { a, bt, z } = this.factors(seeds, l, rows, cols, rank, s, f(eps));
        const batch = l === 0 ? k : 2 * k;
        const src = l === 0 ? input : (h as tf.Tensor3D);
        const base = tf.reshape(tf.add(tf.matMul(tf.reshape(src, [batch * size, rows]), w), bias), [batch, size, cols]);
        let pre: tf.Tensor3D;
        if (l === 0) {
          const d = tf.add(tf.matMul(tf.matMul(src, a), bt), z);
          pre = tf.concat([tf.add(base, d), tf.sub(base, d)], 0) as tf.Tensor3D;
        } else {
          // Pair j's minus half takes -s B^T and -eps z: the factors A are shared by both signs.
          const a2 = tf.concat([a, a], 0) as tf.Tensor3D;
          const bt2 = tf.concat([bt, tf.neg(bt)], 0) as tf.Tensor3D;
          const z2 = tf.concat([z, tf.neg(z)], 0);
          pre = tf.add(base, tf.add(tf.matMul(tf.matMul(src, a2), bt2), z2)) as tf.Tensor3D;
        }
        h = l < layers - 1 ? tf.relu(pre) : pre;
      }
      const logits = h as tf.Tensor3D;
      const classes = this.widths[layers];
      const labels = tf.reshape(tf.oneHot(tf.tensor1d(y, "int32"), classes), [k, size, classes]);
      const both = tf.concat([labels, labels], 0);
      // Mean cross-entropy per slice: the loss crossEntropy gives each batch on its own.
      return tf.neg(tf.mean(tf.sum(tf.mul(tf.logSoftmax(logits), both), 2), 1));
    });
    const losses = out.dataSync();
    tf.dispose([out, x]);
    return { plus: Array.from(losses.subarray(0, k)), minus: Array.from(losses.subarray(k, 2 * k)) };
  }

  /**
   * The rows `idx` of the training inputs as a [rows, features] tensor, copied in JavaScript (a
   * resident split gathered by tf.gather was 4x slower on tfjs-wasm: its gather is per element).
   */
  private inputs(idx: Int32Array, features: number): tf.Tensor2D {
    const n = idx.length * features;
    if (this.scratch.length < n) this.scratch = new Float32Array(n);
    const x = this.scratch.subarray(0, n);
    idx.forEach((r, i) => x.set(this.train.x.subarray(r * features, (r + 1) * features), i * features));
    // tensor2d copies the values to the backend, so the scratch can be reused at once.
    return tf.tensor2d(x, [idx.length, features]);
  }

  /** Layer l's factors of every seed: A [k, rows, rank], s B^T [k, rank, cols], eps z [k, 1, cols]. */
  private factors(seeds: readonly Seed[], l: number, rows: number, cols: number, rank: number, s: number, e: number) {
    const k = seeds.length;
    const a = new Float32Array(k * rows * rank);
    const bt = new Float32Array(k * rank * cols);
    const z = new Float32Array(k * cols);
    const b = new Float32Array(cols * rank);
    seeds.forEach((seed, j) => {
      lowRankFactors(seed, 2 * l, rows, cols, rank, a.subarray(j * rows * rank, (j + 1) * rows * rank), b);
      for (let c = 0; c < cols; c++)
        for (let r = 0; r < rank; r++) bt[(j * rank + r) * cols + c] = s * b[c * rank + r];
      const zj = z.subarray(j * cols, (j + 1) * cols);
      fillRademacher(streamOf(seed, Purpose.Noise, 2 * l + 1), zj);
      for (let c = 0; c < cols; c++) zj[c] *= e;
    });
    return {
      a: tf.tensor3d(a, [k, rows, rank]),
      bt: tf.tensor3d(bt, [k, rank, cols]),
      z: tf.tensor3d(z, [k, 1, cols]),
    };
  }
}
