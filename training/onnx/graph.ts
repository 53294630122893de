/**
 * The ONNX graph of a decoder-only transformer's forward pass and next-token loss, built in
 * TypeScript from a TransformerConfig: the same computation as models/transformer.ts (GPT-2,
 * OPT, Llama-style) in standard ONNX ops (opset 17), tensors named as the Hugging Face layout.
 *
 * Activations stay 2-D [tokens, hidden] so every projection is one Gemm (bias fused, nn.Linear's
 * [out, in] weights read with transB, never transposed). The host makes what depends on the
 * batch and not on the weights (positions, the additive attention mask, RoPE tables, the
 * reshape targets of the heads, the predicted rows and their targets): the graph has no
 * shape arithmetic, and every dimension is free, so one session serves any batch.
 */
import { SeedswarmError } from "../../protocol/errors.js";
import type { TransformerConfig } from "../hf/config.js";
import { embeddingName } from "../models/transformer.js";
import type { ParamLayout } from "../params.js";
import { type Attribute, DataType, type Dim, type GraphSpec, type NodeSpec, rawBytes, type TensorSpec, type ValueSpec } from "./proto.js";

export type OnnxGraphErrorCode = "ONNX_UNSUPPORTED" | "ONNX_WEIGHTS";

/** A configuration or weight set the ONNX graph cannot express; context names the option. */
export class OnnxGraphError extends SeedswarmError<OnnxGraphErrorCode> {}

/** Where the weights live: inside the model (constant initializers) or fed with every call. */
export type WeightPlacement = "initializers" | "inputs";

export interface GraphOptions {
  readonly placement: WeightPlacement;
  /** Also output the logits [rows, vocab] of the predicted rows (tests; costs a copy out). */
  readonly logits: boolean;
  /**
   * Low-rank perturbations as inputs (training/algorithms/lowrank.ts): the batch is P groups of
   * equal size, group p run at W + s_p A_p B_p^T for every matrix and at its own values of every
   * vector, computed as x W + ((x A_p) (s_p B_p^T)) so no perturbed matrix is built.
   */
  readonly perturbation: { readonly rank: number } | null;
}

/**
 * What one perturbation input holds for a layout matrix W [rows, cols] with factors A [rows, r],
 * B [cols, r] and scale s, stacked over the P perturbations; or the perturbed values of a vector.
 * "a" [P, rows, r]; "aFlat" [P * rows, r] (gathered by row); "b" [P, cols, r];
 * "sAt" [P, r, rows] = s A^T; "sBt" [P, r, cols] = s B^T; "vector" [P, 1, size].
 */
export type FactorForm = "a" | "aFlat" | "b" | "sAt" | "sBt" | "vector";

export interface PerturbationInput {
  readonly input: string;
  readonly tensor: string;
  readonly form: FactorForm;
}

/** The graph's batch inputs, by name; forward.ts fills them. */
export const INPUT = {
  ids: "ids",
  positions: "positions",
  bias: "attention_bias",
  /** [size, length, heads, headDim] */
  qShape: "q_shape",
  /** [size, length, kvHeads, headDim] */
  kvShape: "kv_shape",
  /** [size, kvHeads, heads / kvHeads, length, headDim] (grouped-query attention only) */
  repeatShape: "repeat_shape",
  /** [size, heads, length, headDim] (grouped-query attention only) */
  headsShape: "heads_shape",
  cos: "rope_cos",
  sin: "rope_sin",
  rows: "rows",
  targets: "targets",
  /** Perturbed graphs: [tokens per group] and [predicted rows per group], as int64 [1]. */
  groupTokens: "group_tokens",
  groupRows: "group_rows",
  /** Perturbed graphs: p * vocab + id, and p * positions + position, for gathering A_p's rows. */
  idsGrouped: "ids_grouped",
  positionsGrouped: "positions_grouped",
} as const;

export const OUTPUT = { losses: "losses", logits: "logits" } as const;

/** The learned position table of gpt2 and opt. */
export function positionTable(c: TransformerConfig): string {
  return c.architecture === "gpt2" ? "transformer.wpe.weight" : "model.decoder.embed_positions.weight";
}

