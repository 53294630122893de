/**
 * Low-rank SPSA directions (EGGROLL, "Evolution Strategies at the Hyperscale"): the direction of a
 * seed moves each weight matrix W (rows x cols; a tensor of rank > 2 is its leading dimensions by
 * its last, so a conv kernel is [k*k*cin, cout]) along E = A B^T / sqrt(rank), A (rows x rank) and
 * B (cols x rank) Rademacher signs from the seed's LowRank stream of that tensor; vectors (biases)
 * keep the full-rank Rademacher signs of spsa-update.ts. Signs, not EGGROLL's Gaussians, so that
 * A B^T is an integer matrix and the update stays exact: E has unit variance per entry as the
 * full-rank z does, so eps and lr mean the same at every rank.
 *
 * The canonical update is the full-rank rule of spsa-update.ts with the integer sum of a matrix
 * entry replaced by S_r[i][j] = sum over the class's steps of v * (A B^T)[i][j] (|S_r| <= 2^31:
 * exact in float64, so order-free) and the class constant of a matrix multiplied once by
 * f(1 / sqrt(rank)) (exactly 1 at rank 1). Plain JavaScript only: the same bytes on every backend.
 */
import { Purpose, type Seed, streamOf } from "../rng/seeds.js";
import { rademacherBits } from "../rng/noise.js";
import type { ParamLayout, TensorLayout } from "../params.js";
import { applyTensorJs, type ClassPlan, perturbTensorJs } from "./spsa-update.js";

/** One perturbation of a pass: the weights moved by sign * eps along the seed's low-rank direction. */
export interface LowRankPerturbation {
  readonly seed: Seed;
  readonly sign: 1 | -1;
}

/** The matrix a tensor moves as (rows x cols), or null for a vector, which moves full-rank. */
export function matrixShape(t: TensorLayout): { rows: number; cols: number } | null {
  if (t.shape.length < 2) return null;
  const cols = t.shape[t.shape.length - 1];
  return { rows: t.size / cols, cols };
}

/** f(1 / sqrt(rank)): sqrt and division are correctly rounded, so every engine gets this float32. */
export function lowRankScale(rank: number): number {
  return Math.fround(1 / Math.sqrt(rank));
}

/**
 * The sign factors of tensor `ti`'s direction for a seed, as +1/-1: A [rows x rank] then
 * B [cols x rank], row-major, elements 0 .. (rows + cols) * rank - 1 of the stream.
 */
export function lowRankFactors(
  seed: Seed,
  ti: number,
  rows: number,
  cols: number,
  rank: number,
  a: Int8Array | Float32Array,
  b: Int8Array | Float32Array,
): void {
  const na = rows * rank;
  const n = na + cols * rank;
  const bits = rademacherBits(streamOf(seed, Purpose.LowRank, ti), n, new Uint32Array(Math.ceil(n / 32)));
  const at = (i: number) => (((bits[i >>> 5] >>> (i & 31)) & 1) << 1) - 1;
  for (let i = 0; i < na; i++) a[i] = at(i);
  for (let i = 0; i < cols * rank; i++) b[i] = at(na + i);
}

/**
 * out = w + sign * eps * E for the seed's low-rank direction, every tensor of `layout` (the
 * materialised form, for models whose forward pass cannot take the factors: CNN, transformer).
 * Matrix entries: f(w + f(s * (A B^T)[i][j])) with s = f(sign * f(eps * f(1 / sqrt(rank)))).
 */
export function perturbLowRankJs(
  out: Float32Array,
  weights: Float32Array,
  layout: ParamLayout,
  seed: Seed,
  eps: number,
  rank: number,
  sign: 1 | -1,
): void {
  const f = Math.fround;
  const s = f(sign * f(eps * lowRankScale(rank)));
  for (const [ti, t] of layout.tensors.entries()) {
    const mat = matrixShape(t);
    if (!mat) {
      perturbTensorJs(out, weights, t, ti, seed, eps, sign);
      continue;
    }
    const { rows, cols } = mat;
    const a = new Int8Array(rows * rank);
    const b = new Int8Array(cols * rank);
    lowRankFactors(seed, ti, rows, cols, rank, a, b);
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        let e = 0;
        for (let k = 0; k < rank; k++) e += a[i * rank + k] * b[j * rank + k];
        const at = t.offset + i * cols + j;
        out[at] = weights[at] + f(s * e);
      }
    }
  }
}

/** Budget of factor scratch per group of steps, in float64 elements (8 MiB). */
const GROUP_ELEMENTS = 1 << 20;

/**
 * The canonical low-rank update of one pass (planUpdate's plans) on `weights` in place: vectors
 * by the full-rank rule, matrices by the integer sums of A B^T terms (module comment).
 */
export function applyLowRankJs(
  weights: Float32Array,
  layout: ParamLayout,
  plans: readonly ClassPlan[],
  rank: number,
): void {
  if (plans.length === 0) return;
  const inv = lowRankScale(rank);
  const matrixPlans = plans.map((p) => ({ ...p, coef: Math.fround(p.coef * inv) }));
  for (const [ti, t] of layout.tensors.entries()) {
    const mat = matrixShape(t);
    if (mat) applyMatrix(weights, t, ti, mat.rows, mat.cols, matrixPlans, rank);
    else applyTensorJs(weights, t, ti, plans);
  }
}

function applyMatrix(
  weights: Float32Array,
  t: TensorLayout,
  ti: number,
  rows: number,
  cols: number,
  plans: readonly ClassPlan[],
  rank: number,
): void {
  const f = Math.fround;
  const delta = new Float32Array(t.size).fill(-0);
  const sums = new Float64Array(t.size);
  const most = Math.max(...plans.map((p) => p.steps.length));
  const group = Math.min(most, Math.max(1, Math.floor(GROUP_ELEMENTS / ((rows + cols) * rank))));
  const a = new Int8Array(rows * rank);
  const b = new Int8Array(cols * rank);
  // Per step of a group: v * A (rows x rank) and B^T (rank x cols), so the inner loop runs along a row.
  const av = new Float64Array(group * rows * rank);
  const bt = new Float64Array(group * rank * cols);
  for (const p of plans) {
    sums.fill(0);
    for (let g0 = 0; g0 < p.steps.length; g0 += group) {
      const steps = p.steps.slice(g0, g0 + group);
      for (const [q, step] of steps.entries()) {
        lowRankFactors(step.seed, ti, rows, cols, rank, a, b);
        for (let i = 0; i < rows * rank; i++) av[q * rows * rank + i] = step.v * a[i];
        for (let j = 0; j < cols; j++)
          for (let k = 0; k < rank; k++) bt[(q * rank + k) * cols + j] = b[j * rank + k];
      }
      for (let i = 0; i < rows; i++) {
        const row = i * cols;
        for (let q = 0; q < steps.length; q++) {
          for (let k = 0; k < rank; k++) {
            const c = av[(q * rows + i) * rank + k];
            const off = (q * rank + k) * cols;
            for (let j = 0; j < cols; j++) sums[row + j] += c * bt[off + j];
          }
        }
      }
    }
    // Exact integers meet the class constant: the full-rank rule's float32 sequence.
    for (let i = 0; i < t.size; i++) delta[i] = delta[i] + f(f(sums[i]) * p.coef);
  }
  for (let i = 0; i < t.size; i++) weights[t.offset + i] = weights[t.offset + i] + delta[i];
}
