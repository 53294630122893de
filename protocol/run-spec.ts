/**
 * The RunSpec: everything that defines one training job. Its canonical JSON hashes to the runId,
 * so two nodes agree on a run exactly when they agree on every field here.
 */
import { peerIdFromString } from "@libp2p/peer-id";
import { sha256Hex } from "./bytes.js";
import { SeedswarmError } from "./errors.js";
import { MAX_MEMBERS, MAX_PAYLOAD_BYTES } from "./limits.js";
import { v2PayloadSize } from "./marketplace-payload.js";
import { worstCaseSparseBytes } from "./sparse-payload.js";

/** [height, width, channels] of one example. */
export type InputShape = readonly [number, number, number];

/** Architectures of model kind `transformer` (training/hf/config.ts parses their config.json). */
export const TRANSFORMER_ARCHITECTURES = ["gpt2", "opt", "llama"] as const;

/**
 * A decoder-only transformer fine-tuned from a Hugging Face checkpoint. The spec names the
 * initial weights by content, not by path: every node loads (or fetches from peers) weights whose
 * canonical bytes hash to `weightsHash`, so all start provably from the same replica.
 */
export interface TransformerModelSpec {
  readonly kind: "transformer";
  readonly architecture: (typeof TRANSFORMER_ARCHITECTURES)[number];
  /** Hex SHA-256 of the canonical weight bytes (training/params.ts `checksum`) of the checkpoint. */
  readonly weightsHash: string;
}

/** The image models (MLP, CNN): their inputs are [height, width, channels] and they end in class logits. */
export type ImageModelSpec =
  | {
      readonly kind: "mlp";
      readonly inputShape: InputShape;
      readonly hidden: readonly number[];
      readonly classes: number;
    }
  | BitMlpSpec
  | {
      /** The MNIST CNN of the Marketplace article: conv5-conv5-IN-pool-conv3-conv3-IN-pool-linear. */
      readonly kind: "cnn";
      readonly inputShape: InputShape;
      readonly classes: number;
    };

/** Weights of a bitmlp: one bit (+/-1) or one trit (-1, 0, +1) each. */
export const WEIGHT_KINDS = ["binary", "ternary"] as const;
export type WeightKind = (typeof WEIGHT_KINDS)[number];

/**
 * An MLP with one-bit (or ternary) weights and binary activations (training/models/bit-mlp.ts):
 * inputs become +/-1 against `inputThreshold`, each hidden unit is 1 when the sum of its +/-1
 * products is >= 0, and each hidden layer has its own auxiliary head (classes x width weights,
 * logits = logitScale * sum) that trains it; the deepest trained layer's head classifies.
 */
export interface BitMlpSpec {
  readonly kind: "bitmlp";
  readonly inputShape: InputShape;
  readonly hidden: readonly number[];
  readonly classes: number;
  readonly weights: WeightKind;
  /** A feature >= this is +1, else -1. */
  readonly inputThreshold: number;
  /** Logits per unit of the head's integer sum: a power of two (exact in float32 and on export). */
  readonly logitScale: number;
}

export type ModelSpec = ImageModelSpec | TransformerModelSpec;

/** What a transformer run measures on a text dataset. */
export type TextTaskSpec =
  | {
      /** Next-token loss on windows of `contextLength` tokens of the (unlabelled) texts. */
      readonly kind: "causal-lm";
      readonly contextLength: number;
    }
  | {
      /** MeZO's prompt classification: `template` holds {text}; label i scores labelWords[i]. */
      readonly kind: "prompt-classification";
      readonly template: string;
      /** One single-token word per label, in the dataset's label order (sorted label strings). */
      readonly labelWords: readonly string[];
    };

/** Text from a JSONL or CSV file (fields text, label), named by the SHA-256 of its bytes. */
export interface TextDatasetSpec {
  readonly kind: "text";
  readonly format: "jsonl" | "csv";
  /** Hex SHA-256 of the file's bytes: a node checks the file it is given against it. */
  readonly contentHash: string;
  readonly task: TextTaskSpec;
}

