import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { contributionSeed } from "../../../training/rng/seeds.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
import { imageClassificationTask } from "../../../training/tasks/image-classification.js";
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const author = { id: "12D3KooWabc", joinedAt: 1700000000000 };
describe("image classification task", () => {
    for (const backend of ["wasm", "cpu"]) {
        it(`a batch keeps its rows while later batches are drawn (${backend})`, async () => {
            await useBackend(backend);
            const run = await openRun(spec);
            const replica = initialReplica(run);
            const w = replica.backend.tensors;
            const task = imageClassificationTask(run.model, run.dataset.train);
            const seedA = contributionSeed("run", 0, author, 0);
            const a = task.batch(seedA, 32);
            const lossA = a.loss(w);
            const b = task.batch(contributionSeed("run", 0, author, 1), 32);
            // A larger batch outgrows any array the task reuses.
            const c = task.batch(contributionSeed("run", 0, author, 2), 64);
            assert.notEqual(b.loss(w), lossA);
            assert.notEqual(c.loss(w), lossA);
            assert.equal(a.loss(w), lossA);
            // The same seed on a task of its own: the same rows, so the same loss to the bit.
            const alone = imageClassificationTask(run.model, run.dataset.train).batch(seedA, 32);
            assert.equal(alone.loss(w), lossA);
            for (const x of [a, b, c, alone])
                x.dispose();
            replica.dispose();
        });
    }
});
//# sourceMappingURL=image-classification.test.js.map