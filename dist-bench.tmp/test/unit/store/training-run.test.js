/** Opening a run from its spec plus the files this node was given (node/store/training-run.ts). */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { describe, it } from "node:test";
import { openTrainingRun } from "../../../node/store/training-run.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { DatasetError } from "../../../training/data/dataset.js";
import { MNIST_CONTENT_HASH, mnistPaths } from "../../../training/data/mnist.js";
import { useBackend } from "../../../training/engine.js";
const spec = (contentHash) => parseRunSpec({
    version: 1,
    name: "idx-run",
    model: { kind: "mlp", inputShape: [28, 28, 1], hidden: [8], classes: 10 },
    dataset: { kind: "idx", contentHash },
    algorithm: { kind: "spsa", perturbations: 2, batchSize: 8, eps: 1e-3, schedule: { lr: 1e-3, warmup: 0, minFactor: 1 } },
    seed: 1,
    iterations: 10,
    roundTimeoutMs: 1000,
});
describe("openTrainingRun: an IDX run", () => {
    it("needs --idx-dir, and opens from a directory whose files hash to the spec's contentHash", async () => {
        await useBackend("wasm");
        await assert.rejects(openTrainingRun(spec(MNIST_CONTENT_HASH), {}), (err) => {
            assert.ok(err instanceof DatasetError);
            assert.equal(err.code, "DATASET_BAD_ARGUMENT");
            assert.match(err.message, /--idx-dir/);
            return true;
        });
        const dir = dirname(mnistPaths().trainImages);
        const run = await openTrainingRun(spec(MNIST_CONTENT_HASH), { idxDir: dir });
        assert.equal(run.spec.dataset.kind, "idx");
        await assert.rejects(openTrainingRun(spec("00".repeat(32)), { idxDir: dir }), (err) => {
            assert.ok(err instanceof DatasetError);
            assert.equal(err.code, "DATASET_HASH_MISMATCH");
            return true;
        });
    });
});
//# sourceMappingURL=training-run.test.js.map