export type DatasetSpec =
  | { readonly kind: "mnist" }
  | {
      readonly kind: "idx";
      readonly trainImages: string;
      readonly trainLabels: string;
      readonly testImages: string;
      readonly testLabels: string;
    }
  | {
      readonly kind: "synthetic";
      readonly features: number;
      readonly classes: number;
      readonly trainSize: number;
      readonly testSize: number;
      readonly seed: number;
    }
  | TextDatasetSpec;

/** Learning-rate schedule: linear warmup, then linear decay to lr * minFactor at `iterations`. */
export interface LrSchedule {
  readonly lr: number;
  readonly warmup: number;
  readonly minFactor: number;
}

export interface SpsaSpec {
  readonly kind: "spsa";
  /** Perturbations each node evaluates per iteration: its contribution is this many bytes. */
  readonly perturbations: number;
  readonly batchSize: number;
  /** Perturbation scale: weights move by +/- eps along a Rademacher direction. */
  readonly eps: number;
  readonly schedule: LrSchedule;
  /** How the step grows with the bytes of a commit; absent = "none" (see LrScaling). */
  readonly lrScaling?: LrScaling;
  /** The shape of each direction; absent = full-rank Rademacher (see Perturbation). */
  readonly perturbation?: Perturbation;
  /** What each byte measures; absent = "difference" (see Fitness). */
  readonly fitness?: Fitness;
}

/** Most rank of a low-rank perturbation: bounds the noise an update regenerates per byte. */
export const MAX_PERTURBATION_RANK = 64;

/**
 * The direction of one perturbation. "full": a Rademacher sign per parameter. "lowrank" (EGGROLL,
 * "Evolution Strategies at the Hyperscale"): each weight matrix W (m x n; a tensor of rank > 2 is
 * its leading dimensions by its last) moves along A B^T / sqrt(rank) with A (m x rank) and
 * B (n x rank) seeded Rademacher signs, so x (W + s A B^T) = x W + s (x A) B^T needs no perturbed
 * matrix; vectors (biases) keep full-rank signs. training/algorithms/lowrank.ts holds the rule.
 */
export type Perturbation = { readonly kind: "full" } | { readonly kind: "lowrank"; readonly rank: number };

/**
 * What byte j of a contribution carries: "difference", the projected gradient
 * (L(w + eps z) - L(w - eps z)) / (2 eps); "sign", only its sign (the fitness shaping of
 * EGGROLL's int8 reference: +/-1, 0 on a tie), so every byte is -88, 0 or 88 and a peer's byte
 * can move the weights no further than anyone's.
 */
export type Fitness = "difference" | "sign";

/**
 * Learning-rate scaling with the number m of bytes a commit applies ("use every perturbation").
 * The update averages the m projected gradients; with rho = m / perturbations (the commits of one
 * node: rho = 1) the rate is multiplied by 1 ("none"), sqrt(rho) ("sqrt", the founding paper's
 * lr / sqrt(perturbations) on the sum) or rho ("linear": the sum, one node's step per node), at
 * most `cap`. Computed in float32 by `lrScale` (training/schedule.ts).
 */
export interface LrScaling {
  readonly rule: "none" | "sqrt" | "linear";
  readonly cap?: number;
}

/**
 * Marketplace (LaunchPlatform's forward-only method): the model's layers are grouped into specs;
 * each spec has `vendors` variants of its weights (vendor 0 = the current weights, vendor v > 0
 * adds a uniform delta in [-s_t, s_t) from its seed, s_t = lr_t * probeScale), and every path
 * through one vendor per spec is evaluated on the iteration's shared batch.
 */
export interface MarketplaceSpec {
  readonly kind: "marketplace";
  /** 1: the lowest-loss path wins and its deltas are added. 2: z-scored loss-weighted direction. */
  readonly version: 1 | 2;
  /** Vendors per spec, vendor 0 included (2..256: a vendor index is one byte). */
  readonly vendors: number;
  /** Layers per spec, in model order (e.g. [2, 2, 1] for the CNN); they sum to the model's layers. */
  readonly specs: readonly number[];
  /** Examples of the shared batch every node evaluates its paths on. */
  readonly batchSize: number;
  /** Vendor delta scale relative to lr (V1: the jitter is lr_t * probeScale; V2: the probe). */
  readonly probeScale: number;
  /** lr_t: V1 scales the jitter by it, V2 steps lr_t along the unit direction of each spec. */
  readonly schedule: LrSchedule;
  /** Upstream products each vendor of spec s > 0 takes (a seeded subset); absent: all of them. */
  readonly upstreamSampling?: number;
}

