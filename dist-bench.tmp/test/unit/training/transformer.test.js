/**
 * The transformer forward pass against Hugging Face transformers' own outputs (test/fixtures/lm:
 * three random tiny checkpoints and the reference logits and losses transformers 5.17 computed),
 * on the cpu and wasm backends; and padding: a padded batch computes what each sequence alone does.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { readHfCheckpoint } from "../../../node/store/hf-checkpoint.js";
import { useBackend } from "../../../training/engine.js";
import { tokenBatch } from "../../../training/models/transformer.js";
import { toTensors } from "../../../training/params.js";
import { LM_FIXTURE_MODELS, LM_FIXTURES, lossesAndLogits, referenceCases, referenceErrors } from "../../helpers/lm-fixtures.js";
const relErr = (got, want) => Math.abs(got - want) / Math.max(Math.abs(want), 1e-12);
for (const backend of ["cpu", "wasm"]) {
    describe(`transformer forward = transformers 5.17 (${backend})`, () => {
        for (const name of LM_FIXTURE_MODELS) {
            it(`${name}: probe and last logits within 1e-4, next-token losses within 1e-5 relative`, async (t) => {
                await useBackend(backend);
                const { logitErr, lossErr, lengthsMatch } = referenceErrors(name, await readHfCheckpoint(`${LM_FIXTURES}${name}`));
                t.diagnostic(`${name} ${backend}: max |logit err| ${logitErr.toExponential(2)}, max rel loss err ${lossErr.toExponential(2)}`);
                assert.ok(lengthsMatch, "as many losses per sequence as the reference");
                assert.ok(logitErr <= 1e-4, `max logit error ${logitErr}`);
                assert.ok(lossErr <= 1e-5, `max relative loss error ${lossErr}`);
            });
            it(`${name}: a padded batch (left and right padding) gives each sequence's results alone`, async () => {
                await useBackend(backend);
                const ck = await readHfCheckpoint(`${LM_FIXTURES}${name}`);
                const weights = toTensors(ck.model.layout, ck.weights);
                const V = ck.config.vocabSize;
                try {
                    const ids = referenceCases(name)[0].input_ids;
                    const seqs = [ids[0], ids[1].slice(0, 11), ids[2].slice(0, 4)];
                    const alone = seqs.map((s) => lossesAndLogits(ck, weights, tokenBatch([s])));
                    const right = lossesAndLogits(ck, weights, tokenBatch(seqs, 16, 7));
                    // Left padding: the same sequences aligned to the end, pads first.
                    const left = tokenBatch(seqs.map((s) => [...new Array(16 - s.length).fill(5), ...s]));
                    seqs.forEach((s, b) => left.mask.fill(0, b * 16, b * 16 + 16 - s.length));
                    const leftOut = lossesAndLogits(ck, weights, left);
                    seqs.forEach((s, b) => {
                        for (const [padded, start] of [
                            [right, 0],
                            [leftOut, 16 - s.length],
                        ]) {
                            assert.equal(padded.losses[b].length, s.length - 1);
                            padded.losses[b].forEach((l, tt) => {
                                assert.ok(relErr(l, alone[b].losses[0][tt]) <= 1e-5, `sequence ${b} position ${tt}: ${l} vs ${alone[b].losses[0][tt]}`);
                            });
                            for (let tt = 0; tt < s.length; tt++) {
                                for (let v = 0; v < V; v++) {
                                    const got = padded.logits[(b * 16 + start + tt) * V + v];
                                    const want = alone[b].logits[tt * V + v];
                                    assert.ok(Math.abs(got - want) <= 1e-5, `sequence ${b} position ${tt} logit ${v}: ${got} vs ${want}`);
                                }
                            }
                        }
                    });
                }
                finally {
                    tf.dispose(weights);
                }
            });
        }
    });
}
//# sourceMappingURL=transformer.test.js.map