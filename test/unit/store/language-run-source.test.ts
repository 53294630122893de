/**
 * readLanguageRunSource's memory check: a model that does not fit in the memory this machine has
 * available is refused before any weight is read, naming the bytes it needs and those available.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { freemem, tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ModelTooLargeError, readLanguageRunSource, WEIGHT_COPIES } from "../../../node/store/language-run-source.js";
import { LM_FIXTURES } from "../../helpers/lm-fixtures.js";

const work = mkdtempSync(join(tmpdir(), "seedswarm-lm-source-"));
after(() => rmSync(work, { recursive: true, force: true }));

const DATA = `${LM_FIXTURES}tiny-text/text.jsonl`;

describe("readLanguageRunSource: the memory a model needs", () => {
  it("a Llama-2-7B-shaped config (no weight files) is refused with the bytes needed and available", async () => {
    const dir = join(work, "llama-7b");
    const config = {
      model_type: "llama",
      vocab_size: 32000,
      hidden_size: 4096,
      intermediate_size: 11008,
      num_hidden_layers: 32,
      num_attention_heads: 32,
      num_key_value_heads: 32,
      max_position_embeddings: 4096,
      rms_norm_eps: 1e-5,
    };
    mkdirSync(dir);
    writeFileSync(join(dir, "config.json"), JSON.stringify(config));
    // Free memory below 3 x 27 GB on any machine this runs on; stated so the test cannot pass by luck.
    assert.ok(freemem() < WEIGHT_COPIES * 4 * 6.7e9, "this machine has less free memory than the model needs");
    await assert.rejects(readLanguageRunSource(dir, DATA), (e: unknown) => {
      assert.ok(e instanceof ModelTooLargeError, String(e));
      assert.equal(e.code, "LM_TOO_LARGE");
      assert.equal(e.context.params, 6_738_415_616);
      assert.equal(e.context.needed, WEIGHT_COPIES * 4 * 6_738_415_616);
      assert.match(e.message, /6,738,415,616 parameters need 80860987392 bytes \(75\.3 GiB: 3 float32 copies.*\); this machine has \d+ bytes/);
      return true;
    });
  });

  it("a fixture that fits loads; with less available than its copies it is refused before its weights are read", async () => {
    const ok = await readLanguageRunSource(`${LM_FIXTURES}llama-tiny`, DATA);
    assert.ok(ok.weights && ok.weights.length > 0);
    const needed = WEIGHT_COPIES * 4 * ok.weights.length;
    await assert.rejects(readLanguageRunSource(`${LM_FIXTURES}llama-tiny`, DATA, { available: needed - 1 }), (e: unknown) => e instanceof ModelTooLargeError && e.context.needed === needed && e.context.available === needed - 1);
    const fits = await readLanguageRunSource(`${LM_FIXTURES}llama-tiny`, DATA, { available: needed });
    assert.equal(fits.weights?.length, ok.weights.length);
  });
});
