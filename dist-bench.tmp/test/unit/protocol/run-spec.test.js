/** RunSpec validation of transformer runs: model kind `transformer` and text datasets. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { imageModelOf, parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { RunSpecError } from "../../../protocol/spec-fields.js";
import { MAX_STALENESS } from "../../../protocol/limits.js";
import { PRESETS } from "../../../protocol/presets.js";
const HASH = "ab".repeat(32);
const base = {
    version: 1,
    name: "lm",
    model: { kind: "transformer", architecture: "gpt2", weightsHash: HASH },
    dataset: { kind: "text", format: "jsonl", contentHash: "cd".repeat(32), task: { kind: "causal-lm", contextLength: 32 } },
    algorithm: { kind: "spsa", perturbations: 4, batchSize: 8, eps: 1e-3, schedule: { lr: 1e-3, warmup: 0, minFactor: 1 } },
    seed: 1,
    iterations: 10,
    roundTimeoutMs: 1000,
};
/** Asserts that parsing `v` fails on exactly `path`. */
function rejects(v, path) {
    assert.throws(() => parseRunSpec(v), (err) => err instanceof RunSpecError && err.code === "RUNSPEC_INVALID" && err.context.path === path && err.message.includes(path), `expected an error naming ${path}`);
}
describe("RunSpec: transformer runs", () => {
    it("accepts a causal-LM and a prompt-classification spec; the weights hash is part of the runId", () => {
        const lm = parseRunSpec(base);
        assert.deepEqual(lm.model, base.model);
        const task = { kind: "prompt-classification", template: "{text} It was", labelWords: [" terrible", " great"] };
        const cls = parseRunSpec({ ...base, dataset: { ...base.dataset, format: "csv", task } });
        assert.deepEqual(cls.dataset, { ...base.dataset, format: "csv", task });
        const other = parseRunSpec({ ...base, model: { ...base.model, weightsHash: "ef".repeat(32) } });
        assert.notEqual(runIdOf(other), runIdOf(lm));
    });
    it("names the field at fault", () => {
        rejects({ ...base, model: { ...base.model, architecture: "bert" } }, "model.architecture");
        rejects({ ...base, model: { ...base.model, weightsHash: "AB".repeat(32) } }, "model.weightsHash");
        rejects({ ...base, model: { ...base.model, weightsHash: "ab" } }, "model.weightsHash");
        rejects({ ...base, model: { ...base.model, path: "/x" } }, "model.path");
        rejects({ ...base, dataset: { ...base.dataset, contentHash: 7 } }, "dataset.contentHash");
        rejects({ ...base, dataset: { ...base.dataset, format: "txt" } }, "dataset.format");
        rejects({ ...base, dataset: { ...base.dataset, task: { kind: "causal-lm", contextLength: 1 } } }, "dataset.task.contextLength");
        rejects({ ...base, dataset: { ...base.dataset, task: { kind: "qa" } } }, "dataset.task.kind");
        const prompt = { kind: "prompt-classification", template: "{text} It was", labelWords: [" a", " b"] };
        rejects({ ...base, dataset: { ...base.dataset, task: { ...prompt, template: "It was" } } }, "dataset.task.template");
        rejects({ ...base, dataset: { ...base.dataset, task: { ...prompt, labelWords: [" a", " a"] } } }, "dataset.task.labelWords");
        rejects({ ...base, dataset: { ...base.dataset, task: { ...prompt, labelWords: [" a"] } } }, "dataset.task.labelWords");
    });
    it("pairs transformers with text and keeps them off the image-only paths", () => {
        rejects({ ...base, dataset: { kind: "mnist" } }, "dataset.kind");
        rejects({ ...base, model: { kind: "mlp", inputShape: [4, 1, 1], hidden: [2], classes: 2 } }, "dataset.kind");
        const marketplace = { kind: "marketplace", version: 1, vendors: 2, specs: [1], batchSize: 4, probeScale: 0.1, schedule: base.algorithm.schedule };
        rejects({ ...base, algorithm: marketplace }, "algorithm.kind");
        assert.throws(() => imageModelOf(parseRunSpec(base)), (err) => err instanceof RunSpecError && err.context.path === "model.kind");
    });
});
describe("RunSpec: IDX image sets are named by content", () => {
    const idx = {
        ...base,
        name: "idx",
        model: { kind: "mlp", inputShape: [28, 28, 1], hidden: [8], classes: 10 },
        dataset: { kind: "idx", contentHash: "ef".repeat(32) },
    };
    it("takes a content hash, never paths; the hash is part of the runId", () => {
        const spec = parseRunSpec(idx);
        assert.deepEqual(spec.dataset, { kind: "idx", contentHash: "ef".repeat(32) });
        assert.notEqual(runIdOf(spec), runIdOf(parseRunSpec({ ...idx, dataset: { kind: "idx", contentHash: "ee".repeat(32) } })));
        rejects({ ...idx, dataset: { kind: "idx", contentHash: "EF".repeat(32) } }, "dataset.contentHash");
        rejects({ ...idx, dataset: { kind: "idx", contentHash: "ef".repeat(32), trainImages: "/data/train" } }, "dataset.trainImages");
        rejects({ ...idx, dataset: { kind: "idx" } }, "dataset.contentHash");
    });
});
describe("RunSpec: staleness (pipelined rounds)", () => {
    it("1..MAX_STALENESS for SPSA runs; 0 is written as absent (the same runId); anything else names the field", () => {
        const one = parseRunSpec({ ...base, staleness: 1 });
        assert.equal(one.staleness, 1);
        assert.notEqual(runIdOf(one), runIdOf(parseRunSpec(base)));
        const zero = parseRunSpec({ ...base, staleness: 0 });
        assert.equal("staleness" in zero, false);
        assert.equal(runIdOf(zero), runIdOf(parseRunSpec(base)));
        assert.equal(parseRunSpec({ ...base, staleness: MAX_STALENESS }).staleness, MAX_STALENESS);
        rejects({ ...base, staleness: MAX_STALENESS + 1 }, "spec.staleness");
        rejects({ ...base, staleness: 0.5 }, "spec.staleness");
        rejects({ ...PRESETS["tiny-marketplace"], staleness: 1 }, "spec.staleness");
    });
});
//# sourceMappingURL=run-spec.test.js.map