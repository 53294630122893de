/**
 * Backprop for transformers (pretraining the demo, the baseline beside SPSA): the wasm gradient
 * overrides give the textbook gradients, the weights come back in canonical order, and steps
 * lower the loss of both tasks.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { useBackend } from "../../../training/engine.js";
import { parseHfConfig } from "../../../training/hf/config.js";
import { LanguageBackprop, pretrainInit } from "../../../training/lm-backprop.js";
import { buildTransformer, tokenBatch } from "../../../training/models/transformer.js";
import { meanNextTokenLoss } from "../../../training/next-token-loss.js";
import { checksum } from "../../../training/params.js";
import { LM_FIXTURES } from "../../helpers/lm-fixtures.js";
const model = buildTransformer(parseHfConfig(JSON.parse(readFileSync(`${LM_FIXTURES}gpt2-tiny/config.json`, "utf8"))));
const seqs = Array.from({ length: 4 }, (_, b) => Array.from({ length: 12 + b }, (_, i) => (b * 37 + i * 11) % 200));
/** Plain-JS matrix product of row-major [n, k] x [k, m]. */
function matmul(a, b) {
    return a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
}
const T = (a) => a[0].map((_, j) => a.map((row) => row[j]));
const close = (a, b) => a.forEach((row, i) => row.forEach((v, j) => assert.ok(Math.abs(v - b[i][j]) < 1e-4, `[${i}][${j}] ${v} vs ${b[i][j]}`)));
describe("LanguageBackprop (training/lm-backprop.ts), wasm", () => {
    before(async () => {
        await useBackend("wasm");
    });
    it("weights() returns the canonical weights it was given, and pretrainInit is seeded and GPT-2-scaled", () => {
        const w = pretrainInit(model, 3);
        assert.equal(checksum(pretrainInit(model, 3)), checksum(w));
        assert.notEqual(checksum(pretrainInit(model, 4)), checksum(w));
        const emb = model.layout.tensors[0];
        let sq = 0;
        for (let i = emb.offset; i < emb.offset + emb.size; i++)
            sq += w[i] * w[i];
        assert.ok(Math.abs(Math.sqrt(sq / emb.size) - 0.02) < 0.002, "std 0.02");
        const bp = new LanguageBackprop(model, w);
        assert.equal(checksum(bp.weights()), checksum(w));
        bp.dispose();
    });
    it("the registered gradients: a gather's sums duplicates, a matMul's are the textbook products for every transpose flag", () => {
        new LanguageBackprop(model, pretrainInit(model, 1)).dispose(); // registers them
        const x = tf.tensor2d([[1, 2, 3], [4, 5, 6]]);
        const g1 = tf.grad((v) => tf.sum(tf.mul(tf.gather(v, [2, 0, 2], 1), tf.tensor2d([[1, 2, 3], [4, 5, 6]]))))(x);
        assert.deepEqual(g1.arraySync(), [[2, 0, 4], [5, 0, 10]]);
        const g0 = tf.grad((v) => tf.sum(tf.mul(tf.gather(v, [1, 1], 0), tf.tensor2d([[1, 1, 1], [2, 2, 2]]))))(x);
        assert.deepEqual(g0.arraySync(), [[0, 0, 0], [3, 3, 3]]);
        const a = [[1, -2, 0.5], [3, 1, -1]];
        const b = [[2, 1], [0, -1], [1, 3]];
        for (const [ta, tb] of [[false, false], [false, true], [true, false], [true, true]]) {
            const A = ta ? T(a) : a;
            const B = tb ? T(b) : b;
            const w = [[1, 2], [-1, 0.5]];
            const [dA, dB] = tf.grads((p, q) => tf.sum(tf.mul(tf.matMul(p, q, ta, tb), tf.tensor2d(w))))([
                tf.tensor2d(A),
                tf.tensor2d(B),
            ]);
            // C = a b with a = op(A), b = op(B): dC/da = W b^T, dC/db = a^T W, transposed back where A or B was.
            const da = matmul(w, T(b));
            const db = matmul(T(a), w);
            close(dA.arraySync(), ta ? T(da) : da);
            close(dB.arraySync(), tb ? T(db) : db);
        }
    });
    it("steps lower the next-token loss of a batch, and a prompt batch's loss", () => {
        const bp = new LanguageBackprop(model, pretrainInit(model, 1), { lr: 3e-3, clipNorm: 1 });
        const before = meanNextTokenLoss(model, bp.tensors, tokenBatch(seqs)).loss;
        for (let i = 0; i < 30; i++)
            bp.stepCausal(seqs);
        const after = meanNextTokenLoss(model, bp.tensors, tokenBatch(seqs)).loss;
        assert.ok(after < before - 1, `next-token loss ${before} -> ${after}`);
        const first = bp.stepPrompts(seqs, [0, 1, 0, 1], [5, 9]);
        let last = first;
        for (let i = 0; i < 30; i++)
            last = bp.stepPrompts(seqs, [0, 1, 0, 1], [5, 9]);
        assert.ok(last < first * 0.5, `prompt loss ${first} -> ${last}`);
        bp.dispose();
    });
});
//# sourceMappingURL=lm-backprop.test.js.map