/** Builds the graph of `config`; `weights` (canonical order) fill the initializers when placed there. */
export function transformerGraph(
  c: TransformerConfig,
  layout: ParamLayout,
  weights: Float32Array | null,
  options: GraphOptions,
): GraphSpec & { readonly perturbationInputs: readonly PerturbationInput[] } {
  if (c.heads % c.kvHeads !== 0) {
    throw new OnnxGraphError("ONNX_UNSUPPORTED", `${c.heads} heads do not group over ${c.kvHeads} kv heads`, {
      heads: c.heads,
      kvHeads: c.kvHeads,
    });
  }
  if (options.placement === "initializers" && weights?.length !== layout.size) {
    throw new OnnxGraphError("ONNX_WEIGHTS", `initializers need the ${layout.size} canonical weights`, {
      expected: layout.size,
      got: weights?.length ?? null,
    });
  }
  const g = new Builder();
  const byName = new Map(layout.tensors.map((t) => [t.name, t]));
  const has = (name: string) => byName.has(name);
  // Weights: inputs of the graph or constant initializers, named as the layout names them.
  for (const t of layout.tensors) {
    if (options.placement === "inputs") g.inputs.push({ name: t.name, type: DataType.FLOAT, dims: [...t.shape] });
    else g.initializer(t.name, [...t.shape], (weights as Float32Array).subarray(t.offset, t.offset + t.size));
  }
  const d = c.hidden;
  const llama = c.architecture === "llama";
  const gqa = c.kvHeads !== c.heads;
  const pert = options.perturbation;
  const rank = pert?.rank ?? 0;
  if (pert !== null && !(Number.isInteger(rank) && rank >= 1)) {
    throw new OnnxGraphError("ONNX_UNSUPPORTED", `low-rank rank must be an integer >= 1, got ${rank}`, { rank });
  }
  const perturbationInputs: PerturbationInput[] = [];
  /** The input holding `form` of tensor `name`'s perturbation (declared once). */
  const factor = (name: string, form: FactorForm): string => {
    const input = `${name}:${form}`;
    if (perturbationInputs.some((p) => p.input === input)) return input;
    const [rows, cols] = (byName.get(name) as { shape: readonly number[] }).shape;
    const dims: Record<FactorForm, Dim[]> = {
      a: ["perturbations", rows, rank],
      aFlat: ["perturbed_rows", rank],
      b: ["perturbations", cols, rank],
      sAt: ["perturbations", rank, rows],
      sBt: ["perturbations", rank, cols],
      vector: ["perturbations", 1, rows],
    };
    perturbationInputs.push({ input, tensor: name, form });
    g.inputs.push({ name: input, type: DataType.FLOAT, dims: dims[form] });
    return input;
  };
  /** [N, width] <-> [P, N / P, width]: rows grouped by perturbation ("tokens": hidden states, "rows": predicted rows). */
  const grouped = (x: string, kind: "tokens" | "rows", width: number) => {
    const shape = g.memo(`group_${kind}_${width}`, () =>
      g.op("Concat", [g.int64s("minus_one", [-1]), kind === "tokens" ? INPUT.groupTokens : INPUT.groupRows, g.int64s(`w${width}`, [width])], [
        { name: "axis", i: 0 },
      ]),
    );
    return g.op("Reshape", [x, shape]);
  };
  const flat = (x: string, width: number) => g.op("Reshape", [x, g.int64s(`flat_${width}`, [-1, width])]);
  /** A perturbed vector added per group to [N, size] rows (a bias, a norm's shift). */
  const addVector = (x: string, name: string, kind: "tokens" | "rows" = "tokens") => {
    const size = (byName.get(name) as { size: number }).size;
    return flat(g.op("Add", [grouped(x, kind, size), factor(name, "vector")]), size);
  };
  const mulVector = (x: string, name: string) => {
    const size = (byName.get(name) as { size: number }).size;
    return flat(g.op("Mul", [grouped(x, "tokens", size), factor(name, "vector")]), size);
  };

  g.inputs.push({ name: INPUT.ids, type: DataType.INT64, dims: ["tokens"] });
  if (!llama) g.inputs.push({ name: INPUT.positions, type: DataType.INT64, dims: ["tokens"] });
  g.inputs.push({ name: INPUT.bias, type: DataType.FLOAT, dims: ["batch", 1, "length", "length"] });
  g.inputs.push({ name: INPUT.qShape, type: DataType.INT64, dims: [4] });
  if (gqa) {
    g.inputs.push({ name: INPUT.kvShape, type: DataType.INT64, dims: [4] });
    g.inputs.push({ name: INPUT.repeatShape, type: DataType.INT64, dims: [5] });
    g.inputs.push({ name: INPUT.headsShape, type: DataType.INT64, dims: [4] });
  }
  if (llama) {
    g.inputs.push({ name: INPUT.cos, type: DataType.FLOAT, dims: ["batch", 1, "length", c.headDim] });
    g.inputs.push({ name: INPUT.sin, type: DataType.FLOAT, dims: ["batch", 1, "length", c.headDim] });
  }
  g.inputs.push({ name: INPUT.rows, type: DataType.INT64, dims: ["rows"] });
  g.inputs.push({ name: INPUT.targets, type: DataType.INT64, dims: ["rows", 1] });
  if (pert !== null) {
    g.inputs.push({ name: INPUT.groupTokens, type: DataType.INT64, dims: [1] });
    g.inputs.push({ name: INPUT.groupRows, type: DataType.INT64, dims: [1] });
    g.inputs.push({ name: INPUT.idsGrouped, type: DataType.INT64, dims: ["tokens"] });
    if (!llama) g.inputs.push({ name: INPUT.positionsGrouped, type: DataType.INT64, dims: ["tokens"] });
  }

  const scale = g.scalar("attention_scale", 1 / Math.sqrt(c.headDim));
  const merged = g.int64s("merged_heads", [-1, c.heads * c.headDim]);

  /**
   * x [N, in] times nn.Linear's weight [out, in] (transposed: true) or a Conv1D's [in, out], plus a
   * bias. Perturbed: + (x A) (s B^T) per group for a Conv1D, + (x B) (s A^T) for nn.Linear
   * (x (W + s A B^T)^T = x W^T + s (x B) A^T), and each group's own bias.
   */
  const linear = (x: string, w: string, b: string | null, transposed: boolean, kind: "tokens" | "rows" = "tokens") => {
    const attrs: Attribute[] = transposed ? [{ name: "transB", i: 1 }] : [];
    if (pert === null) return g.op("Gemm", [x, w, ...(b === null ? [] : [b])], attrs);
    const [rows, cols] = (byName.get(w) as { shape: readonly number[] }).shape;
    const [inputs, outputs] = transposed ? [cols, rows] : [rows, cols];
    const left = factor(w, transposed ? "b" : "a");
    const right = factor(w, transposed ? "sAt" : "sBt");
    const delta = g.op("MatMul", [g.op("MatMul", [grouped(x, kind, inputs), left]), right]);
    const y = flat(g.op("Add", [grouped(g.op("Gemm", [x, w], attrs), kind, outputs), delta]), outputs);
    return b === null ? y : addVector(y, b, kind);
  };
  /** Rows of an embedding table; perturbed: + A_p[id] (s B_p^T), A_p's rows gathered at p * rows + id. */
  const lookup = (table: string, ids: string, groupedIds: string) => {
    const x = g.op("Gather", [table, ids], [{ name: "axis", i: 0 }]);
    if (pert === null) return x;
    const cols = (byName.get(table) as { shape: readonly number[] }).shape[1];
    const a = g.op("Gather", [factor(table, "aFlat"), groupedIds], [{ name: "axis", i: 0 }]);
    return g.op("Add", [x, flat(g.op("MatMul", [grouped(a, "tokens", rank), factor(table, "sBt")]), cols)]);
  };
  const layerNorm = (x: string, p: string) => {
    const attrs: Attribute[] = [
      { name: "axis", i: -1 },
      { name: "epsilon", f: c.normEps },
    ];
    if (pert === null) return g.op("LayerNormalization", [x, `${p}.weight`, `${p}.bias`], attrs);
    const n = g.op("LayerNormalization", [x, g.constant("ln_ones", d, 1), g.constant("ln_zeros", d, 0)], attrs);
    return addVector(mulVector(n, `${p}.weight`), `${p}.bias`);
  };
  const rmsNorm = (x: string, weight: string) => {
    const ms = g.op("ReduceMean", [g.op("Mul", [x, x])], [
      { name: "axes", ints: [-1] },
      { name: "keepdims", i: 1 },
    ]);
    const inv = g.op("Reciprocal", [g.op("Sqrt", [g.op("Add", [ms, g.scalar("norm_eps", c.normEps)])])]);
    const n = g.op("Mul", [x, inv]);
    return pert === null ? g.op("Mul", [n, weight]) : mulVector(n, weight);
  };
  const activate = (x: string): string => {
    switch (c.activation) {
      case "gelu_new": {
        // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as transformers' NewGELUActivation.
        const cube = g.op("Mul", [g.op("Mul", [x, x]), x]);
        const inner = g.op("Mul", [g.op("Add", [x, g.op("Mul", [cube, g.scalar("gelu_c", 0.044715)])]), g.scalar("gelu_k", Math.sqrt(2 / Math.PI))]);
        const half = g.op("Mul", [x, g.scalar("half", 0.5)]);
        return g.op("Mul", [half, g.op("Add", [g.op("Tanh", [inner]), g.scalar("one", 1)])]);
      }
      case "gelu": {
        const e = g.op("Erf", [g.op("Div", [x, g.scalar("sqrt2", Math.SQRT2)])]);
        return g.op("Mul", [g.op("Mul", [x, g.scalar("half", 0.5)]), g.op("Add", [e, g.scalar("one", 1)])]);
      }
      case "relu":
        return g.op("Relu", [x]);
      case "silu":
        return g.op("Mul", [x, g.op("Sigmoid", [x])]);
    }
  };
  /** [B, heads, T, headDim] -> rotate_half: [-x2, x1] over the last axis. */
  const rope = (x: string): string => {
    if (!llama) return x;
    const half = g.int64s("rope_halves", [c.headDim / 2, c.headDim / 2]);
    const [x1, x2] = g.ops("Split", [x, half], 2, [{ name: "axis", i: 3 }]);
    const rotated = g.op("Concat", [g.op("Neg", [x2]), x1], [{ name: "axis", i: 3 }]);
    return g.op("Add", [g.op("Mul", [x, INPUT.cos]), g.op("Mul", [rotated, INPUT.sin])]);
  };
  /** [N, heads * headDim] -> [B, heads, T, headDim] */
  const heads = (x: string, shape: string) => g.op("Transpose", [g.op("Reshape", [x, shape])], [{ name: "perm", ints: [0, 2, 1, 3] }]);
  /** Grouped-query attention: kv head j serves query heads j*rep .. j*rep+rep-1 (transformers' repeat_kv). */
  const repeatKv = (x: string) => {
    if (!gqa) return x;
    const expanded = g.op("Expand", [g.op("Unsqueeze", [x, g.int64s("axis2", [2])]), INPUT.repeatShape]);
    return g.op("Reshape", [expanded, INPUT.headsShape]);
  };
  const attend = (q: string, k: string, v: string): string => {
    const kvShape = gqa ? INPUT.kvShape : INPUT.qShape;
    const qh = rope(heads(q, INPUT.qShape));
    const kh = repeatKv(rope(heads(k, kvShape)));
    const vh = repeatKv(heads(v, kvShape));
    const kt = g.op("Transpose", [kh], [{ name: "perm", ints: [0, 1, 3, 2] }]);
    const scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [qh, kt]), scale]), INPUT.bias]);
    const probs = g.op("Softmax", [scores], [{ name: "axis", i: -1 }]);
    const out = g.op("Transpose", [g.op("MatMul", [probs, vh])], [{ name: "perm", ints: [0, 2, 1, 3] }]);
    return g.op("Reshape", [out, merged]);
  };

  const embedding = embeddingName(c);
  let x = lookup(embedding, INPUT.ids, INPUT.idsGrouped);
  if (!llama) {
    // The host adds OPT's position offset.
    x = g.op("Add", [x, lookup(positionTable(c), INPUT.positions, INPUT.positionsGrouped)]);
  }
  for (let i = 0; i < c.layers; i++) {
    if (c.architecture === "gpt2") {
      const p = `transformer.h.${i}.`;
      const a = layerNorm(x, `${p}ln_1`);
      const qkv = linear(a, `${p}attn.c_attn.weight`, `${p}attn.c_attn.bias`, false);
      const [q, k, v] = g.ops("Split", [qkv, g.int64s("qkv_split", [d, d, d])], 3, [{ name: "axis", i: 1 }]);
      const y = g.op("Add", [x, linear(attend(q, k, v), `${p}attn.c_proj.weight`, `${p}attn.c_proj.bias`, false)]);
      const m = layerNorm(y, `${p}ln_2`);
      const h = activate(linear(m, `${p}mlp.c_fc.weight`, `${p}mlp.c_fc.bias`, false));
      x = g.op("Add", [y, linear(h, `${p}mlp.c_proj.weight`, `${p}mlp.c_proj.bias`, false)]);
    } else if (c.architecture === "opt") {
      const p = `model.decoder.layers.${i}.`;
      const lin = (name: string, z: string) => linear(z, `${p}${name}.weight`, `${p}${name}.bias`, true);
      const a = layerNorm(x, `${p}self_attn_layer_norm`);
      const att = attend(lin("self_attn.q_proj", a), lin("self_attn.k_proj", a), lin("self_attn.v_proj", a));
      const y = g.op("Add", [x, lin("self_attn.out_proj", att)]);
      const m = layerNorm(y, `${p}final_layer_norm`);
      x = g.op("Add", [y, lin("fc2", activate(lin("fc1", m)))]);
    } else {
      const p = `model.layers.${i}.`;
      const lin = (name: string, z: string) =>
        linear(z, `${p}${name}.weight`, has(`${p}${name}.bias`) ? `${p}${name}.bias` : null, true);
      const a = rmsNorm(x, `${p}input_layernorm.weight`);
      const att = attend(lin("self_attn.q_proj", a), lin("self_attn.k_proj", a), lin("self_attn.v_proj", a));
      const y = g.op("Add", [x, lin("self_attn.o_proj", att)]);
      const m = rmsNorm(y, `${p}post_attention_layernorm.weight`);
      const gate = activate(lin("mlp.gate_proj", m));
      x = g.op("Add", [y, lin("mlp.down_proj", g.op("Mul", [gate, lin("mlp.up_proj", m)]))]);
    }
  }
  const final =
    c.architecture === "gpt2"
      ? layerNorm(x, "transformer.ln_f")
      : c.architecture === "opt"
        ? layerNorm(x, "model.decoder.final_layer_norm")
        : rmsNorm(x, "model.norm.weight");
  // Only the predicted rows meet the vocabulary (the [vocab, hidden] head read with transB).
  const picked = g.op("Gather", [final, INPUT.rows], [{ name: "axis", i: 0 }]);
  const logits = linear(picked, c.tiedHead ? embedding : "lm_head.weight", null, true, "rows");
  const logProbs = g.op("LogSoftmax", [logits], [{ name: "axis", i: 1 }]);
  const nll = g.op("Neg", [g.op("GatherElements", [logProbs, INPUT.targets], [{ name: "axis", i: 1 }])]);
  g.op("Reshape", [nll, g.int64s("flat", [-1])], [], OUTPUT.losses);
  g.outputs.push({ name: OUTPUT.losses, type: DataType.FLOAT, dims: ["rows"] });
  if (options.logits) {
    g.op("Identity", [logits], [], OUTPUT.logits);
    g.outputs.push({ name: OUTPUT.logits, type: DataType.FLOAT, dims: ["rows", c.vocabSize] });
  }
  return {
    name: `seedswarm-${c.architecture}`,
    nodes: g.nodes,
    inputs: g.inputs,
    outputs: g.outputs,
    initializers: g.initializers,
    opsets: { "": 17 },
    perturbationInputs,
  };
}

