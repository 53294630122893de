import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { BackpropTrainer } from "../../../training/backprop.js";
import { sampleBatch } from "../../../training/data/dataset.js";
import { useBackend } from "../../../training/engine.js";
import { evaluate } from "../../../training/evaluate.js";
import { contributionSeed } from "../../../training/rng/seeds.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
import { floatWeights } from "../../../training/params.js";
describe("backprop baseline", () => {
    for (const optimizer of ["sgd", "adam"]) {
        it(`${optimizer} lowers the loss on synthetic data and leaves the replica untouched`, async () => {
            await useBackend("wasm");
            const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
            const replica = initialReplica(run);
            const before = replica.checksum();
            const bp = new BackpropTrainer(run.model, floatWeights(replica.weights), {
                optimizer,
                lr: optimizer === "sgd" ? 0.5 : 0.02,
            });
            const start = evaluate(run.model, bp.tensors, run.dataset.train);
            const author = { id: "bp", joinedAt: 0 };
            for (let step = 0; step < 100; step++)
                bp.step(sampleBatch(run.dataset.train, 16, contributionSeed("t", step, author, 0), 32));
            const end = evaluate(run.model, bp.tensors, run.dataset.train);
            assert.ok(end.loss < 0.5 * start.loss, `${optimizer}: loss ${start.loss} -> ${end.loss}`);
            assert.ok(end.accuracy > 0.9, `${optimizer}: accuracy ${end.accuracy}`);
            assert.equal(replica.checksum(), before);
            bp.dispose();
            replica.dispose();
        });
    }
});
//# sourceMappingURL=backprop.test.js.map