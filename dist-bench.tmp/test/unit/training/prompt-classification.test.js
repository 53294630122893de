/** MeZO's prompt-based classification on a real (tiny) Llama checkpoint and its tokenizer.json. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { readHfCheckpoint } from "../../../node/store/hf-checkpoint.js";
import { tokenizerFromJson } from "../../../training/data/tokenizer.js";
import { useBackend } from "../../../training/engine.js";
import { tokenBatch } from "../../../training/models/transformer.js";
import { toTensors } from "../../../training/params.js";
import { PromptTaskError, scorePrompts, tokenizePromptTask } from "../../../training/tasks/prompt-classification.js";
import { LM_FIXTURES } from "../../helpers/lm-fixtures.js";
const dir = `${LM_FIXTURES}llama-tiny`;
const tokenizer = tokenizerFromJson(JSON.parse(readFileSync(`${dir}/tokenizer.json`, "utf8")));
describe("prompt-based classification (MeZO)", () => {
    it("refuses label words that are not exactly one token, naming the word", () => {
        assert.throws(() => tokenizePromptTask({ template: "{text} It was", labelWords: [" great", " the"] }, tokenizer), (e) => e instanceof PromptTaskError && /" great" is 4 tokens/.test(e.message));
        assert.throws(() => tokenizePromptTask({ template: "It was", labelWords: [" a", " the"] }, tokenizer), PromptTaskError);
    });
    it("a prompt longer than the model's positions keeps the template's tail and the start of the text", () => {
        const spec = { template: "Review: {text} It was", labelWords: [" the", " a"] };
        const full = tokenizePromptTask(spec, tokenizer);
        const cut = tokenizePromptTask(spec, tokenizer, 16);
        const text = "a terrible, long evening of nothing at all, then more of the same for hours and hours on end";
        const tail = tokenizer.encode(" It was");
        assert.ok(full.prompt(text).length > 16);
        const p = cut.prompt(text);
        assert.equal(p.length, 16);
        assert.deepEqual(p.slice(16 - tail.length), tail);
        assert.deepEqual(p.slice(0, 16 - tail.length), tokenizer.encode(`Review: ${text}`).slice(0, 16 - tail.length));
        assert.deepEqual(cut.prompt("ok"), full.prompt("ok"), "short prompts are untouched");
        assert.throws(() => tokenizePromptTask(spec, tokenizer, tail.length), /positions/);
    });
    it("loss is the cross-entropy over the label words' logits at each prompt's last token, accuracy their argmax", async () => {
        await useBackend("wasm");
        const ck = await readHfCheckpoint(dir);
        const weights = toTensors(ck.model.layout, ck.weights);
        try {
            const task = tokenizePromptTask({ template: "Review: {text} It was", labelWords: [" the", " a", " it"] }, tokenizer);
            assert.deepEqual(task.labelIds, [280, 272, 427]);
            const texts = ["great fun", "a terrible, long evening of nothing at all", "ok", "def forward(self, x): return x"];
            const labels = [0, 1, 2, 1];
            const prompts = texts.map((t) => task.prompt(t));
            assert.ok(new Set(prompts.map((p) => p.length)).size > 1, "prompts of different lengths (padding exercised)");
            const got = scorePrompts(ck.model, weights, prompts, labels, task.labelIds);
            // Reference: each prompt alone, full logits at its last position, cross-entropy in float64.
            let loss = 0;
            let hits = 0;
            prompts.forEach((p, i) => {
                const V = ck.config.vocabSize;
                const all = tf.tidy(() => ck.model.forward(weights, tokenBatch([p]))).dataSync();
                const z = task.labelIds.map((id) => all[(p.length - 1) * V + id]);
                const m = Math.max(...z);
                const lse = m + Math.log(z.reduce((s, v) => s + Math.exp(v - m), 0));
                loss += (lse - z[labels[i]]) / prompts.length;
                if (z.indexOf(m) === labels[i])
                    hits++;
            });
            assert.ok(Math.abs(got.loss - loss) <= 1e-5 * loss, `${got.loss} vs ${loss}`);
            assert.equal(got.accuracy, hits / prompts.length);
            assert.equal(got.examples, 4);
        }
        finally {
            tf.dispose(weights);
        }
    });
});
//# sourceMappingURL=prompt-classification.test.js.map