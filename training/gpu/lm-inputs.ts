/**
 * What one language-model pass uploads besides the weights (lm-forward.ts), made and checked on
 * the host: token ids with their positions, next-token targets, the key mask, the perturbations'
 * scales and seeds, and the tensors a pass reads by role per architecture.
 */
import type { LowRankPerturbation } from "../algorithms/lowrank.js";
import { lowRankScale } from "../algorithms/lowrank.js";
import { OPT_POSITION_OFFSET, type TransformerConfig } from "../hf/config.js";
import type { TokenBatch } from "../models/transformer.js";
import { GpuError } from "./webgpu.js";

export interface PassInputs {
  /** [id, position] per token row: positions count real tokens only. */
  readonly ids: Uint32Array;
  /** The next token each row predicts, 0xffffffff where none (padding, a sequence's last token). */
  readonly target: Uint32Array;
  readonly keyMask: Uint32Array;
  /** s_p (matrices) for each p, then v_p (vectors), then the norm's eps. */
  readonly scales: Float32Array;
  /** (k0, k1, k2, 0) per perturbation. */
  readonly seeds: Uint32Array;
}

/** The inputs of a pass over `batch` (P equal groups of sequences), checked first. @throws GpuError GPU_OUT_OF_RANGE */
export function passInputs(c: TransformerConfig, rank: number, batch: TokenBatch, perts: readonly LowRankPerturbation[], eps: number): PassInputs {
  const P = perts.length;
  if (P === 0 || batch.size % P !== 0) throw new GpuError("GPU_OUT_OF_RANGE", `${batch.size} sequences do not split into ${P} perturbation groups`, { size: batch.size, perturbations: P });
  if (batch.length > c.maxPositions) throw new GpuError("GPU_OUT_OF_RANGE", `sequences of ${batch.length} tokens are longer than the model's ${c.maxPositions} positions`, { length: batch.length });
  const rows = batch.size * batch.length;
  const T = batch.length;
  const ids = new Uint32Array(2 * rows);
  const target = new Uint32Array(rows).fill(0xffffffff);
  const keyMask = new Uint32Array(rows);
  for (let b = 0; b < batch.size; b++) {
    let pos = 0;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      const id = batch.ids[i];
      if (!(id >= 0 && id < c.vocabSize)) throw new GpuError("GPU_OUT_OF_RANGE", `token id ${id} is outside the vocabulary (${c.vocabSize})`, { id });
      ids[2 * i] = id;
      ids[2 * i + 1] = batch.mask[i] ? pos++ : 0;
      keyMask[i] = batch.mask[i];
      if (t + 1 < T && batch.mask[i] && batch.mask[i + 1]) target[i] = batch.ids[i + 1];
    }
  }
  const scales = new Float32Array(2 * P + 1);
  const f = Math.fround;
  const seeds = new Uint32Array(4 * P);
  for (const [p, { seed, sign }] of perts.entries()) {
    scales[p] = f(sign * f(eps * lowRankScale(rank)));
    scales[P + p] = f(sign * eps);
    seeds.set([seed.k0, seed.k1, seed.k2], 4 * p);
  }
  scales[2 * P] = c.normEps;
  return { ids, target, keyMask, scales, seeds };
}

/** The tensors a pass reads by role, per architecture (transformer.ts's names); positions null: RoPE. */
export function namesOf(c: TransformerConfig): { embed: string; positions: string | null; positionOffset: number; finalNorm: string; head: string } {
  const [embed, positions, positionOffset, finalNorm] =
    c.architecture === "gpt2"
      ? ["transformer.wte.weight", "transformer.wpe.weight", 0, "transformer.ln_f"]
      : c.architecture === "opt"
        ? ["model.decoder.embed_tokens.weight", "model.decoder.embed_positions.weight", OPT_POSITION_OFFSET, "model.decoder.final_layer_norm"]
        : ["model.embed_tokens.weight", null, 0, "model.norm"];
  return { embed, positions, positionOffset, finalNorm, head: c.tiedHead ? embed : "lm_head.weight" };
}

/**
 * RoPE's (cos, sin) of positions 0 .. length - 1 and pair i < headDim / 2, interleaved, as
 * transformers computes them in float32: inv_freq_i = 1 / theta^(2i / d), angle = position * inv_freq.
 */
export function ropeTable(c: TransformerConfig, length: number): Float32Array {
  const f = Math.fround;
  const half = c.headDim / 2;
  const out = new Float32Array(2 * length * half);
  for (let i = 0; i < half; i++) {
    const inv = f(1 / f(c.ropeTheta ** f((2 * i) / c.headDim)));
    for (let p = 0; p < length; p++) {
      const a = f(p * inv);
      out[2 * (p * half + i)] = Math.cos(a);
      out[2 * (p * half + i) + 1] = Math.sin(a);
    }
  }
  return out;
}
