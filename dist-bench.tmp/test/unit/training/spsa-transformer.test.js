/**
 * SPSA with one-byte gradients fine-tunes a transformer through a task object: a tiny random GPT-2
 * learns a periodic token sequence (causal LM), and two replicas stay bit-identical.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localAuthors } from "../../../node/local/local-trainer.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { Spsa } from "../../../training/algorithms/spsa.js";
import { useBackend } from "../../../training/engine.js";
import { parseHfConfig } from "../../../training/hf/config.js";
import { initWeights } from "../../../training/models/model.js";
import { buildTransformer, tokenBatch } from "../../../training/models/transformer.js";
import { meanNextTokenLoss } from "../../../training/next-token-loss.js";
import { Replica } from "../../../training/replica.js";
import { causalLmTask } from "../../../training/tasks/causal-lm.js";
import * as tf from "@tensorflow/tfjs";
import { perturbJs } from "../../../training/algorithms/spsa-update.js";
import { toTensors } from "../../../training/params.js";
import { seedFrom } from "../../../training/rng/seeds.js";
const ITERATIONS = 40;
describe("SPSA on a transformer (task object)", () => {
    it("perturbs tensor by tensor (MeZO's memory point): the backend tensors of the whole-model perturbation, transposed ones included", async () => {
        await useBackend("wasm");
        const model = buildTransformer(parseHfConfig({ model_type: "gpt2", vocab_size: 40, n_positions: 16, n_embd: 16, n_layer: 1, n_head: 2 }));
        assert.ok(model.layout.tensors.some((t) => t.backendTransposed), "a transposed tensor (the embedding) is exercised");
        const spec = parseRunSpec(PRESETS["tiny-spsa"]);
        const spsa = new Spsa(runIdOf(spec), spec, model, causalLmTask(model, [[1, 2, 3]]));
        const w = initWeights(model.layout, 2);
        const seed = seedFrom("test/perturbed-tensors", [1]);
        for (const sign of [1, -1]) {
            const whole = new Float32Array(w.length);
            perturbJs(whole, w, model.layout, seed, Math.fround(spec.algorithm.kind === "spsa" ? spec.algorithm.eps : 0), sign);
            const want = toTensors(model.layout, whole);
            const got = spsa.perturbedTensors(w, seed, sign);
            got.forEach((g, i) => assert.deepEqual(g.dataSync(), want[i].dataSync(), model.layout.tensors[i].name));
            tf.dispose([...want, ...got]);
        }
    });
    it("lowers the next-token loss of a tiny GPT-2 on a periodic sequence; replicas stay identical", async (t) => {
        await useBackend("wasm");
        const model = buildTransformer(parseHfConfig({ model_type: "gpt2", vocab_size: 16, n_positions: 16, n_embd: 16, n_layer: 1, n_head: 2 }));
        const period = [3, 1, 4, 1, 5, 9, 2, 6];
        const sequences = period.map((_, s) => Array.from({ length: 12 }, (_, t) => period[(s + t) % period.length]));
        const base = parseRunSpec(PRESETS["tiny-spsa"]);
        const spec = parseRunSpec({
            ...base,
            iterations: ITERATIONS,
            algorithm: { kind: "spsa", perturbations: 8, batchSize: 8, eps: 1e-3, schedule: { lr: 0.05, warmup: 0, minFactor: 0.5 } },
        });
        const runId = runIdOf(spec);
        const spsa = new Spsa(runId, spec, model, causalLmTask(model, sequences));
        const a = new Replica(runId, model, initWeights(model.layout, 1), 0);
        const b = new Replica(runId, model, initWeights(model.layout, 1), 0);
        const all = tokenBatch(sequences);
        const before = meanNextTokenLoss(model, a.backend.tensors, all).loss;
        const authors = localAuthors(2);
        while (a.iteration < ITERATIONS) {
            const cs = authors.map((author) => ({ author, payload: spsa.contribute(a, author) }));
            a.applyIteration(spsa, cs);
            b.applyIteration(spsa, [...cs].reverse());
        }
        const after = meanNextTokenLoss(model, a.backend.tensors, all).loss;
        t.diagnostic(`next-token loss ${before.toFixed(3)} -> ${after.toFixed(3)} after ${ITERATIONS} iterations x 2 authors x 8 bytes`);
        assert.equal(a.checksum(), b.checksum());
        assert.ok(after < 0.6 * before, `next-token loss ${before} -> ${after}`);
        a.dispose();
        b.dispose();
    });
});
//# sourceMappingURL=spsa-transformer.test.js.map