/**
 * Binary Learning (training/algorithms/binary.ts): every author sends the most negative exact
 * loss deltas of single-weight moves on its minibatch (sparse one-byte payload); `apply` flips
 * the `flipsPerIteration` moves whose summed delta is most negative. Greedy layerwise: stage s
 * trains hidden layer s and its head for `stages[s]` iterations, the layers below frozen.
 */
export interface BinarySpec {
  readonly kind: "binary";
  readonly batchSize: number;
  readonly flipsPerIteration: number;
  /** Most (index, delta) entries an author sends per iteration. */
  readonly maxEntries: number;
  /** Iterations of each stage, one per hidden layer; they add up to the run's iterations. */
  readonly stages: readonly number[];
}

export type AlgorithmSpec = SpsaSpec | MarketplaceSpec | BinarySpec;

/**
 * The move indices of a bitmlp, stage by stage. Weight g of the model (layer by layer: hidden
 * kernel unit-major, then its head class-major) is move g (binary: a flip) or moves 2g (+1) and
 * 2g + 1 (-1) for trits. Stage s owns [start, end): its layer's kernel and head.
 */
export function bitStageRanges(m: BitMlpSpec): { start: number; end: number }[] {
  const [h, w, c] = m.inputShape;
  const per = m.weights === "ternary" ? 2 : 1;
  let inputs = h * w * c;
  let start = 0;
  return m.hidden.map((units) => {
    const size = per * (inputs * units + units * m.classes);
    const r = { start, end: start + size };
    start += size;
    inputs = units;
    return r;
  });
}

/**
 * The spec's algorithm, checked to be of `kind` (for code that only makes sense for one).
 * @throws RunSpecError RUNSPEC_INVALID naming both kinds otherwise.
 */
export function algorithmOf<K extends AlgorithmSpec["kind"]>(
  spec: RunSpec,
  kind: K,
): Extract<AlgorithmSpec, { kind: K }> {
  if (spec.algorithm.kind !== kind)
    fail("algorithm.kind", `must be "${kind}" here`, spec.algorithm.kind);
  return spec.algorithm as Extract<AlgorithmSpec, { kind: K }>;
}

/**
 * The spec's image model (MLP or CNN), for code that only makes sense for one.
 * @throws RunSpecError RUNSPEC_INVALID naming model.kind otherwise.
 */
export function imageModelOf(spec: RunSpec): ImageModelSpec {
  if (spec.model.kind === "transformer") fail("model.kind", 'must be "mlp", "cnn" or "bitmlp" here', spec.model.kind);
  return spec.model;
}

/** Layers of a model, the units a Marketplace spec groups (see training/models/model.ts). */
export function modelLayerCount(m: ImageModelSpec): number {
  return m.kind === "cnn" ? 5 : m.hidden.length + 1;
}

/**
 * Products after each spec of a Marketplace split (the last is the number of paths an author
 * evaluates): spec 0 gives one per vendor; spec s > 0 feeds each vendor `upstreamSampling` (or
 * all) of the previous products.
 */
export function marketplaceProducts(a: MarketplaceSpec): number[] {
  const out: number[] = [];
  for (let s = 0; s < a.specs.length; s++) {
    const upstream = s === 0 ? 1 : Math.min(a.upstreamSampling ?? out[s - 1], out[s - 1]);
    out.push(a.vendors * upstream);
  }
  return out;
}

/** Most paths one author may evaluate: bounds a step's memory and time. */
export const MAX_MARKETPLACE_PATHS = 65536;

