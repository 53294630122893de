/**
 * A Hugging Face `config.json` as a typed transformer configuration, and back. Only what the
 * forward pass implements is accepted: any option that would change the computation and that
 * seedswarm does not implement is refused by name, so a model never runs silently wrong.
 */
import { SeedswarmError } from "../../protocol/errors.js";

export const ARCHITECTURES = ["gpt2", "opt", "llama"] as const;
export type Architecture = (typeof ARCHITECTURES)[number];

/** Hugging Face `model_type` values and the architecture that runs them. */
const MODEL_TYPES: Readonly<Record<string, Architecture>> = {
  gpt2: "gpt2",
  opt: "opt",
  llama: "llama",
  // Qwen2 is Llama with q/k/v biases (and no bias on o_proj).
  qwen2: "llama",
};

export type HfConfigErrorCode = "HF_CONFIG_INVALID" | "HF_ARCH_UNSUPPORTED";

export class HfConfigError extends SeedswarmError<HfConfigErrorCode> {}

export type Activation = "gelu_new" | "gelu" | "relu" | "silu";

/** Everything the forward pass needs, in seedswarm's own words. */
export interface TransformerConfig {
  readonly architecture: Architecture;
  /** The `model_type` of config.json (qwen2 runs as llama). */
  readonly modelType: string;
  readonly vocabSize: number;
  readonly hidden: number;
  readonly layers: number;
  readonly heads: number;
  /** Key/value heads: fewer than `heads` is grouped-query attention. */
  readonly kvHeads: number;
  readonly headDim: number;
  /** Inner width of the feed-forward block. */
  readonly ffn: number;
  /** Positions the model was trained for (the learned position table's rows for gpt2/opt). */
  readonly maxPositions: number;
  readonly normEps: number;
  readonly activation: Activation;
  /** The LM head is the token embedding (no lm_head.weight). */
  readonly tiedHead: boolean;
  /** Biases on the q, k and v projections (gpt2 and opt always; llama: attention_bias; qwen2). */
  readonly qkvBias: boolean;
  /** Bias on the attention output projection. */
  readonly outBias: boolean;
  /** Biases in the feed-forward block. */
  readonly mlpBias: boolean;
  /** RoPE base (llama only). */
  readonly ropeTheta: number;
  /** The dtype config.json declares for the weights, if any (safetensors must agree). */
  readonly dtype: "float32" | "float16" | "bfloat16" | null;
  /** config.json as read: export writes it back with only the dtype changed. */
  readonly raw: Readonly<Record<string, unknown>>;
}

type Obj = Record<string, unknown>;

/** Learned position rows OPT keeps before position 0 (its embedding is offset by 2). */
export const OPT_POSITION_OFFSET = 2;

/**
 * Largest dimensions and weight bytes a config.json may give (security review, finding 16): a
 * local config with huge dimensions would make the loader allocate (and crash) before any check
 * of the weights. Each dimension is bounded well above today's open models (Llama 3 405B has
 * hidden 16,384, 126 layers, vocab 128,256, ffn 53,248), and the whole model to 32 GiB of float32
 * weights (8.6B parameters: what one node can hold replicated, with room for perturbations).
 */
export const HF_CONFIG_BOUNDS = {
  hidden: 65_536,
  layers: 1_024,
  heads: 1_024,
  vocabSize: 1 << 20,
  ffn: 1 << 18,
  maxPositions: 1 << 20,
  weightBytes: 32 * 2 ** 30,
} as const;

/** Parameters a configuration implies: embeddings, positions, attention, feed-forward, norms, biases and an untied head. */
export function transformerParameterCount(c: TransformerConfig): number {
  const q = c.heads * c.headDim;
  const kv = c.kvHeads * c.headDim;
  const gated = c.architecture === "llama";
  const attention = c.hidden * q + 2 * c.hidden * kv + q * c.hidden + (c.qkvBias ? q + 2 * kv : 0) + (c.outBias ? c.hidden : 0);
  const ffn = (gated ? 3 : 2) * c.hidden * c.ffn + (c.mlpBias ? c.ffn + c.hidden : 0);
  // Two norms a layer and a final one: LayerNorm (gpt2, opt) has a weight and a bias, RMSNorm (llama) a weight.
  const norm = (gated ? 1 : 2) * c.hidden;
  const positions = c.ropeTheta === 0 ? (c.maxPositions + (c.architecture === "opt" ? OPT_POSITION_OFFSET : 0)) * c.hidden : 0;
  return c.vocabSize * c.hidden * (c.tiedHead ? 1 : 2) + positions + c.layers * (attention + ffn + 2 * norm) + norm;
}

