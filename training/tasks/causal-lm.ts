/** Causal language modelling: minibatches of token sequences, mean next-token loss. */
import { type LanguageModel, type TokenBatch, tokenBatch } from "../models/transformer.js";
import { meanNextTokenLoss } from "../next-token-loss.js";
import { sampleIndices } from "../data/dataset.js";
import type { Seed } from "../rng/seeds.js";
import type { LowRankPerturbation } from "../algorithms/lowrank.js";
import type { Task } from "./task.js";

/** A task over token sequences (e.g. windows of a tokenized text), each of at least 2 tokens. */
export function causalLmTask(model: LanguageModel, sequences: readonly (readonly number[])[]): Task {
  if (sequences.some((s) => s.length < 2)) throw new RangeError("every sequence needs at least 2 tokens to predict one");
  return {
    batch(seed, size) {
      const batch = tokenBatch(Array.from(sampleIndices(sequences.length, seed, size), (i) => sequences[i]));
      return { loss: (weights) => meanNextTokenLoss(model, weights, batch).loss, dispose: () => {} };
    },
  };
}

/**
 * The k low-rank pairs of a contribution as one batch of 2k equal groups, for an engine that
 * measures them in one pass (gpu/lm-pairs.ts, onnx/lm-pairs.ts): group 2j is seed j's minibatch
 * (the draw `causalLmTask` makes) at +eps, group 2j + 1 the same sequences at -eps, all
 * right-padded to one length (at least 2).
 */
export function pairBatch(sequences: readonly (readonly number[])[], seeds: readonly Seed[], size: number): { batch: TokenBatch; perturbations: LowRankPerturbation[] } {
  const groups = seeds.map((seed) => Array.from(sampleIndices(sequences.length, seed, size), (i) => sequences[i]));
  const length = Math.max(2, ...groups.flat().map((s) => s.length));
  const batch = tokenBatch(groups.flatMap((g) => [...g, ...g]), length);
  const perturbations = seeds.flatMap((seed) => [
    { seed, sign: 1 as const },
    { seed, sign: -1 as const },
  ]);
  return { batch, perturbations };
}