export interface RunSpec {
  readonly version: 1;
  readonly name: string;
  readonly model: ModelSpec;
  readonly dataset: DatasetSpec;
  readonly algorithm: AlgorithmSpec;
  /** Seed of the initial weights. */
  readonly seed: number;
  /** Length of the run; the lr schedule decays over it. */
  readonly iterations: number;
  /** How long a round waits for contributions before it closes. */
  readonly roundTimeoutMs: number;
  /**
   * A member run: the only peer ids whose messages, requests and records count (protocol/
   * membership.ts). Sorted and without duplicates, so one set of members is one runId; the runId
   * hashes the list, so no peer can add itself. Absent: an open run, anyone may take part.
   */
  readonly members?: readonly string[];
}

export type RunSpecErrorCode = "RUNSPEC_INVALID" | "RUNSPEC_PARSE";

export class RunSpecError extends SeedswarmError<RunSpecErrorCode> {}

function fail(path: string, problem: string, value: unknown): never {
  throw new RunSpecError(
    "RUNSPEC_INVALID",
    `run spec: ${path} ${problem} (got ${JSON.stringify(value)})`,
    {
      path,
      value,
    },
  );
}

type Obj = Record<string, unknown>;

function obj(v: unknown, path: string, keys: readonly string[]): Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(path, "must be an object", v);
  for (const k of Object.keys(v))
    if (!keys.includes(k)) fail(`${path}.${k}`, "is not a known field", (v as Obj)[k]);
  return v as Obj;
}

function int(o: Obj, k: string, path: string, min: number, max: number): number {
  const v = o[k];
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    fail(`${path}.${k}`, `must be an integer in ${min}..${max}`, v);
  }
  return v;
}

function num(o: Obj, k: string, path: string, min: number, max: number): number {
  const v = o[k];
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) {
    fail(`${path}.${k}`, `must be a number in ${min}..${max}`, v);
  }
  return v;
}

function str(o: Obj, k: string, path: string): string {
  const v = o[k];
  if (typeof v !== "string" || v.length === 0 || v.length > 4096)
    fail(`${path}.${k}`, "must be a non-empty string", v);
  return v;
}

function shape(o: Obj, k: string, path: string): InputShape {
  const v = o[k];
  if (
    !Array.isArray(v) ||
    v.length !== 3 ||
    !v.every((d) => Number.isInteger(d) && d >= 1 && d <= 4096)
  ) {
    fail(`${path}.${k}`, "must be [height, width, channels] of positive integers", v);
  }
  return [v[0], v[1], v[2]];
}

function modelSpec(v: unknown): ModelSpec {
  const kind = (v as Obj | null)?.kind;
  if (kind === "mlp") {
    const o = obj(v, "model", ["kind", "inputShape", "hidden", "classes"]);
    const hidden = o.hidden;
    if (
      !Array.isArray(hidden) ||
      hidden.length > 8 ||
      !hidden.every((h) => Number.isInteger(h) && h >= 1 && h <= 65536)
    ) {
      fail("model.hidden", "must be a list of at most 8 layer widths in 1..65536", hidden);
    }
    return {
      kind,
      inputShape: shape(o, "inputShape", "model"),
      hidden: [...hidden],
      classes: int(o, "classes", "model", 2, 65536),
    };
  }
  if (kind === "cnn") {
    const o = obj(v, "model", ["kind", "inputShape", "classes"]);
    const inputShape = shape(o, "inputShape", "model");
    if (inputShape[0] !== 28 || inputShape[1] !== 28)
      fail("model.inputShape", "must be 28x28 for the cnn", inputShape);
    return { kind, inputShape, classes: int(o, "classes", "model", 2, 65536) };
  }
  if (kind === "bitmlp") {
    const o = obj(v, "model", ["kind", "inputShape", "hidden", "classes", "weights", "inputThreshold", "logitScale"]);
    const hidden = o.hidden;
    if (
      !Array.isArray(hidden) ||
      hidden.length < 1 ||
      hidden.length > 8 ||
      !hidden.every((h) => Number.isInteger(h) && h >= 1 && h <= 65536)
    ) {
      fail("model.hidden", "must be a list of 1 to 8 layer widths in 1..65536", hidden);
    }
    if (!WEIGHT_KINDS.includes(o.weights as WeightKind))
      fail("model.weights", `must be one of ${WEIGHT_KINDS.join(", ")}`, o.weights);
    const logitScale = num(o, "logitScale", "model", 2 ** -16, 1);
    if (Math.log2(logitScale) !== Math.round(Math.log2(logitScale)))
      fail("model.logitScale", "must be a power of two", logitScale);
    const inputShape = shape(o, "inputShape", "model");
    if (inputShape[0] * inputShape[1] * inputShape[2] > 65536)
      fail("model.inputShape", "must hold at most 65536 features for a bitmlp", inputShape);
    return {
      kind,
      inputShape,
      hidden: [...hidden],
      classes: int(o, "classes", "model", 2, 65536),
      weights: o.weights as WeightKind,
      inputThreshold: num(o, "inputThreshold", "model", -1e9, 1e9),
      logitScale,
    };
  }
  if (kind === "transformer") {
    const o = obj(v, "model", ["kind", "architecture", "weightsHash"]);
    const architecture = o.architecture;
    if (!TRANSFORMER_ARCHITECTURES.some((a) => a === architecture))
      fail("model.architecture", `must be one of ${TRANSFORMER_ARCHITECTURES.join(", ")}`, architecture);
    return {
      kind,
      architecture: architecture as TransformerModelSpec["architecture"],
      weightsHash: sha256(o, "weightsHash", "model"),
    };
  }
  return fail("model.kind", 'must be "mlp", "cnn", "bitmlp" or "transformer"', kind);
}

