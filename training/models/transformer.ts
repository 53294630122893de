/**
 * Decoder-only transformers (model kind `transformer`): GPT-2, OPT and Llama-style (SmolLM,
 * Qwen2-like) as Hugging Face transformers computes them, in float32 tfjs ops. The parameter
 * layout is the canonical one (training/params.ts) with the Hugging Face tensor names and shapes,
 * in a fixed order derived from the config (never from a file's order), so an export writes the
 * same names back and two files holding the same weights give the same canonical bytes.
 *
 * Knows no I/O: weights arrive as backend tensors in layout order, tokens as a TokenBatch.
 */
import * as tf from "@tensorflow/tfjs-core";
import { OPT_POSITION_OFFSET, type TransformerConfig } from "../hf/config.js";
import { layoutOf, type LayoutEntry, type ParamLayout } from "../params.js";

/**
 * Token ids of `size` sequences of `length` positions, row-major, with the attention mask
 * (1 = a token, 0 = padding). Padding may sit on either side: positions count real tokens only,
 * so a padded sequence computes what it computes alone.
 */
export interface TokenBatch {
  readonly size: number;
  readonly length: number;
  readonly ids: Int32Array;
  readonly mask: Uint8Array;
}

export interface LanguageModel {
  readonly config: TransformerConfig;
  readonly layout: ParamLayout;
  /** Final hidden states [size * length, hidden] (after the final norm). */
  hidden(weights: readonly tf.Tensor[], batch: TokenBatch): tf.Tensor2D;
  /** Vocabulary logits [rows, vocab] of hidden-state rows. */
  head(weights: readonly tf.Tensor[], hidden: tf.Tensor2D): tf.Tensor2D;
  /** Logits [size, length, vocab]. */
  forward(weights: readonly tf.Tensor[], batch: TokenBatch): tf.Tensor3D;
}

/** Added to attention scores of masked keys: exp underflows to exactly 0, unlike -Infinity it never makes NaN. */
const MASKED = -1e9;

/** A padded batch of token sequences (right padding), with its mask. */
export function tokenBatch(sequences: readonly (readonly number[])[], length?: number, padId = 0): TokenBatch {
  const T = length ?? Math.max(1, ...sequences.map((s) => s.length));
  const ids = new Int32Array(sequences.length * T).fill(padId);
  const mask = new Uint8Array(sequences.length * T);
  sequences.forEach((s, b) => {
    if (s.length > T) throw new RangeError(`sequence ${b} has ${s.length} tokens, the batch holds ${T}`);
    ids.set(s, b * T);
    mask.fill(1, b * T, b * T + s.length);
  });
  return { size: sequences.length, length: T, ids, mask };
}

/** Position of each token: the number of real tokens before it (0 for padding). */
export function positionsOf(batch: TokenBatch): Int32Array {
  const pos = new Int32Array(batch.size * batch.length);
  for (let b = 0; b < batch.size; b++) {
    let n = 0;
    for (let t = 0; t < batch.length; t++) {
      const i = b * batch.length + t;
      pos[i] = batch.mask[i] ? n++ : 0;
    }
  }
  return pos;
}

/** Additive attention bias [size, 1, length, length], row-major: causal and padded keys masked. */
export function attentionBiasValues(batch: TokenBatch): Float32Array {
  const T = batch.length;
  const bias = new Float32Array(batch.size * T * T);
  for (let b = 0; b < batch.size; b++)
    for (let q = 0; q < T; q++)
      for (let k = 0; k < T; k++) if (k > q || !batch.mask[b * T + k]) bias[(b * T + q) * T + k] = MASKED;
  return bias;
}

function attentionBias(batch: TokenBatch): tf.Tensor4D {
  return tf.tensor4d(attentionBiasValues(batch), [batch.size, 1, batch.length, batch.length]);
}