/** Nodes with generated value names, and constants made once per name. */
class Builder {
  readonly nodes: NodeSpec[] = [];
  readonly inputs: ValueSpec[] = [];
  readonly outputs: ValueSpec[] = [];
  readonly initializers: TensorSpec[] = [];
  private readonly constants = new Set<string>();
  private readonly memos = new Map<string, string>();
  private next = 0;

  op(op: string, inputs: readonly string[], attributes: readonly Attribute[] = [], output?: string): string {
    return this.ops(op, inputs, 1, attributes, output)[0];
  }

  ops(op: string, inputs: readonly string[], count: number, attributes: readonly Attribute[] = [], output?: string): string[] {
    const outputs = Array.from({ length: count }, (_, i) => (output !== undefined && count === 1 ? output : `v${this.next}_${i}`));
    this.next++;
    this.nodes.push({ op, inputs, outputs, attributes });
    return outputs;
  }

  initializer(name: string, dims: number[], values: Float32Array): void {
    this.initializers.push({ name, type: DataType.FLOAT, dims, raw: rawBytes(values) });
  }

  /** A value made once per key (a shape built from inputs, shared by every use). */
  memo(key: string, make: () => string): string {
    let v = this.memos.get(key);
    if (v === undefined) {
      v = make();
      this.memos.set(key, v);
    }
    return v;
  }

  /** A float vector of `size` copies of `v`. */
  constant(name: string, size: number, v: number): string {
    if (!this.constants.has(name)) {
      this.constants.add(name);
      this.initializers.push({ name, type: DataType.FLOAT, dims: [size], raw: rawBytes(new Float32Array(size).fill(v)) });
    }
    return name;
  }

  scalar(name: string, v: number): string {
    if (!this.constants.has(name)) {
      this.constants.add(name);
      this.initializers.push({ name, type: DataType.FLOAT, dims: [], raw: rawBytes(Float32Array.of(v)) });
    }
    return name;
  }

  int64s(name: string, v: readonly number[]): string {
    if (!this.constants.has(name)) {
      this.constants.add(name);
      this.initializers.push({ name, type: DataType.INT64, dims: [v.length], raw: rawBytes(BigInt64Array.from(v, BigInt)) });
    }
    return name;
  }
}