function sha256(o: Obj, k: string, path: string): string {
  const v = o[k];
  if (typeof v !== "string" || !/^[0-9a-f]{64}$/.test(v))
    fail(`${path}.${k}`, "must be a hex SHA-256 (64 lowercase hex digits)", v);
  return v;
}

function textTask(v: unknown): TextTaskSpec {
  const kind = (v as Obj | null)?.kind;
  if (kind === "causal-lm") {
    const o = obj(v, "dataset.task", ["kind", "contextLength"]);
    return { kind, contextLength: int(o, "contextLength", "dataset.task", 2, 1 << 16) };
  }
  if (kind === "prompt-classification") {
    const o = obj(v, "dataset.task", ["kind", "template", "labelWords"]);
    const template = str(o, "template", "dataset.task");
    if (!template.includes("{text}")) fail("dataset.task.template", "must contain {text}", template);
    const words = o.labelWords;
    if (
      !Array.isArray(words) ||
      words.length < 2 ||
      words.length > 256 ||
      !words.every((w) => typeof w === "string" && w.length > 0 && w.length <= 256) ||
      new Set(words).size !== words.length
    ) {
      fail("dataset.task.labelWords", "must be 2..256 distinct non-empty strings", words);
    }
    return { kind, template, labelWords: [...(words as string[])] };
  }
  return fail("dataset.task.kind", 'must be "causal-lm" or "prompt-classification"', kind);
}

function datasetSpec(v: unknown): DatasetSpec {
  const kind = (v as Obj | null)?.kind;
  if (kind === "mnist") {
    obj(v, "dataset", ["kind"]);
    return { kind };
  }
  if (kind === "idx") {
    const o = obj(v, "dataset", ["kind", "trainImages", "trainLabels", "testImages", "testLabels"]);
    return {
      kind,
      trainImages: str(o, "trainImages", "dataset"),
      trainLabels: str(o, "trainLabels", "dataset"),
      testImages: str(o, "testImages", "dataset"),
      testLabels: str(o, "testLabels", "dataset"),
    };
  }
  if (kind === "synthetic") {
    const o = obj(v, "dataset", ["kind", "features", "classes", "trainSize", "testSize", "seed"]);
    return {
      kind,
      features: int(o, "features", "dataset", 1, 1 << 20),
      classes: int(o, "classes", "dataset", 2, 256),
      trainSize: int(o, "trainSize", "dataset", 1, 1 << 24),
      testSize: int(o, "testSize", "dataset", 1, 1 << 24),
      seed: int(o, "seed", "dataset", 0, 0xffffffff),
    };
  }
  if (kind === "text") {
    const o = obj(v, "dataset", ["kind", "format", "contentHash", "task"]);
    if (o.format !== "jsonl" && o.format !== "csv") fail("dataset.format", 'must be "jsonl" or "csv"', o.format);
    return { kind, format: o.format, contentHash: sha256(o, "contentHash", "dataset"), task: textTask(o.task) };
  }
  return fail("dataset.kind", 'must be "mnist", "idx", "synthetic" or "text"', kind);
}