/**
 * RoPE cos and sin [size, 1, length, headDim], row-major, as transformers computes them in
 * float32: inv_freq_i = 1 / theta^(2i / d), angle = position * inv_freq, halves repeated.
 */
export function ropeValues(positions: Int32Array, headDim: number, theta: number): [Float32Array, Float32Array] {
  const f = Math.fround;
  const half = headDim / 2;
  const inv = Array.from({ length: half }, (_, i) => f(1 / f(theta ** f((2 * i) / headDim))));
  const cos = new Float32Array(positions.length * headDim);
  const sin = new Float32Array(positions.length * headDim);
  positions.forEach((p, r) => {
    for (let i = 0; i < half; i++) {
      const a = f(p * inv[i]);
      cos[r * headDim + i] = cos[r * headDim + i + half] = Math.cos(a);
      sin[r * headDim + i] = sin[r * headDim + i + half] = Math.sin(a);
    }
  });
  return [cos, sin];
}

function ropeTables(positions: Int32Array, batch: TokenBatch, headDim: number, theta: number): [tf.Tensor4D, tf.Tensor4D] {
  const [cos, sin] = ropeValues(positions, headDim, theta);
  const shape: [number, number, number, number] = [batch.size, 1, batch.length, headDim];
  return [tf.tensor4d(cos, shape), tf.tensor4d(sin, shape)];
}

/** x [N, in] times a backend weight [in, out] (nn.Linear's [out, in] is transposed on upload), plus a bias. */
function linear(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor | null): tf.Tensor {
  const y = tf.matMul(x as tf.Tensor2D, w as tf.Tensor2D);
  return b === null ? y : tf.add(y, b);
}

function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor {
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, eps))), g), b);
}

function rmsNorm(x: tf.Tensor, g: tf.Tensor, eps: number): tf.Tensor {
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps))), g);
}

/** GPT-2's tanh approximation of GELU ("gelu_new"). */
function geluTanh(x: tf.Tensor): tf.Tensor {
  // x * x * x rather than pow(x, 3): tfjs-wasm's Pow kernel is several times slower than two Multiplies.
  const inner = tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), Math.sqrt(2 / Math.PI));
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
}

function activate(x: tf.Tensor, kind: TransformerConfig["activation"]): tf.Tensor {
  switch (kind) {
    case "gelu_new":
      return geluTanh(x);
    case "gelu":
      return tf.mul(tf.mul(x, 0.5), tf.add(tf.erf(tf.div(x, Math.SQRT2)), 1));
    case "relu":
      return tf.relu(x);
    case "silu":
      return tf.mul(x, tf.sigmoid(x));
  }
}

/** rotate_half of transformers: [x1, x2] -> [-x2, x1] over the last axis. */
function rotateHalf(x: tf.Tensor): tf.Tensor {
  const half = (x.shape[3] as number) / 2;
  const [x1, x2] = tf.split(x, [half, half], 3);
  return tf.concat([tf.neg(x2), x1], 3);
}

/** The positions of a batch, after checking its ids against the vocabulary and its lengths against the position table. */
export function checkedPositions(c: TransformerConfig, batch: TokenBatch): Int32Array {
  for (const id of batch.ids) {
    if (!(id >= 0 && id < c.vocabSize)) throw new RangeError(`token id ${id} is outside the vocabulary (${c.vocabSize})`);
  }
  const positions = positionsOf(batch);
  const maxPos = positions.reduce((a, b) => Math.max(a, b), 0);
  if (c.architecture !== "llama" && maxPos >= c.maxPositions) {
    throw new RangeError(`a sequence of ${maxPos + 1} tokens is longer than the model's ${c.maxPositions} positions`);
  }
  return positions;
}

