/**
 * The host half of perturbed passes: the factor inputs a perturbed graph asks for
 * (graph.ts `PerturbationInput`), from the seeds, as training/algorithms/lowrank.ts defines the
 * direction: each matrix W [rows, cols] moves along s A B^T with A [rows, r], B [cols, r] the
 * signs of lowRankFactors and s = f(sign * f(eps * f(1 / sqrt(r)))); each vector takes its
 * full-rank perturbed values (perturbTensorJs), computed here, not in the graph.
 */
import { type LowRankPerturbation, lowRankFactors, lowRankScale, matrixShape } from "../algorithms/lowrank.js";
import { perturbTensorJs } from "../algorithms/spsa-update.js";
import type { ParamLayout } from "../params.js";
import type { PerturbationInput } from "./graph.js";

/** The values and dims of every factor input, stacked over `perturbations` in order. */
export function perturbationValues(
  layout: ParamLayout,
  inputs: readonly PerturbationInput[],
  weights: Float32Array,
  perturbations: readonly LowRankPerturbation[],
  eps: number,
  rank: number,
): Map<string, { values: Float32Array; dims: number[] }> {
  const P = perturbations.length;
  const f = Math.fround;
  const index = new Map(layout.tensors.map((t, i) => [t.name, i]));
  const out = new Map<string, { values: Float32Array; dims: number[] }>();
  const byTensor = new Map<string, PerturbationInput[]>();
  for (const p of inputs) byTensor.set(p.tensor, [...(byTensor.get(p.tensor) ?? []), p]);
  for (const [name, uses] of byTensor) {
    const ti = index.get(name) as number;
    const t = layout.tensors[ti];
    const mat = matrixShape(t);
    if (mat === null) {
      const values = new Float32Array(P * t.size);
      perturbations.forEach((q, p) => perturbTensorJs(values, weights, t, ti, q.seed, eps, q.sign, p * t.size));
      for (const u of uses) out.set(u.input, { values, dims: [P, 1, t.size] });
      continue;
    }
    const { rows, cols } = mat;
    const r = rank;
    const buffers = Object.fromEntries(
      uses.map((u) => [u.form, new Float32Array(P * (u.form === "a" || u.form === "aFlat" || u.form === "sAt" ? rows : cols) * r)]),
    ) as Partial<Record<PerturbationInput["form"], Float32Array>>;
    const a = new Float32Array(rows * r);
    const b = new Float32Array(cols * r);
    perturbations.forEach((q, p) => {
      const s = f(q.sign * f(eps * lowRankScale(r)));
      lowRankFactors(q.seed, ti, rows, cols, r, a, b);
      buffers.a?.set(a, p * rows * r);
      buffers.aFlat?.set(a, p * rows * r);
      buffers.b?.set(b, p * cols * r);
      const sAt = buffers.sAt;
      if (sAt) for (let i = 0; i < rows; i++) for (let k = 0; k < r; k++) sAt[(p * r + k) * rows + i] = s * a[i * r + k];
      const sBt = buffers.sBt;
      if (sBt) for (let j = 0; j < cols; j++) for (let k = 0; k < r; k++) sBt[(p * r + k) * cols + j] = s * b[j * r + k];
    });
    for (const u of uses) {
      const values = buffers[u.form] as Float32Array;
      const dims = {
        a: [P, rows, r],
        aFlat: [P * rows, r],
        b: [P, cols, r],
        sAt: [P, r, rows],
        sBt: [P, r, cols],
        vector: [],
      }[u.form];
      out.set(u.input, { values, dims });
    }
  }
  return out;
}