function schedule(v: unknown): LrSchedule {
  const s = obj(v, "algorithm.schedule", ["lr", "warmup", "minFactor"]);
  return {
    lr: num(s, "lr", "algorithm.schedule", 0, 1e3),
    warmup: int(s, "warmup", "algorithm.schedule", 0, 1e9),
    minFactor: num(s, "minFactor", "algorithm.schedule", 0, 1),
  };
}

function marketplaceSpec(v: unknown, model: ModelSpec): MarketplaceSpec {
  if (model.kind === "transformer")
    fail("algorithm.kind", 'must be "spsa" for a transformer (Marketplace splits image models by layer)', "marketplace");
  const o = obj(v, "algorithm", [
    "kind",
    "version",
    "vendors",
    "specs",
    "batchSize",
    "probeScale",
    "schedule",
    "upstreamSampling",
  ]);
  if (o.version !== 1 && o.version !== 2) fail("algorithm.version", "must be 1 or 2", o.version);
  const layers = modelLayerCount(model);
  const specs = o.specs;
  if (
    !Array.isArray(specs) ||
    specs.length < 1 ||
    !specs.every((n) => Number.isInteger(n) && n >= 1) ||
    specs.reduce((a: number, b: number) => a + b, 0) !== layers
  ) {
    fail("algorithm.specs", `must be layer counts (>= 1 each) summing to the model's ${layers} layers`, specs);
  }
  const upstream =
    o.upstreamSampling === undefined ? 0 : int(o, "upstreamSampling", "algorithm", 0, MAX_MARKETPLACE_PATHS);
  const a: MarketplaceSpec = {
    kind: "marketplace",
    version: o.version,
    vendors: int(o, "vendors", "algorithm", 2, 256),
    specs: [...specs],
    batchSize: int(o, "batchSize", "algorithm", 1, 65536),
    probeScale: num(o, "probeScale", "algorithm", 1e-8, 1e3),
    schedule: schedule(o.schedule),
    // 0 means "all": dropped, so both spellings are the same run.
    ...(upstream > 0 ? { upstreamSampling: upstream } : {}),
  };
  const products = marketplaceProducts(a);
  const paths = products[products.length - 1];
  if (products.some((p) => p > MAX_MARKETPLACE_PATHS))
    fail("algorithm", `evaluates more than ${MAX_MARKETPLACE_PATHS} products per spec; lower vendors or set upstreamSampling`, paths);
  if (a.version === 2 && v2PayloadSize(paths) > MAX_PAYLOAD_BYTES)
    fail(
      "algorithm",
      `V2 sends one byte per path: ${paths} paths do not fit the ${MAX_PAYLOAD_BYTES}-byte payload limit; lower vendors or set upstreamSampling`,
      paths,
    );
  return a;
}

function binarySpec(v: unknown, model: ModelSpec): BinarySpec {
  const o = obj(v, "algorithm", ["kind", "batchSize", "flipsPerIteration", "maxEntries", "stages"]);
  if (model.kind !== "bitmlp")
    fail("algorithm.kind", `"binary" trains one-bit weights: the model must be a bitmlp, not ${model.kind}`, o.kind);
  const ranges = bitStageRanges(model);
  const stages = o.stages;
  if (
    !Array.isArray(stages) ||
    stages.length !== ranges.length ||
    !stages.every((n) => Number.isInteger(n) && n >= 1 && n <= 1e9)
  )
    fail("algorithm.stages", `must list iterations (>= 1) for each of the model's ${ranges.length} hidden layers`, stages);
  const smallest = Math.min(...ranges.map((r) => r.end - r.start));
  const a: BinarySpec = {
    kind: "binary",
    batchSize: int(o, "batchSize", "algorithm", 1, 65536),
    flipsPerIteration: int(o, "flipsPerIteration", "algorithm", 1, smallest),
    maxEntries: int(o, "maxEntries", "algorithm", 1, MAX_PAYLOAD_BYTES),
    stages: [...stages],
  };
  const worst = worstCaseSparseBytes(a.maxEntries, ranges[ranges.length - 1].end);
  if (worst > MAX_PAYLOAD_BYTES)
    fail(
      "algorithm.maxEntries",
      `can make a ${worst}-byte payload, above the ${MAX_PAYLOAD_BYTES}-byte limit`,
      a.maxEntries,
    );
  return a;
}

