/**
 * The per-run magnitude bound of SPSA bytes (RunSpec `algorithm.clip`, issue 15): the byte-level
 * clamp, its RunSpec field, and the canonical update under it (kernels and reference alike).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localAuthors } from "../../../node/local/local-trainer.js";
import { clampGradientByte, dequantizeGradient, GRADIENT_BYTE_MAX, GRADIENT_BYTE_MIN, gradientCodeBound, } from "../../../protocol/gradient-byte.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { RunSpecError } from "../../../protocol/spec-fields.js";
import { createAlgorithm } from "../../../training/algorithms/create.js";
import { useUpdateKernels } from "../../../training/algorithms/update-kernels.js";
import { useBackend } from "../../../training/engine.js";
import { floatWeights } from "../../../training/params.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
import { bytesOf, ints } from "../../helpers/spsa-inputs.js";
function withClip(name, clip) {
    const base = PRESETS[name];
    return parseRunSpec({ ...base, algorithm: { ...base.algorithm, clip } });
}
/** Contributions of `authors` with reproducible bytes over the whole range, +/-127 included. */
function contributions(name, run, n) {
    const k = run.algorithm.maxPayloadBytes;
    return localAuthors(n).map((author, a) => {
        const r = ints(`${name}/${a}`, k, 255);
        const payload = new Int8Array(k);
        for (let j = 0; j < k; j++)
            payload[j] = r[j] - 127;
        payload[0] = a % 2 === 0 ? 127 : -127;
        return { author, payload: new Uint8Array(payload.buffer) };
    });
}
describe("clip: the byte-level bound", () => {
    it("maps a bound to the largest code within it, and clamps bytes to it keeping the sign", () => {
        for (let c = 1; c <= 127; c++) {
            const v = dequantizeGradient(c);
            assert.equal(gradientCodeBound(v), c);
            assert.equal(gradientCodeBound(v * (1 - 2 ** -30)), c - 1);
        }
        assert.equal(gradientCodeBound(1), 88);
        assert.equal(gradientCodeBound(2.1), 96);
        assert.equal(gradientCodeBound(GRADIENT_BYTE_MIN / 2), 0);
        assert.deepEqual([127, 97, 96, 5, 0, -5, -96, -97, -127].map((b) => clampGradientByte(b, 96)), [96, 96, 96, 5, 0, -5, -96, -96, -96]);
    });
});
describe("clip: the RunSpec field", () => {
    it("absent, leaves every unclipped preset's runId as it was; present, is part of the runId", () => {
        // The runIds before the field existed (commit 9e8ed03). Since then the MNIST MLP presets bound
        // every byte at 2 (issue 15), and they and the tiny SPSA presets pipeline their rounds (RunSpec
        // `staleness`, issue 12): without those two fields each preset has its old runId.
        const pinned = {
            "tiny-spsa-lowrank": "3f2146235dbaae20c04261247c07883fbcbf3350dbe8278595c871c4d2899ec0",
            "mnist-cnn-spsa": "a0f509a3dd10d915d649a9f80b606d48b7c8e40c1d1c41f36ba91bb2171df04b",
            "tiny-spsa": "88f47c4c85887ed2704fcd94c2c50ccce2429507877e865c9808310e0ec7e9a5",
            "tiny-lm": "3ce3520e8ec071cb54e363cd101e46f10f3bf33efb85d49b3cd287d07e843784",
            "mnist-mlp-spsa": "7bc8cc632bbb843b00bb754ce5c29181d4bfc5f40fcdf0094fdcf42de78f9546",
            "mnist-mlp-spsa-lowrank": "2bb9df7d52f39f06ea0a0e85d1fe3824de75a0d60cc5169d432cd086aea0bd9a",
        };
        const clippedPresets = new Set(["mnist-mlp-spsa", "mnist-mlp-spsa-lowrank"]);
        const pipelinedPresets = new Set(["mnist-mlp-spsa", "mnist-mlp-spsa-lowrank", "tiny-spsa", "tiny-spsa-lowrank"]);
        for (const [name, id] of Object.entries(pinned)) {
            const preset = PRESETS[name];
            const spec = parseRunSpec(preset);
            assert.equal(spec.algorithm.kind === "spsa" && spec.algorithm.clip, clippedPresets.has(name) ? 2 : undefined, name);
            assert.equal(spec.staleness, pipelinedPresets.has(name) ? 1 : undefined, name);
            assert.equal(runIdOf(spec) === id, !clippedPresets.has(name) && !pipelinedPresets.has(name), name);
            const { clip: _clip, ...algorithm } = preset.algorithm;
            const { staleness: _staleness, ...rest } = preset;
            assert.equal(runIdOf(parseRunSpec({ ...rest, algorithm })), id, `${name} without its clip and staleness`);
            // Staleness 0 is no pipelining: written as absent, the same runId.
            assert.equal(runIdOf(parseRunSpec({ ...rest, staleness: 0, algorithm })), id, `${name} at staleness 0`);
        }
        const clipped = withClip("tiny-spsa", 2);
        assert.equal(clipped.algorithm.kind === "spsa" && clipped.algorithm.clip, 2);
        assert.notEqual(runIdOf(clipped), pinned["tiny-spsa"]);
        assert.notEqual(runIdOf(withClip("tiny-spsa", 3)), runIdOf(clipped));
    });
    it("refuses a bound that clamps every byte to 0 or bounds nothing, naming the field", () => {
        for (const bad of [0, -1, GRADIENT_BYTE_MIN / 2, GRADIENT_BYTE_MAX, 30, 1e9, "2", null, [2], { max: 2 }])
            assert.throws(() => withClip("tiny-spsa", bad), (e) => e instanceof RunSpecError && e.code === "RUNSPEC_INVALID" && e.context.path === "algorithm.clip" && /algorithm\.clip/.test(e.message), `clip ${JSON.stringify(bad)}`);
        assert.equal(withClip("tiny-spsa", GRADIENT_BYTE_MIN).algorithm.kind, "spsa");
    });
});
describe("clip: the canonical update", () => {
    it("a byte beyond the bound moves the weights exactly as the bound's own byte (full rank and low rank)", async () => {
        await useBackend("wasm");
        for (const name of ["tiny-spsa", "tiny-spsa-lowrank"]) {
            const spec = withClip(name, 2.1); // code 96
            const run = await openRun(spec);
            // The same run without the bound: same runId, so the same directions.
            const plain = createAlgorithm(run.runId, parseRunSpec(PRESETS[name]), run.model, run.dataset.train);
            assert.equal(run.algorithm.maxCode, 96);
            const cs = contributions(`clip/${name}`, run, 3);
            const bounded = cs.map((c) => ({
                ...c,
                payload: new Uint8Array(Int8Array.from(new Int8Array(c.payload.buffer), (b) => clampGradientByte(b, 96)).buffer),
            }));
            const r = initialReplica(run);
            const clippedW = floatWeights(r.weights).slice();
            run.algorithm.apply(clippedW, 5, cs);
            const boundW = floatWeights(r.weights).slice();
            plain.apply(boundW, 5, bounded);
            assert.ok(bytesOf(clippedW).equals(bytesOf(boundW)), `${name}: clipped != bound bytes`);
            const unclipped = floatWeights(r.weights).slice();
            plain.apply(unclipped, 5, cs);
            assert.ok(!bytesOf(clippedW).equals(bytesOf(unclipped)), `${name}: the clip changed nothing`);
            // Bytes within the bound are untouched by it.
            const small = [{ author: cs[0].author, payload: new Uint8Array(run.algorithm.maxPayloadBytes).fill(90) }];
            const a = floatWeights(r.weights).slice();
            const b = floatWeights(r.weights).slice();
            run.algorithm.apply(a, 5, small);
            plain.apply(b, 5, small);
            assert.ok(bytesOf(a).equals(bytesOf(b)));
            r.dispose();
        }
    });
    it("the WebAssembly kernels and the JavaScript reference stay byte-identical under a clip", async () => {
        await useBackend("wasm");
        const spec = withClip("tiny-spsa", 0.7);
        const run = await openRun(spec);
        const wasm = run.algorithm;
        assert.ok(wasm.kernels, "the WebAssembly kernels load");
        useUpdateKernels(null);
        let js;
        try {
            js = createAlgorithm(run.runId, spec, run.model, run.dataset.train);
        }
        finally {
            useUpdateKernels(wasm.kernels);
        }
        assert.equal(js.kernels, null);
        const r = initialReplica(run);
        const a = floatWeights(r.weights).slice();
        const b = floatWeights(r.weights).slice();
        for (let t = 0; t < 6; t++) {
            const cs = contributions(`kernels/${t}`, run, 4);
            wasm.apply(a, t, cs);
            js.apply(b, t, cs);
            assert.ok(bytesOf(a).equals(bytesOf(b)), `iteration ${t}`);
        }
        assert.ok(!bytesOf(a).equals(bytesOf(floatWeights(r.weights))));
        r.dispose();
    });
});
//# sourceMappingURL=spsa-clip.test.js.map