/**
 * The algorithm part of a RunSpec: SPSA (one-byte projected gradients), Marketplace (vendor
 * paths) and binary (bit flips), with their schedules, and their parser.
 */
import { GRADIENT_BYTE_MAX, GRADIENT_BYTE_MIN } from "./gradient-byte.js";
import { MAX_PAYLOAD_BYTES } from "./limits.js";
import { v2PayloadSize } from "./marketplace-payload.js";
import { bitStageRanges, type ModelSpec, modelLayerCount } from "./model-spec.js";
import { fail, int, num, obj, type Obj } from "./spec-fields.js";
import { worstCaseSparseBytes } from "./sparse-payload.js";

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
  /**
   * Most |g| a byte may step by, whoever sent it; absent = no bound beyond the code's 29.3. The
   * canonical update clamps every byte to the largest code within it (`gradientCodeBound`), so a
   * peer's byte moves the weights at most this far along its direction. In GRADIENT_BYTE_MIN ..
   * GRADIENT_BYTE_MAX (protocol/gradient-byte.ts).
   */
  readonly clip?: number;
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

export function algorithmSpec(v: unknown, model: ModelSpec): AlgorithmSpec {
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
    "clip",
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
    // Absent unless given: specs without it keep their runIds.
    ...(o.clip === undefined ? {} : { clip: clipBound(o) }),
  };
}

/**
 * `clip`: a bound some byte code meets (at least the smallest magnitude, else every byte would
 * clamp to 0) and some code exceeds (below the largest, else it bounds nothing).
 */
function clipBound(o: Obj): number {
  const v = o.clip;
  if (typeof v !== "number" || !Number.isFinite(v) || v < GRADIENT_BYTE_MIN || v >= GRADIENT_BYTE_MAX)
    fail(
      "algorithm.clip",
      `must be a number from ${GRADIENT_BYTE_MIN.toPrecision(3)} (the smallest byte magnitude) up to, not including, ${GRADIENT_BYTE_MAX.toPrecision(3)} (the largest, which bounds nothing)`,
      v,
    );
  return v;
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