function algorithmSpec(v: unknown, model: ModelSpec): AlgorithmSpec {
  const kind = (v as Obj | null)?.kind;
  if (kind === "binary") return binarySpec(v, model);
  if (kind !== "spsa" && kind !== "marketplace")
    return fail("algorithm.kind", 'must be "spsa", "marketplace" or "binary"', kind);
  if (model.kind === "bitmlp")
    fail("algorithm.kind", 'must be "binary" for a bitmlp model (one-bit weights have no gradient)', kind);
  if (kind === "marketplace") return marketplaceSpec(v, model);
  const o = obj(v, "algorithm", [
    "kind",
    "perturbations",
    "batchSize",
    "eps",
    "schedule",
    "lrScaling",
    "perturbation",
    "fitness",
  ]);
  const scaling = o.lrScaling === undefined ? undefined : lrScaling(o.lrScaling);
  const direction = o.perturbation === undefined ? undefined : perturbation(o.perturbation);
  if (o.fitness !== undefined && o.fitness !== "difference" && o.fitness !== "sign")
    fail("algorithm.fitness", 'must be "difference" or "sign"', o.fitness);
  return {
    kind,
    perturbations: int(o, "perturbations", "algorithm", 1, 1024),
    batchSize: int(o, "batchSize", "algorithm", 1, 65536),
    eps: num(o, "eps", "algorithm", 1e-8, 1),
    schedule: schedule(o.schedule),
    // "none" without a cap is the default: dropped, so both spellings are the same run.
    ...(scaling && (scaling.rule !== "none" || scaling.cap !== undefined) ? { lrScaling: scaling } : {}),
    // The defaults (full rank, difference) are dropped too: today's runs keep their runIds.
    ...(direction && direction.kind !== "full" ? { perturbation: direction } : {}),
    ...(o.fitness === "sign" ? { fitness: "sign" as const } : {}),
  };
}

function perturbation(v: unknown): Perturbation {
  const kind = (v as Obj | null)?.kind;
  if (kind === "full") {
    obj(v, "algorithm.perturbation", ["kind"]);
    return { kind };
  }
  if (kind !== "lowrank") return fail("algorithm.perturbation.kind", 'must be "full" or "lowrank"', kind);
  const o = obj(v, "algorithm.perturbation", ["kind", "rank"]);
  // The rank is always written out, so {kind: "lowrank"} and rank 1 are one run.
  const rank = o.rank === undefined ? 1 : int(o, "rank", "algorithm.perturbation", 1, MAX_PERTURBATION_RANK);
  return { kind, rank };
}

function lrScaling(v: unknown): LrScaling {
  const o = obj(v, "algorithm.lrScaling", ["rule", "cap"]);
  if (o.rule !== "none" && o.rule !== "sqrt" && o.rule !== "linear")
    fail("algorithm.lrScaling.rule", 'must be "none", "sqrt" or "linear"', o.rule);
  return {
    rule: o.rule,
    ...(o.cap === undefined ? {} : { cap: num(o, "cap", "algorithm.lrScaling", 1, 1024) }),
  };
}

/**
 * The members of a member run in canonical form: each a peer id in its canonical string (the form
 * a signer's id takes on the wire), sorted, duplicates dropped. An empty list is refused: it would
 * be a run nobody may take part in, not an open one.
 */