/** The layout entries of a config, in the fixed canonical order. */
function entriesOf(c: TransformerConfig): LayoutEntry[] {
  const d = c.hidden;
  const out: LayoutEntry[] = [];
  /** `transposed`: stored [out, in] (or an embedding [vocab, hidden]), held [in, out] on the backend. */
  const matrix = (name: string, shape: [number, number], fanIn: number, transposed = false) =>
    out.push({ name, shape, fanIn, init: "he", ...(transposed ? { backendTransposed: true } : {}) });
  /** A token embedding [vocab, hidden]: held [hidden, vocab] on the backend, where the (tied) head multiplies by it. */
  const embedding = (name: string) => matrix(name, [c.vocabSize, d], d, true);
  const vector = (name: string, size: number, init: "zeros" | "ones") => out.push({ name, shape: [size], fanIn: size, init });
  /** nn.Linear: weight [out, in], optional bias [out]. */
  const lin = (name: string, inputs: number, outputs: number, bias: boolean) => {
    matrix(`${name}.weight`, [outputs, inputs], inputs, true);
    if (bias) vector(`${name}.bias`, outputs, "zeros");
  };
  const ln = (name: string) => {
    vector(`${name}.weight`, d, "ones");
    vector(`${name}.bias`, d, "zeros");
  };
  if (c.architecture === "gpt2") {
    embedding("transformer.wte.weight");
    matrix("transformer.wpe.weight", [c.maxPositions, d], d);
    for (let i = 0; i < c.layers; i++) {
      const p = `transformer.h.${i}.`;
      ln(`${p}ln_1`);
      // Conv1D: weight [in, out].
      matrix(`${p}attn.c_attn.weight`, [d, 3 * d], d);
      vector(`${p}attn.c_attn.bias`, 3 * d, "zeros");
      matrix(`${p}attn.c_proj.weight`, [d, d], d);
      vector(`${p}attn.c_proj.bias`, d, "zeros");
      ln(`${p}ln_2`);
      matrix(`${p}mlp.c_fc.weight`, [d, c.ffn], d);
      vector(`${p}mlp.c_fc.bias`, c.ffn, "zeros");
      matrix(`${p}mlp.c_proj.weight`, [c.ffn, d], c.ffn);
      vector(`${p}mlp.c_proj.bias`, d, "zeros");
    }
    ln("transformer.ln_f");
  } else if (c.architecture === "opt") {
    embedding("model.decoder.embed_tokens.weight");
    matrix("model.decoder.embed_positions.weight", [c.maxPositions + OPT_POSITION_OFFSET, d], d);
    for (let i = 0; i < c.layers; i++) {
      const p = `model.decoder.layers.${i}.`;
      ln(`${p}self_attn_layer_norm`);
      for (const proj of ["q_proj", "k_proj", "v_proj", "out_proj"]) lin(`${p}self_attn.${proj}`, d, d, true);
      ln(`${p}final_layer_norm`);
      lin(`${p}fc1`, d, c.ffn, true);
      lin(`${p}fc2`, c.ffn, d, true);
    }
    ln("model.decoder.final_layer_norm");
  } else {
    const qd = c.heads * c.headDim;
    const kvd = c.kvHeads * c.headDim;
    embedding("model.embed_tokens.weight");
    for (let i = 0; i < c.layers; i++) {
      const p = `model.layers.${i}.`;
      vector(`${p}input_layernorm.weight`, d, "ones");
      lin(`${p}self_attn.q_proj`, d, qd, c.qkvBias);
      lin(`${p}self_attn.k_proj`, d, kvd, c.qkvBias);
      lin(`${p}self_attn.v_proj`, d, kvd, c.qkvBias);
      lin(`${p}self_attn.o_proj`, qd, d, c.outBias);
      vector(`${p}post_attention_layernorm.weight`, d, "ones");
      lin(`${p}mlp.gate_proj`, d, c.ffn, c.mlpBias);
      lin(`${p}mlp.up_proj`, d, c.ffn, c.mlpBias);
      lin(`${p}mlp.down_proj`, c.ffn, d, c.mlpBias);
    }
    vector("model.norm.weight", d, "ones");
  }
  if (!c.tiedHead) embedding("lm_head.weight");
  return out;
}

