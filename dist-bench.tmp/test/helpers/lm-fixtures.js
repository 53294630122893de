/**
 * The language-model fixtures (test/fixtures/lm: tiny checkpoints and the outputs transformers
 * 5.17 computed for them; see its README) and the comparison with them that the tests and the
 * `lm` benchmark share. Needs an active tf backend.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs";
import { tokenBatch } from "../../training/models/transformer.js";
import { nextTokenLosses } from "../../training/next-token-loss.js";
import { toTensors } from "../../training/params.js";
/** The fixtures directory, with a trailing slash, from the compiled tests in dist/test/unit. */
export const LM_FIXTURES = fileURLToPath(new URL("../../../test/fixtures/lm/", import.meta.url));
export const LM_FIXTURE_MODELS = ["gpt2-tiny", "opt-tiny", "llama-tiny"];
export function referenceCases(model) {
    return JSON.parse(readFileSync(`${LM_FIXTURES}${model}/reference.json`, "utf8")).cases;
}
function lastLogits(model, name) {
    const b = readFileSync(`${LM_FIXTURES}${model}/${name}.last_logits.f32`);
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
/** Per-sequence next-token losses and logits [b][t][v] of a batch. */
export function lossesAndLogits(ck, weights, batch) {
    const losses = nextTokenLosses(ck.model, weights, batch);
    const logits = tf.tidy(() => ck.model.forward(weights, batch)).dataSync();
    return { losses, logits };
}
/** A fixture checkpoint's outputs against transformers' for every reference case. */
export function referenceErrors(name, ck) {
    const weights = toTensors(ck.model.layout, ck.weights);
    const V = ck.config.vocabSize;
    let logitErr = 0;
    let lossErr = 0;
    let lengthsMatch = true;
    try {
        for (const c of referenceCases(name)) {
            const T = c.input_ids[0].length;
            const { losses, logits } = lossesAndLogits(ck, weights, tokenBatch(c.input_ids));
            const last = lastLogits(name, c.name);
            c.input_ids.forEach((_, b) => {
                for (let t = 0; t < T; t++) {
                    c.probe_ids.forEach((id, j) => {
                        logitErr = Math.max(logitErr, Math.abs(logits[(b * T + t) * V + id] - c.probe_logits[b][t][j]));
                    });
                }
                for (let v = 0; v < V; v++)
                    logitErr = Math.max(logitErr, Math.abs(logits[(b * T + T - 1) * V + v] - last[b * V + v]));
                lengthsMatch &&= losses[b].length === c.next_token_nll[b].length;
                losses[b].forEach((l, t) => {
                    const want = c.next_token_nll[b][t];
                    lossErr = Math.max(lossErr, Math.abs(l - want) / Math.abs(want));
                });
            });
        }
    }
    finally {
        tf.dispose(weights);
    }
    return { logitErr, lossErr, lengthsMatch };
}
//# sourceMappingURL=lm-fixtures.js.map