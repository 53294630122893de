/**
 * The losses of k antithetic full-rank perturbations of an MLP with far fewer backend calls than
 * 2k forward passes (on tfjs-wasm a call's fixed cost outweighs an MNIST-sized product). First
 * layer: x (W +/- eps Z) + (b +/- eps z) = (x W + b) +/- (x (eps Z) + eps z), so each pair's
 * x W and x (eps Z) serve both signs and no perturbed first-layer matrix is made; deeper layers
 * see 2k different inputs and take their 2k perturbed weight matrices stacked, one batched product
 * per layer (small: the first layer holds nearly all of an MLP's parameters); the 2k losses come
 * from one pass. Pair j is measured on seed j's minibatch, the one the materialised path draws.
 *
 * The directions are the canonical ones (the update kernels' perturbation), so only the float
 * rounding of the losses differs from the materialised path (another order of operations): only
 * the author's choice of byte depends on it, within the audit's tolerance, never the update.
 */
import * as tf from "@tensorflow/tfjs-core";
import type { Split } from "../data/dataset.js";
import type { Model } from "../models/model.js";
import type { TensorLayout } from "../params.js";
import type { Seed } from "../rng/seeds.js";
import { BatchStacker, mlpWidths, type PairLosses, type PairLossSource, sliceLosses } from "./pair-batch.js";
import { perturbTensorJs } from "./spsa-update.js";
import { type UpdateKernels, updateKernels } from "./update-kernels.js";

/**
 * Whether full-rank pairs are measured in batched passes on this tfjs backend. Not on the pure-JS
 * cpu backend: no faster there per contribution (about 470 ms either way on mnist-mlp-spsa), and a
 * 3-node swarm with one cpu node ran at a median 9.9 iterations/s with it batched there against
 * 12.0 and 12.4 materialised (`npm run bench -- --only straggler`, 3 runs each; cause not found).
 */
export function batchesFullRank(backend: string): boolean {
  return backend !== "cpu";
}

/** Floats of perturbed stacks per group of pairs: bounds memory for wide MLPs and many pairs. */
const GROUP_FLOATS = 1 << 24;

export class FullRankPairs implements PairLossSource {
  private readonly widths: number[];
  private readonly batches: BatchStacker;
  /** Zeros in the layout's shape: perturbing them gives eps z exactly (0 + eps z is exact). */
  private readonly zeros: Float32Array;
  private readonly kernels: UpdateKernels | null = updateKernels();
  /** Pairs measured per batched pass, so the stacks stay within GROUP_FLOATS. */
  private readonly group: number;

  constructor(
    private readonly model: Model,
    train: Split,
    groupFloats = GROUP_FLOATS,
  ) {
    this.widths = mlpWidths(model, "batched full-rank forward");
    this.batches = new BatchStacker(train, this.widths[0]);
    this.zeros = new Float32Array(model.layout.size);
    // Per pair: eps Z of the first layer once, both signs of every deeper tensor.
    const first = model.layout.tensors[0].size + model.layout.tensors[1].size;
    this.group = Math.max(1, Math.floor(groupFloats / (first + 2 * (model.layout.size - first))));
  }

  losses(weights: Float32Array, seeds: readonly Seed[], size: number, eps: number): PairLosses {
    const plus: number[] = [];
    const minus: number[] = [];
    for (let i = 0; i < seeds.length; i += this.group) {
      const got = this.groupLosses(weights, seeds.slice(i, i + this.group), size, Math.fround(eps));
      plus.push(...got.plus);
      minus.push(...got.minus);
    }
    return { plus, minus };
  }

  private groupLosses(weights: Float32Array, seeds: readonly Seed[], size: number, eps: number): PairLosses {
    const k = seeds.length;
    const { x, y } = this.batches.stack(seeds, size);
    const t = this.model.layout.tensors;
    const layers = this.widths.length - 1;
    const out = tf.tidy(() => {
      let h: tf.Tensor3D | null = null;
      for (let l = 0; l < layers; l++) {
        const [rows, cols] = [this.widths[l], this.widths[l + 1]];
        let pre: tf.Tensor3D;
        if (l === 0) {
          // 2-D products per pair, each minibatch uploaded on its own: tfjs-wasm's batched product
          // is a plain loop (13x slower than its XNNPACK 2-D one on MNIST shapes) and its slices
          // of a stacked input cost more than the products.
          const w = tf.tensor2d(weights.subarray(t[0].offset, t[0].offset + rows * cols), [rows, cols]);
          const bias = tf.tensor1d(weights.subarray(t[1].offset, t[1].offset + cols));
          const ez = this.stack(seeds, this.zeros, t[0], 0, [1], eps);
          const ezb = this.stack(seeds, this.zeros, t[1], 1, [1], eps);
          const xs = seeds.map((_, j) => tf.tensor2d(x.subarray(j * size * rows, (j + 1) * size * rows), [size, rows]));
          const base = tf.add(tf.reshape(tf.concat(xs.map((xj) => tf.matMul(xj, w)), 0), [k, size, cols]), bias);
          const dz = xs.map((xj, j) => tf.matMul(xj, tf.tensor2d(ez.subarray(j * rows * cols, (j + 1) * rows * cols), [rows, cols])));
          const d = tf.add(tf.reshape(tf.concat(dz, 0), [k, size, cols]), tf.tensor3d(ezb, [k, 1, cols]));
          pre = tf.concat([tf.add(base, d), tf.sub(base, d)], 0) as tf.Tensor3D;
        } else {
          // Plus halves first, then minus: the order of the rows of h.
          const w = this.stack(seeds, weights, t[2 * l], 2 * l, [1, -1], eps);
          const bias = this.stack(seeds, weights, t[2 * l + 1], 2 * l + 1, [1, -1], eps);
          pre = tf.add(
            tf.matMul(h as tf.Tensor3D, tf.tensor3d(w, [2 * k, rows, cols])),
            tf.tensor3d(bias, [2 * k, 1, cols]),
          ) as tf.Tensor3D;
        }
        h = l < layers - 1 ? tf.relu(pre) : pre;
      }
      return sliceLosses(h as tf.Tensor3D, y, k, size, this.widths[layers]);
    });
    const losses = out.dataSync();
    out.dispose();
    return { plus: Array.from(losses.subarray(0, k)), minus: Array.from(losses.subarray(k, 2 * k)) };
  }

  /** Tensor `ti` of `from` perturbed by each seed's direction, for each sign in turn: [signs * k, size]. */
  private stack(seeds: readonly Seed[], from: Float32Array, tl: TensorLayout, ti: number, signs: readonly (1 | -1)[], eps: number): Float32Array {
    const out = new Float32Array(signs.length * seeds.length * tl.size);
    signs.forEach((sign, si) =>
      seeds.forEach((seed, j) => {
        const at = (si * seeds.length + j) * tl.size;
        if (this.kernels) this.kernels.perturbTensor(out, at, from, tl, ti, seed, eps, sign);
        else perturbTensorJs(out, from, tl, ti, seed, eps, sign, at);
      }),
    );
    return out;
  }
}