/**
 * The typed configuration of a config.json object. `file` names it in errors.
 * @throws HfConfigError HF_ARCH_UNSUPPORTED (naming the supported ones) or HF_CONFIG_INVALID
 *   (among others: a dimension over HF_CONFIG_BOUNDS, or weights over its weightBytes, naming the
 *   bytes they would need).
 */
export function parseHfConfig(raw: unknown, file = "config.json"): TransformerConfig {
  const c = configOf(raw, file);
  for (const key of ["hidden", "layers", "heads", "vocabSize", "ffn", "maxPositions"] as const) {
    if (c[key] > HF_CONFIG_BOUNDS[key])
      throw new HfConfigError("HF_CONFIG_INVALID", `${file}: ${key} ${c[key]} is over the bound ${HF_CONFIG_BOUNDS[key]}`, { file, key, value: c[key] });
  }
  const bytes = 4 * transformerParameterCount(c);
  if (bytes > HF_CONFIG_BOUNDS.weightBytes)
    throw new HfConfigError(
      "HF_CONFIG_INVALID",
      `${file}: the model would need ${bytes} bytes of float32 weights (${(bytes / 2 ** 30).toFixed(1)} GiB); at most ${HF_CONFIG_BOUNDS.weightBytes}`,
      { file, key: "(weights)", value: bytes },
    );
  return c;
}

