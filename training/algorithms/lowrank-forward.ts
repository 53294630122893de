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
import type { Split } from "../data/dataset.js";
import type { Model } from "../models/model.js";
import type { Seed } from "../rng/seeds.js";
import { fillRademacher } from "../rng/noise.js";
import { Purpose, streamOf } from "../rng/seeds.js";
import { lowRankFactors, lowRankScale } from "./lowrank.js";
import { BatchStacker, mlpWidths, type PairLosses, type PairLossSource, sliceLosses } from "./pair-batch.js";

export class LowRankPairs implements PairLossSource {
  private readonly widths: number[];
  private readonly batches: BatchStacker;

  constructor(
    private readonly model: Model,
    train: Split,
  ) {
    this.widths = mlpWidths(model, "batched low-rank forward");
    this.batches = new BatchStacker(train, this.widths[0]);
  }

  /** The mean losses of the k = seeds.length pairs, minibatch j drawn from seed j. */
  losses(weights: Float32Array, seeds: readonly Seed[], size: number, eps: number, rank: number): PairLosses {
    const k = seeds.length;
    const features = this.widths[0];
    const rows = this.batches.stack(seeds, size);
    const y = rows.y;
    // tensor2d copies the rows to the backend, so the stacker's scratch can be reused at once.
    const x = tf.tensor2d(rows.x, [k * size, features]);
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
      return sliceLosses(h as tf.Tensor3D, y, k, size, this.widths[layers]);
    });
    const losses = out.dataSync();
    tf.dispose([out, x]);
    return { plus: Array.from(losses.subarray(0, k)), minus: Array.from(losses.subarray(k, 2 * k)) };
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
