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
 * A pass's factors for one matrix: S_c = AV[:, class c's columns] BT[class c's rows, :] for each
 * class c, AV [rows, K] the steps' v * A side by side (class by class), BT [K, cols] their B^T
 * stacked; K = steps * rank.
 */
export interface MatrixFactors {
  readonly av: Float32Array;
  readonly bt: Float32Array;
  readonly K: number;
  /** Per class, ascending r: its first column of AV, how many, its constant (times f(1 / sqrt(rank))). */
  readonly classes: readonly { readonly start: number; readonly count: number; readonly coef: number }[];
}

/**
 * Adds a matrix's canonical delta in place somewhere faster than applyMatrix's loops: per entry,
 * the float32 sum from -0 over the classes of f(S_c * coef_c), then w + that. Bit-identical to
 * the loops whenever every partial sum of S_c is an integer float32 holds (|S| < 2^24,
 * `exactInFloat32`), whatever the order of the products (algorithms/spsa-kernels.ts, WebAssembly).
 */
export interface MatrixUpdate {
  applyMatrix(weights: Float32Array, offset: number, rows: number, cols: number, f: MatrixFactors): void;
}

/**
 * True when float32 arithmetic gives a class's sums exactly: every partial sum of v * a * b terms
 * is an integer of magnitude <= sum |v| * rank < 2^24; and the constant keeps f(S * coef) and the
 * delta's sums far above float32's subnormals (so a kernel that flushes them changes nothing).
 */
export function exactInFloat32(plan: ClassPlan, rank: number): boolean {
  let bound = 0;
  for (const s of plan.steps) bound += Math.abs(s.v);
  return bound * rank < 2 ** 24 && Math.abs(plan.coef) >= 2 ** -100;
}

/** The pass's factors for tensor `ti` of shape rows x cols (the seeds' lowRankFactors). */
export function matrixFactors(plans: readonly ClassPlan[], ti: number, rows: number, cols: number, rank: number): MatrixFactors {
  const K = plans.reduce((n, p) => n + p.steps.length, 0) * rank;
  const av = new Float32Array(rows * K);
  const bt = new Float32Array(K * cols);
  const a = new Int8Array(rows * rank);
  const b = new Int8Array(cols * rank);
  const classes: { start: number; count: number; coef: number }[] = [];
  let col = 0;
  for (const p of plans) {
    classes.push({ start: col, count: p.steps.length * rank, coef: p.coef });
    for (const step of p.steps) {
      lowRankFactors(step.seed, ti, rows, cols, rank, a, b);
      for (let i = 0; i < rows; i++) for (let r = 0; r < rank; r++) av[i * K + col + r] = step.v * a[i * rank + r];
      for (let r = 0; r < rank; r++) for (let j = 0; j < cols; j++) bt[(col + r) * cols + j] = b[j * rank + r];
      col += rank;
    }
  }
  return { av, bt, K, classes };
}

/**
 * The canonical low-rank update of one pass (planUpdate's plans) on `weights` in place: vectors
 * by the full-rank rule, matrices by the integer sums of A B^T terms (module comment); with
 * `deltas`, each matrix whose classes are all `exactInFloat32` has its delta computed there (the
 * same bits), the rest here.
 */
export function applyLowRankJs(
  weights: Float32Array,
  layout: ParamLayout,
  plans: readonly ClassPlan[],
  rank: number,
  fast: MatrixUpdate | null = null,
): void {
  if (plans.length === 0) return;
  const inv = lowRankScale(rank);
  const matrixPlans = plans.map((p) => ({ ...p, coef: Math.fround(p.coef * inv) }));
  const elsewhere = fast !== null && matrixPlans.every((p) => exactInFloat32(p, rank));
  for (const [ti, t] of layout.tensors.entries()) {
    const mat = matrixShape(t);
    if (!mat) applyTensorJs(weights, t, ti, plans);
    else if (elsewhere) (fast as MatrixUpdate).applyMatrix(weights, t.offset, mat.rows, mat.cols, matrixFactors(matrixPlans, ti, mat.rows, mat.cols, rank));
    else applyMatrix(weights, t, ti, mat.rows, mat.cols, matrixPlans, rank);
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
