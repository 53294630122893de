/**
 * The model part of a RunSpec: image models (MLP, CNN, binary/ternary MLP) and Hugging Face
 * transformers, their types and their parser.
 */
import { fail, int, num, obj, type Obj, sha256, shape } from "./spec-fields.js";

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

/** Layers of a model, the units a Marketplace spec groups (see training/models/model.ts). */
export function modelLayerCount(m: ImageModelSpec): number {
  return m.kind === "cnn" ? 5 : m.hidden.length + 1;
}

/**
 * Largest model state an image-model spec may imply (security review, finding 16): a spec is
 * hash-bound and handed over by runId, so a node joining a run whose spec implies 8 x 65,536
 * hidden units would allocate terabytes at start and crash. 1 GiB is 268M float32 weights,
 * hundreds of times the largest preset. (A transformer's size comes from its config.json,
 * bounded in training/hf/config.ts.)
 */
export const MAX_MODEL_STATE_BYTES = 2 ** 30;

/** Bytes of an image model's state: float32 weights and biases; a bitmlp's 1 or 2 bits a weight. */
export function imageModelStateBytes(m: ImageModelSpec): number {
  const [h, w, c] = m.inputShape;
  const features = h * w * c;
  if (m.kind === "mlp") {
    const widths = [features, ...m.hidden, m.classes];
    return 4 * widths.slice(1).reduce((sum, out, i) => sum + widths[i] * out + out, 0);
  }
  if (m.kind === "cnn") {
    const conv = (k: number, cin: number, cout: number) => k * k * cin * cout + cout;
    return 4 * (conv(5, c, 32) + conv(5, 32, 32) + conv(3, 32, 64) + conv(3, 64, 64) + 576 * m.classes + m.classes);
  }
  const planes = m.weights === "ternary" ? 2 : 1;
  let inputs = features;
  let weights = 0;
  for (const units of m.hidden) {
    weights += units * inputs + m.classes * units;
    inputs = units;
  }
  return Math.ceil((planes * weights) / 8);
}

/** Refuses an image model over MAX_MODEL_STATE_BYTES, naming the bytes it would need. */
function bounded<M extends ImageModelSpec>(m: M): M {
  const bytes = imageModelStateBytes(m);
  if (bytes > MAX_MODEL_STATE_BYTES)
    fail("model", `would need ${bytes} bytes of weights (${(bytes / 2 ** 30).toFixed(1)} GiB); at most ${MAX_MODEL_STATE_BYTES}`, { kind: m.kind, bytes });
  return m;
}

export function modelSpec(v: unknown): ModelSpec {
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
    return bounded({
      kind,
      inputShape: shape(o, "inputShape", "model"),
      hidden: [...hidden],
      classes: int(o, "classes", "model", 2, 65536),
    });
  }
  if (kind === "cnn") {
    const o = obj(v, "model", ["kind", "inputShape", "classes"]);
    const inputShape = shape(o, "inputShape", "model");
    if (inputShape[0] !== 28 || inputShape[1] !== 28)
      fail("model.inputShape", "must be 28x28 for the cnn", inputShape);
    return bounded({ kind, inputShape, classes: int(o, "classes", "model", 2, 65536) });
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
    return bounded({
      kind,
      inputShape,
      hidden: [...hidden],
      classes: int(o, "classes", "model", 2, 65536),
      weights: o.weights as WeightKind,
      inputThreshold: num(o, "inputThreshold", "model", -1e9, 1e9),
      logitScale,
    });
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