function configOf(raw: unknown, file: string): TransformerConfig {
  const bad = (key: string, problem: string, value: unknown): never => {
    throw new HfConfigError("HF_CONFIG_INVALID", `${file}: ${key} ${problem} (got ${JSON.stringify(value)})`, { file, key, value });
  };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) bad("(root)", "must be a JSON object", raw);
  const o = raw as Obj;
  const modelType = o.model_type;
  const architecture = typeof modelType === "string" ? MODEL_TYPES[modelType] : undefined;
  if (architecture === undefined) {
    throw new HfConfigError(
      "HF_ARCH_UNSUPPORTED",
      `${file}: model_type ${JSON.stringify(modelType)} (${JSON.stringify(o.architectures ?? null)}) is not supported; seedswarm runs ${Object.keys(MODEL_TYPES).join(", ")} (architectures ${ARCHITECTURES.join(", ")})`,
      { file, modelType, supported: Object.keys(MODEL_TYPES) },
    );
  }
  const int = (key: string, fallback?: number): number => {
    const v = o[key] ?? fallback;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) bad(key, "must be a positive integer", v);
    return v as number;
  };
  const num = (key: string, fallback?: number): number => {
    const v = o[key] ?? fallback;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) bad(key, "must be a positive number", v);
    return v as number;
  };
  const flag = (key: string, fallback: boolean): boolean => {
    const v = o[key] ?? fallback;
    if (typeof v !== "boolean") bad(key, "must be true or false", v);
    return v as boolean;
  };
  /** An option seedswarm does not implement must keep the value that means "off". */
  const refuse = (key: string, allowed: unknown, why: string): void => {
    const v = o[key];
    if (v !== undefined && v !== null && v !== allowed) {
      throw new HfConfigError("HF_CONFIG_INVALID", `${file}: ${key}=${JSON.stringify(v)} is not supported (${why})`, { file, key, value: v });
    }
  };
  const dtypeRaw = o.dtype ?? o.torch_dtype ?? null;
  if (dtypeRaw !== null && !["float32", "float16", "bfloat16"].includes(dtypeRaw as string)) {
    bad("dtype", "must be float32, float16 or bfloat16", dtypeRaw);
  }
  const dtype = dtypeRaw as TransformerConfig["dtype"];
  /** GPT-2 and OPT: biases everywhere, learned positions (no RoPE). */
  const learnedPositions = { qkvBias: true, outBias: true, mlpBias: true, ropeTheta: 0, dtype, raw: o } as const;

  if (architecture === "gpt2") {
    const hidden = int("n_embd");
    const heads = int("n_head");
    refuse("scale_attn_by_inverse_layer_idx", false, "attention scaled per layer");
    refuse("reorder_and_upcast_attn", false, "reordered attention");
    refuse("scale_attn_weights", true, "unscaled attention");
    refuse("add_cross_attention", false, "cross-attention");
    const act = o.activation_function ?? "gelu_new";
    if (act !== "gelu_new" && act !== "gelu" && act !== "relu") bad("activation_function", "must be gelu_new, gelu or relu", act);
    if (hidden % heads !== 0) bad("n_embd", `must be a multiple of n_head (${heads})`, hidden);
    return {
      architecture,
      modelType: modelType as string,
      vocabSize: int("vocab_size"),
      hidden,
      layers: int("n_layer"),
      heads,
      kvHeads: heads,
      headDim: hidden / heads,
      ffn: o.n_inner == null ? 4 * hidden : int("n_inner"),
      maxPositions: int("n_positions"),
      normEps: num("layer_norm_epsilon", 1e-5),
      activation: act as Activation,
      tiedHead: flag("tie_word_embeddings", true),
      ...learnedPositions,
    };
  }
  if (architecture === "opt") {
    const hidden = int("hidden_size");
    const heads = int("num_attention_heads");
    refuse("do_layer_norm_before", true, "post-norm OPT (opt-350m)");
    refuse("_remove_final_layer_norm", false, "OPT without its final layer norm");
    refuse("enable_bias", true, "OPT without biases");
    refuse("layer_norm_elementwise_affine", true, "layer norms without weights");
    if ((o.word_embed_proj_dim ?? hidden) !== hidden) {
      bad("word_embed_proj_dim", `must equal hidden_size ${hidden} (projected embeddings, as in opt-350m, are not supported)`, o.word_embed_proj_dim);
    }
    const act = o.activation_function ?? "relu";
    if (act !== "relu" && act !== "gelu") bad("activation_function", "must be relu or gelu", act);
    if (hidden % heads !== 0) bad("hidden_size", `must be a multiple of num_attention_heads (${heads})`, hidden);
    return {
      architecture,
      modelType: modelType as string,
      vocabSize: int("vocab_size"),
      hidden,
      layers: int("num_hidden_layers"),
      heads,
      kvHeads: heads,
      headDim: hidden / heads,
      ffn: int("ffn_dim"),
      maxPositions: int("max_position_embeddings"),
      // OPT's layer norms use PyTorch's default epsilon.
      normEps: 1e-5,
      activation: act as Activation,
      tiedHead: flag("tie_word_embeddings", true),
      ...learnedPositions,
    };
  }
  // llama (and qwen2)
  const hidden = int("hidden_size");
  const heads = int("num_attention_heads");
  const kvHeads = int("num_key_value_heads", heads);
  const headDim = o.head_dim == null ? hidden / heads : int("head_dim");
  if (!Number.isInteger(headDim) || headDim % 2 !== 0) bad("head_dim", "must be an even integer (hidden_size / num_attention_heads)", headDim);
  if (heads % kvHeads !== 0) bad("num_key_value_heads", `must divide num_attention_heads (${heads})`, kvHeads);
  const act = o.hidden_act ?? "silu";
  if (act !== "silu") bad("hidden_act", "must be silu", act);
  refuse("pretraining_tp", 1, "tensor-parallel slicing");
  if (modelType === "qwen2") refuse("use_sliding_window", false, "sliding-window attention");
  const rope = (o.rope_parameters ?? o.rope_scaling ?? null) as Obj | null;
  const ropeType = rope?.rope_type ?? rope?.type ?? "default";
  if (ropeType !== "default") bad("rope_parameters.rope_type", "must be default (scaled RoPE is not supported)", ropeType);
  const theta = rope?.rope_theta ?? o.rope_theta ?? 10000;
  if (typeof theta !== "number" || !(theta > 0)) bad("rope_theta", "must be a positive number", theta);
  const attentionBias = modelType === "qwen2" ? false : flag("attention_bias", false);
  return {
    architecture,
    modelType: modelType as string,
    vocabSize: int("vocab_size"),
    hidden,
    layers: int("num_hidden_layers"),
    heads,
    kvHeads,
    headDim,
    ffn: int("intermediate_size"),
    maxPositions: int("max_position_embeddings", 2048),
    normEps: num("rms_norm_eps", 1e-6),
    activation: "silu",
    tiedHead: flag("tie_word_embeddings", false),
    qkvBias: modelType === "qwen2" || attentionBias,
    outBias: attentionBias,
    mlpBias: modelType === "qwen2" ? false : flag("mlp_bias", false),
    ropeTheta: theta as number,
    dtype,
    raw: o,
  };
}