/** The name of the token embedding, which a tied head reuses. */
export function embeddingName(c: TransformerConfig): string {
  return c.architecture === "gpt2"
    ? "transformer.wte.weight"
    : c.architecture === "opt"
      ? "model.decoder.embed_tokens.weight"
      : "model.embed_tokens.weight";
}

/** Builds the model a configuration describes. */
export function buildTransformer(config: TransformerConfig): LanguageModel {
  const layout = layoutOf(entriesOf(config));
  const index = new Map(layout.tensors.map((t, i) => [t.name, i]));
  const c = config;
  const headName = c.tiedHead ? embeddingName(c) : "lm_head.weight";

  const hidden = (weights: readonly tf.Tensor[], batch: TokenBatch): tf.Tensor2D => {
    if (weights.length !== layout.tensors.length) {
      throw new RangeError(`${weights.length} weight tensors, the ${c.architecture} layout has ${layout.tensors.length}`);
    }
    const w = (name: string): tf.Tensor => weights[index.get(name) as number];
    const wOpt = (name: string): tf.Tensor | null => (index.has(name) ? w(name) : null);
    const B = batch.size;
    const T = batch.length;
    const N = B * T;
    const positions = checkedPositions(c, batch);
    const bias = attentionBias(batch);
    const [cos, sin] = c.architecture === "llama" ? ropeTables(positions, batch, c.headDim, c.ropeTheta) : [null, null];

    /** [N, heads * headDim] -> [B, heads, T, headDim] */
    const split = (x: tf.Tensor, heads: number) => tf.transpose(tf.reshape(x, [B, T, heads, c.headDim]), [0, 2, 1, 3]);
    const rope = (x: tf.Tensor) => (cos === null || sin === null ? x : tf.add(tf.mul(x, cos), tf.mul(rotateHalf(x), sin)));
    const attend = (q: tf.Tensor, k: tf.Tensor, v: tf.Tensor): tf.Tensor => {
      const H = c.heads;
      const rep = H / c.kvHeads;
      const qh = tf.reshape(rope(split(q, H)), [B * H, T, c.headDim]);
      /** Grouped-query attention: kv head j serves query heads j*rep .. j*rep+rep-1 (transformers' repeat_kv). */
      const expand = (x: tf.Tensor) =>
        rep === 1
          ? tf.reshape(x, [B * H, T, c.headDim])
          : tf.reshape(tf.tile(tf.expandDims(x, 2), [1, 1, rep, 1, 1]), [B * H, T, c.headDim]);
      const kh = expand(rope(split(k, c.kvHeads)));
      const vh = expand(split(v, c.kvHeads));
      const scores = tf.mul(tf.matMul(qh as tf.Tensor3D, kh as tf.Tensor3D, false, true), 1 / Math.sqrt(c.headDim));
      const probs = tf.softmax(tf.add(tf.reshape(scores, [B, H, T, T]), bias));
      const out = tf.matMul(tf.reshape(probs, [B * H, T, T]) as tf.Tensor3D, vh as tf.Tensor3D);
      return tf.reshape(tf.transpose(tf.reshape(out, [B, H, T, c.headDim]), [0, 2, 1, 3]), [N, H * c.headDim]);
    };

    const block = (x: tf.Tensor, i: number): tf.Tensor => {
      if (c.architecture === "gpt2") {
        const p = `transformer.h.${i}.`;
        const a = layerNorm(x, w(`${p}ln_1.weight`), w(`${p}ln_1.bias`), c.normEps);
        const qkv = linear(a, w(`${p}attn.c_attn.weight`), w(`${p}attn.c_attn.bias`));
        const [q, k, v] = tf.split(qkv, 3, 1);
        const y = tf.add(x, linear(attend(q, k, v), w(`${p}attn.c_proj.weight`), w(`${p}attn.c_proj.bias`)));
        const m = layerNorm(y, w(`${p}ln_2.weight`), w(`${p}ln_2.bias`), c.normEps);
        const h = activate(linear(m, w(`${p}mlp.c_fc.weight`), w(`${p}mlp.c_fc.bias`)), c.activation);
        return tf.add(y, linear(h, w(`${p}mlp.c_proj.weight`), w(`${p}mlp.c_proj.bias`)));
      }
      if (c.architecture === "opt") {
        const p = `model.decoder.layers.${i}.`;
        const lin = (name: string, x2: tf.Tensor) => linear(x2, w(`${p}${name}.weight`), w(`${p}${name}.bias`));
        const a = layerNorm(x, w(`${p}self_attn_layer_norm.weight`), w(`${p}self_attn_layer_norm.bias`), c.normEps);
        const att = attend(lin("self_attn.q_proj", a), lin("self_attn.k_proj", a), lin("self_attn.v_proj", a));
        const y = tf.add(x, lin("self_attn.out_proj", att));
        const m = layerNorm(y, w(`${p}final_layer_norm.weight`), w(`${p}final_layer_norm.bias`), c.normEps);
        return tf.add(y, lin("fc2", activate(lin("fc1", m), c.activation)));
      }
      const p = `model.layers.${i}.`;
      const lin = (name: string, x2: tf.Tensor) => linear(x2, w(`${p}${name}.weight`), wOpt(`${p}${name}.bias`));
      const a = rmsNorm(x, w(`${p}input_layernorm.weight`), c.normEps);
      const att = attend(lin("self_attn.q_proj", a), lin("self_attn.k_proj", a), lin("self_attn.v_proj", a));
      const y = tf.add(x, lin("self_attn.o_proj", att));
      const m = rmsNorm(y, w(`${p}post_attention_layernorm.weight`), c.normEps);
      return tf.add(y, lin("mlp.down_proj", tf.mul(activate(lin("mlp.gate_proj", m), "silu"), lin("mlp.up_proj", m))));
    };

    let x = tf.tidy(() => {
      const ids = tf.tensor1d(batch.ids, "int32");
      // The embedding is [hidden, vocab] on the backend: gather columns.
      const tok = tf.transpose(tf.gather(w(embeddingName(c)), ids, 1));
      if (c.architecture === "llama") return tok;
      const offset = c.architecture === "opt" ? OPT_POSITION_OFFSET : 0;
      const pos = tf.tensor1d(positions.map((p) => p + offset), "int32");
      const table = w(c.architecture === "gpt2" ? "transformer.wpe.weight" : "model.decoder.embed_positions.weight");
      return tf.add(tok, tf.gather(table, pos));
    });
    // One tidy per block: a forward holds one block's intermediates at a time, not every layer's.
    for (let i = 0; i < c.layers; i++) {
      const prev = x;
      x = tf.tidy(() => block(prev, i));
      prev.dispose();
    }
    const out = tf.tidy(() => {
      if (c.architecture === "gpt2") return layerNorm(x, w("transformer.ln_f.weight"), w("transformer.ln_f.bias"), c.normEps);
      if (c.architecture === "opt")
        return layerNorm(x, w("model.decoder.final_layer_norm.weight"), w("model.decoder.final_layer_norm.bias"), c.normEps);
      return rmsNorm(x, w("model.norm.weight"), c.normEps);
    });
    tf.dispose([x, bias, ...(cos === null ? [] : [cos]), ...(sin === null ? [] : [sin])]);
    return out as tf.Tensor2D;
  };

  const head = (weights: readonly tf.Tensor[], h: tf.Tensor2D): tf.Tensor2D =>
    tf.matMul(h, weights[index.get(headName) as number] as tf.Tensor2D);

  return {
    config,
    layout,
    hidden,
    head,
    forward(weights, batch) {
      return tf.tidy(() => tf.reshape(head(weights, hidden(weights, batch)), [batch.size, batch.length, c.vocabSize]));
    },
  };
}
