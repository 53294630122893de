/**
 * One transformer block of each architecture as the steps of the device pass (lm-forward.ts
 * records them): which norm, which products with which epilogue, into which buffer. The names are
 * transformer.ts's; buffers: x the residual stream, y the norm's output, qkv the attention inputs,
 * att its output, h the MLP's inner activations.
 */
import type { TransformerConfig } from "../hf/config.js";
import type { Activation } from "./lm-matmul-wgsl.js";

export interface LinearOptions {
  readonly act?: Activation;
  /** Add into the output (the residual stream) instead of writing it. */
  readonly accumulate?: boolean;
  /** First output column and output row width (q, k and v share one buffer). */
  readonly cOff?: number;
  readonly ldc?: number;
  /** The norm before it already left the input's low-rank projection. */
  readonly projected?: boolean;
}

export interface BlockOps {
  /** The norm `prefix` of x into y, projecting y for the product of weight `next`. */
  layerNorm(prefix: string, next: string): void;
  linear(kind: string, weight: string, bias: string | null, input: "y" | "att" | "h", output: "x" | "qkv" | "h", o: LinearOptions): void;
  /** q, k and v of y into qkv (`${prefix}${name}.weight` each). */
  qkv(prefix: string, names: readonly string[], bias: boolean): void;
  attention(): void;
  rope(): void;
}

export function encodeBlock(c: TransformerConfig, i: number, ops: BlockOps): void {
  const { layerNorm, linear } = ops;
  if (c.architecture === "gpt2") {
    const p = `transformer.h.${i}.`;
    layerNorm(`${p}ln_1`, `${p}attn.c_attn.weight`);
    linear("qkv", `${p}attn.c_attn.weight`, `${p}attn.c_attn.bias`, "y", "qkv", { projected: true });
    ops.attention();
    linear("proj", `${p}attn.c_proj.weight`, `${p}attn.c_proj.bias`, "att", "x", { accumulate: true });
    layerNorm(`${p}ln_2`, `${p}mlp.c_fc.weight`);
    linear("fc", `${p}mlp.c_fc.weight`, `${p}mlp.c_fc.bias`, "y", "h", { projected: true, act: "gelu" });
    linear("down", `${p}mlp.c_proj.weight`, `${p}mlp.c_proj.bias`, "h", "x", { accumulate: true });
  } else if (c.architecture === "opt") {
    const p = `model.decoder.layers.${i}.`;
    layerNorm(`${p}self_attn_layer_norm`, `${p}self_attn.q_proj.weight`);
    ops.qkv(`${p}self_attn.`, ["q_proj", "k_proj", "v_proj"], true);
    ops.attention();
    linear("proj", `${p}self_attn.out_proj.weight`, `${p}self_attn.out_proj.bias`, "att", "x", { accumulate: true });
    layerNorm(`${p}final_layer_norm`, `${p}fc1.weight`);
    linear("fc", `${p}fc1.weight`, `${p}fc1.bias`, "y", "h", { projected: true, act: "relu" });
    linear("down", `${p}fc2.weight`, `${p}fc2.bias`, "h", "x", { accumulate: true });
  } else {
    const p = `model.layers.${i}.`;
    layerNorm(`${p}input_layernorm`, `${p}self_attn.q_proj.weight`);
    ops.qkv(`${p}self_attn.`, ["q_proj", "k_proj", "v_proj"], c.qkvBias);
    ops.rope();
    ops.attention();
    linear("proj", `${p}self_attn.o_proj.weight`, c.outBias ? `${p}self_attn.o_proj.bias` : null, "att", "x", { accumulate: true });
    layerNorm(`${p}post_attention_layernorm`, `${p}mlp.gate_proj.weight`);
    const bias = (n: string) => (c.mlpBias ? `${p}mlp.${n}.bias` : null);
    // SwiGLU: the gate product into h, then the up product's epilogue makes h = silu(h) * up.
    linear("fc", `${p}mlp.gate_proj.weight`, bias("gate_proj"), "y", "h", { projected: true });
    linear("up", `${p}mlp.up_proj.weight`, bias("up_proj"), "y", "h", { act: "swiglu" });
    linear("down", `${p}mlp.down_proj.weight`, bias("down_proj"), "h", "x", { accumulate: true });
  }
}
