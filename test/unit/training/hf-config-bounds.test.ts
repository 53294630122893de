// Finding 16 (security review): a config.json with huge dimensions is refused with a clear error.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { HF_CONFIG_BOUNDS, HfConfigError, parseHfConfig, transformerParameterCount } from "../../../training/hf/config.js";

const FIXTURES = join(import.meta.dirname, "..", "..", "..", "..", "test", "fixtures", "lm");
const config = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name, "config.json"), "utf8")) as Record<string, unknown>;

/** Elements of every tensor in a safetensors file (its JSON header). */
function safetensorsElements(path: string): number {
  const b = readFileSync(path);
  const header = JSON.parse(b.subarray(8, 8 + Number(b.readBigUInt64LE(0))).toString("utf8")) as Record<string, { shape?: number[] }>;
  return Object.entries(header)
    .filter(([k]) => k !== "__metadata__")
    .reduce((s, [, t]) => s + (t.shape ?? []).reduce((a, d) => a * d, 1), 0);
}

describe("finding 16: HF config.json bounds", () => {
  for (const name of ["llama-tiny", "gpt2-tiny", "opt-tiny"]) {
    it(`${name}: parses, and the parameter count is its checkpoint's`, () => {
      const c = parseHfConfig(config(name));
      assert.equal(transformerParameterCount(c), safetensorsElements(join(FIXTURES, name, "model.safetensors")));
    });
  }

  it("huge dimensions are refused by name; a model over the weight bound names the bytes it would need", () => {
    const llama = config("llama-tiny");
    for (const [key, field] of [["hidden_size", "hidden"], ["num_hidden_layers", "layers"], ["vocab_size", "vocabSize"], ["intermediate_size", "ffn"], ["max_position_embeddings", "maxPositions"]] as const) {
      assert.throws(
        () => parseHfConfig({ ...llama, [key]: 2 ** 40, ...(key === "hidden_size" ? { num_attention_heads: 1, num_key_value_heads: 1 } : {}) }),
        (e: unknown) => e instanceof HfConfigError && e.code === "HF_CONFIG_INVALID" && e.message.includes(`${field} ${2 ** 40} is over the bound ${HF_CONFIG_BOUNDS[field]}`),
        key,
      );
    }
    // Every dimension within its bound, the whole too large: 8,192 x 512 layers.
    const big = { ...llama, hidden_size: 8192, num_attention_heads: 64, num_key_value_heads: 64, head_dim: 128, num_hidden_layers: 512, intermediate_size: 32768 };
    const bytes = 4 * transformerParameterCount({ ...parseHfConfig({ ...big, num_hidden_layers: 1 }), layers: 512 });
    assert.throws(() => parseHfConfig(big), (e: unknown) => e instanceof HfConfigError && e.message.includes(`would need ${bytes} bytes`));
  });
});
