/**
 * The language-model figures of the gpu section (issue 14): seedswarm's own WebGPU pass
 * (training/gpu/lm-forward.ts) over a GPT-2-small-shaped model, perturbations batched as SPSA runs
 * them, and, where python3 has torch with a CUDA device, PyTorch's forward on the same shape and
 * batch as the anchor.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { LowRankPerturbation } from "../training/algorithms/lowrank.js";
import { GpuLmForward } from "../training/gpu/lm-forward.js";
import type { WebGpu } from "../training/gpu/webgpu.js";
import { parseHfConfig } from "../training/hf/config.js";
import { initWeights } from "../training/models/model.js";
import { buildTransformer, tokenBatch } from "../training/models/transformer.js";
import { seedFrom } from "../training/rng/seeds.js";

export const GPT2_SMALL = { model_type: "gpt2", vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12 };

/** CPU time of the calling thread in ms (Linux: /proc/thread-self/schedstat, nanoseconds). */
export function threadCpuMs(): number {
  return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
}

export interface LmPassFigures {
  readonly perturbations: number;
  readonly sequencesPerPerturbation: number;
  readonly length: number;
  readonly vocab: number;
  readonly rank: number;
  readonly enqueueMs: number;
  readonly passMs: number;
  readonly tokensPerS: number;
  readonly reps: number;
  /** Per product kind: the tile chosen and each tile's milliseconds (GPU only). */
  readonly tuning: Record<string, { tile: object; ms: number[] }> | null;
  readonly torch: { ms: number; tokens_per_s: number; device: string; torch: string; tf32: boolean; attention: string } | null;
  readonly torchProblem: string | null;
}

/** The token embedding must fit one storage binding: the vocabulary is cut where the adapter's limit is lower. */
export function vocabFor(dev: WebGpu): number {
  return Math.min(GPT2_SMALL.vocab_size, Math.floor(dev.device.limits.maxStorageBufferBindingSize / (4 * GPT2_SMALL.n_embd)));
}

function torchAnchor(sequences: number, length: number, vocab: number): { result: LmPassFigures["torch"]; problem: string | null } {
  const script = fileURLToPath(new URL("../../bench/torch-lm-forward.py", import.meta.url));
  const r = spawnSync("python3", [script, String(sequences), String(length), String(vocab), "10"], { encoding: "utf8", timeout: 300_000 });
  if (r.error) return { result: null, problem: `python3 did not run (${r.error.message})` };
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    const j = JSON.parse(line) as NonNullable<LmPassFigures["torch"]> & { error?: string };
    if (j.error) return { result: null, problem: j.error };
    return { result: j, problem: null };
  } catch {
    return { result: null, problem: `no torch with CUDA here (${(r.stderr || line).trim().split("\n").pop()})` };
  }
}

/**
 * P perturbations (P/2 antithetic pairs) x S sequences x 64 tokens in one pass: on a GPU 16 x 16
 * (16,384 tokens, the batch the anchor names); on a software driver 2 x 1.
 */
export async function lmPassFigures(dev: WebGpu, withTorch = true): Promise<LmPassFigures> {
  const vocab = vocabFor(dev);
  const model = buildTransformer(parseHfConfig({ ...GPT2_SMALL, vocab_size: vocab }));
  const P = dev.software ? 2 : 16;
  const S = dev.software ? 1 : 16;
  const length = 64;
  const rank = 1;
  const lm = new GpuLmForward(dev, model.config, model.layout, rank);
  lm.upload(initWeights(model.layout, 1));
  const batch = tokenBatch(Array.from({ length: P * S }, (_, b) => Array.from({ length }, (_, t) => (b * 7919 + t * 104729) % vocab)));
  const perts = (i: number): LowRankPerturbation[] =>
    Array.from({ length: P }, (_, p) => ({ seed: seedFrom("bench/gpu-lm", [i, p >> 1]), sign: p % 2 === 0 ? 1 : -1 }));
  await lm.losses(batch, perts(0), 1e-3); // shader compilation
  const tuning = dev.software ? null : await lm.tune();
  await lm.losses(batch, perts(1), 1e-3);
  const reps = dev.software ? 2 : 10;
  let enqueueMs = 0;
  const t = performance.now();
  for (let i = 0; i < reps; i++) {
    const cpu = threadCpuMs();
    const pending = lm.losses(batch, perts(2 + i), 1e-3);
    enqueueMs += (threadCpuMs() - cpu) / reps;
    const { loss } = await pending;
    if (!loss.every(Number.isFinite)) throw new Error(`the WebGPU pass gave non-finite losses on ${dev.adapterName}: ${loss.join(", ")}`);
  }
  const passMs = (performance.now() - t) / reps;
  lm.destroy();
  const torch = dev.software
    ? { result: null, problem: "a software driver: no GPU to compare on" }
    : withTorch
      ? torchAnchor(P * S, length, vocab)
      : { result: null, problem: "not asked for" };
  return {
    perturbations: P,
    sequencesPerPerturbation: S,
    length,
    vocab,
    rank,
    enqueueMs,
    passMs,
    tokensPerS: (P * S * length * 1000) / passMs,
    reps,
    tuning,
    torch: torch.result,
    torchProblem: torch.problem,
  };
}