function members(v: unknown): string[] {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_MEMBERS)
    fail("spec.members", `must be a list of 1..${MAX_MEMBERS} peer ids`, Array.isArray(v) ? v.length : v);
  const ids = v.map((id, i) => {
    if (typeof id !== "string" || id.length > 128) fail(`spec.members[${i}]`, "must be a peer id string", id);
    let canonical: string;
    try {
      canonical = peerIdFromString(id).toString();
    } catch {
      return fail(`spec.members[${i}]`, "is not a peer id", id);
    }
    if (canonical !== id) fail(`spec.members[${i}]`, `must be written as ${canonical}`, id);
    return id;
  });
  return [...new Set(ids)].sort();
}

/** Validates an untrusted value as a RunSpec; throws RunSpecError naming the first bad field. */
export function parseRunSpec(v: unknown): RunSpec {
  const o = obj(v, "spec", [
    "version",
    "name",
    "model",
    "dataset",
    "algorithm",
    "seed",
    "iterations",
    "roundTimeoutMs",
    "members",
  ]);
  if (o.version !== 1) fail("spec.version", "must be 1", o.version);
  const model = modelSpec(o.model);
  const spec: RunSpec = {
    version: 1,
    name: str(o, "name", "spec"),
    model,
    dataset: datasetSpec(o.dataset),
    algorithm: algorithmSpec(o.algorithm, model),
    seed: int(o, "seed", "spec", 0, 0xffffffff),
    iterations: int(o, "iterations", "spec", 1, 1e9),
    roundTimeoutMs: int(o, "roundTimeoutMs", "spec", 10, 3_600_000),
    ...(o.members === undefined ? {} : { members: members(o.members) }),
  };
  if (spec.algorithm.kind === "binary") {
    const total = spec.algorithm.stages.reduce((a, b) => a + b, 0);
    if (total !== spec.iterations)
      fail("algorithm.stages", `must add up to spec.iterations ${spec.iterations} (they add up to ${total})`, spec.algorithm.stages);
  }
  if ((spec.model.kind === "transformer") !== (spec.dataset.kind === "text"))
    fail(
      "dataset.kind",
      spec.model.kind === "transformer" ? 'must be "text" for a transformer' : `cannot be "text" for a ${spec.model.kind} model`,
      spec.dataset.kind,
    );
  if (spec.dataset.kind === "synthetic" && spec.model.kind !== "transformer") {
    const [h, w, c] = spec.model.inputShape;
    if (h * w * c !== spec.dataset.features)
      fail(
        "model.inputShape",
        `must hold ${spec.dataset.features} features`,
        spec.model.inputShape,
      );
    if (spec.model.classes !== spec.dataset.classes)
      fail(
        "model.classes",
        `must equal dataset.classes ${spec.dataset.classes}`,
        spec.model.classes,
      );
  }
  return spec;
}

/**
 * The spec with another run length (a different run). A staged algorithm's last stage takes the
 * difference, so the stages still add up (a last stage that would drop below 1 is refused).
 */
export function withIterations(spec: RunSpec, iterations: number): RunSpec {
  const a = spec.algorithm;
  if (a.kind !== "binary") return parseRunSpec({ ...spec, iterations });
  const last = a.stages[a.stages.length - 1] + iterations - spec.iterations;
  return parseRunSpec({ ...spec, iterations, algorithm: { ...a, stages: [...a.stages.slice(0, -1), last] } });
}

/** The spec as a member run of `members` (a different run: the list is part of the runId). */
export function withMembers(spec: RunSpec, members: readonly string[]): RunSpec {
  return parseRunSpec({ ...spec, members });
}

/** Parses RunSpec JSON text; syntax errors become RunSpecError too. */
export function parseRunSpecJson(text: string, source = "run spec"): RunSpec {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new RunSpecError(
      "RUNSPEC_PARSE",
      `${source}: not valid JSON: ${(err as Error).message}`,
      { source },
    );
  }
  return parseRunSpec(value);
}

/** JSON with object keys sorted at every level: the same spec always gives the same bytes. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Obj;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** runId = hex SHA-256 of the canonical JSON of the spec. */
export function runIdOf(spec: RunSpec): string {
  return sha256Hex(canonicalJson(spec));
}
