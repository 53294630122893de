import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { loadCheckpoint, saveCheckpoint } from "../../../node/store/checkpoint.js";
import { PRESETS } from "../../../protocol/presets.js";
import { imageModelOf, parseRunSpec, withIterations, } from "../../../protocol/run-spec.js";
import { RunSpecError } from "../../../protocol/spec-fields.js";
import { decodeSparsePayload, encodeSparsePayload } from "../../../protocol/sparse-payload.js";
import { stageAt } from "../../../training/algorithms/binary.js";
import { jsKernel } from "../../../training/bit-kernel/kernel.js";
import { wasmKernel } from "../../../training/bit-kernel/wasm-kernel.js";
import { sliceBatch } from "../../../training/data/dataset.js";
import { useBackend } from "../../../training/engine.js";
import { evaluate, evaluateLayersModel } from "../../../training/evaluate.js";
import { stageDeltas, stageLoss } from "../../../training/models/bit-flip-deltas.js";
import { bitGeometry, bitLogits, initBits, matrixSums, STAGE_WORD, setWeight, unpackLayer, weightAt, } from "../../../training/models/bit-mlp.js";
import { fileLoadHandler, saveLayersModel } from "../../../node/offline/layers-files.js";
import { toLayersModel } from "../../../training/models/export.js";
import { checksum, toTensors } from "../../../training/params.js";
import { fillUniform24 } from "../../../training/rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../../../training/rng/seeds.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
import { StateBytesError, stateFromBytes } from "../../../training/state-bytes.js";
const wasm = wasmKernel();
function bitSpec(features, hidden, weights, classes = 3) {
    return { kind: "bitmlp", inputShape: [features, 1, 1], hidden, classes, weights, inputThreshold: 0.5, logitScale: 1 / 4 };
}
function uniform(tag, n) {
    const out = new Float32Array(n);
    fillUniform24(streamOf(seedFrom(tag, []), Purpose.Noise), out);
    return out;
}
function labels(tag, n, classes) {
    return Uint8Array.from(uniform(tag, n), (u) => Math.floor(u * classes));
}
/** The float +/-1 reference: sums of a layer for +/-1 inputs, from unpacked weights. */
function floatSums(state, g, layer, inputs, batch) {
    const l = g.layers[layer];
    const { kernel } = unpackLayer(state, g, layer);
    const out = new Int32Array(batch * l.units);
    for (let b = 0; b < batch; b++)
        for (let j = 0; j < l.units; j++) {
            let s = 0;
            for (let i = 0; i < l.inputs; i++)
                s += kernel[i * l.units + j] * (inputs[b * l.inputs + i] >= 0.5 ? 1 : -1);
            out[b * l.units + j] = s;
        }
    return out;
}
const tempDirs = [];
after(async () => {
    for (const d of tempDirs)
        await rm(d, { recursive: true, force: true });
});
describe("bitmlp forward", () => {
    for (const kind of ["binary", "ternary"])
        for (const features of [1, 31, 32, 33, 100, 127, 128, 129, 300]) {
            it(`${kind}, ${features} inputs: JS and wasm popcounts equal the float +/-1 reference`, () => {
                const g = bitGeometry(bitSpec(features, [37], kind));
                const state = initBits(g, features);
                const batch = 9;
                const x = uniform(`x/${features}`, batch * features);
                const bits = new Uint32Array(batch * g.layers[0].kernel.wpr);
                for (let b = 0; b < batch; b++)
                    for (let i = 0; i < features; i++)
                        if (x[b * features + i] < 0.5)
                            bits[b * g.layers[0].kernel.wpr + (i >>> 5)] |= 1 << (i & 31);
                const viaJs = new Int32Array(batch * 37);
                const viaWasm = new Int32Array(batch * 37);
                matrixSums(jsKernel, state, g, g.layers[0].kernel, bits, batch, viaJs);
                matrixSums(wasm, state, g, g.layers[0].kernel, bits, batch, viaWasm);
                assert.deepEqual([...viaWasm], [...viaJs]);
                assert.deepEqual([...viaJs], [...floatSums(state, g, 0, x, batch)]);
            });
        }
    it("logits from JS, wasm and the tf forward agree exactly, on the active stage", async () => {
        await useBackend("cpu");
        for (const kind of ["binary", "ternary"]) {
            const spec = parseRunSpec({
                ...PRESETS["tiny-binary"],
                model: { ...PRESETS["tiny-binary"].model, hidden: [45, 70], weights: kind },
            });
            const run = await openRun(spec);
            const state = initialReplica(run).weights;
            const g = bitGeometry(spec.model);
            const batch = sliceBatch(run.dataset.test, 16, 0, 50);
            for (const stage of [0, 1]) {
                state[STAGE_WORD] = stage;
                const a = bitLogits(jsKernel, state, g, batch.x, 50);
                const b = bitLogits(wasm, state, g, batch.x, 50);
                assert.deepEqual([...a], [...b]);
                const tensors = toTensors(run.model.layout, state);
                const z = tf.tidy(() => run.model.forward(tensors, tf.tensor4d(batch.x, [50, 16, 1, 1])).dataSync());
                tf.dispose(tensors);
                assert.deepEqual([...z], [...a].map(Math.fround), `${kind} stage ${stage}`);
            }
        }
    });
});
describe("exact flip deltas", () => {
    for (const kind of ["binary", "ternary"]) {
        it(`${kind}: every sampled move's delta equals the loss recomputed after really moving it`, () => {
            const g = bitGeometry(bitSpec(70, [40, 24], kind, 4));
            const batch = 64;
            const x = uniform(`dx/${kind}`, batch * 70);
            const y = labels(`dy/${kind}`, batch, 4);
            for (const stage of [0, 1]) {
                const state = initBits(g, 5 + stage);
                state[STAGE_WORD] = stage;
                const { loss, deltas } = stageDeltas(wasm, state, g, stage, x, y, batch);
                assert.ok(Math.abs(loss - stageLoss(jsKernel, state, g, stage, x, y, batch)) < 1e-12);
                const l = g.layers[stage];
                const per = g.ternary ? 2 : 1;
                const kernelMoves = per * l.inputs * l.units;
                let checked = 0;
                let hiddenNonZero = 0;
                for (let m = 0; m < deltas.length; m += m < kernelMoves ? 7 : 3) {
                    const weight = Math.floor(m / per);
                    const inKernel = m < kernelMoves;
                    const matrix = inKernel ? l.kernel : l.head;
                    const w = inKernel ? weight : weight - l.inputs * l.units;
                    const row = Math.floor(w / matrix.cols);
                    const col = w % matrix.cols;
                    const v = weightAt(state, g, matrix, row, col);
                    const next = g.ternary ? v + (m % 2 === 0 ? 1 : -1) : -v;
                    if (next > 1 || next < -1) {
                        assert.ok(Number.isNaN(deltas[m]), "a move past the limit is not a move");
                        continue;
                    }
                    const moved = state.slice();
                    setWeight(moved, g, matrix, row, col, next);
                    const real = stageLoss(jsKernel, moved, g, stage, x, y, batch) - loss;
                    const err = Math.abs(real - deltas[m]);
                    assert.ok(err <= 1e-6 * Math.abs(real) + 1e-15, `move ${m}: delta ${deltas[m]} vs real ${real}`);
                    checked++;
                    if (inKernel && real !== 0)
                        hiddenNonZero++;
                }
                assert.ok(checked > 100 && hiddenNonZero > 20, `checked ${checked}, hidden non-zero ${hiddenNonZero}`);
            }
        });
    }
});
describe("binary algorithm", () => {
    const tiny = parseRunSpec(PRESETS["tiny-binary"]);
    it("apply gives the same bytes for the same contributions in any arrival order", async () => {
        const run = await openRun(tiny);
        const base = initialReplica(run);
        const authors = [
            { id: "peer-c", joinedAt: 5 },
            { id: "peer-a", joinedAt: 5 },
            { id: "peer-b", joinedAt: 1 },
        ];
        const contributions = authors.map((author) => ({ author, payload: run.algorithm.contribute(base, author) }));
        const sums = new Set();
        for (const order of [
            [0, 1, 2],
            [2, 1, 0],
            [1, 0, 2],
            [2, 0, 1],
        ]) {
            const r = initialReplica(run);
            r.applyIteration(run.algorithm, order.map((i) => contributions[i]));
            sums.add(checksum(r.weights));
        }
        assert.equal(sums.size, 1);
        assert.notEqual([...sums][0], checksum(base.weights));
    });
    it("flips exactly the flipsPerIteration most negative summed votes, ties by index", async () => {
        const run = await openRun(tiny);
        const alg = run.algorithm;
        const g = alg.geometry;
        const r = initialReplica(run);
        const before = r.weights.slice();
        const author = (id) => ({ id, joinedAt: 0 });
        // Votes: 10 -> -3 + 1 = -2; 20 -> -2; 30 -> -5; 40 -> -1; 50 -> +4; 60 -> -2 + 2 = 0.
        const c1 = encodeSparsePayload([10, 20, 30, 50, 60], [-3, -2, -5, 4, -2]);
        const c2 = encodeSparsePayload([10, 40, 60], [1, -1, 2]);
        const p1 = decodeSparsePayload(c1, alg.limits(0));
        assert.equal(p1.bytes[2], -127);
        r.applyIteration(alg, [
            { author: author("a"), payload: c1 },
            { author: author("b"), payload: c2 },
        ]);
        const changed = [];
        const l = g.layers[0];
        for (let m = 0; m < l.inputs * l.units; m++) {
            const row = Math.floor(m / l.inputs);
            const col = m % l.inputs;
            if (weightAt(before, g, l.kernel, row, col) !== weightAt(r.weights, g, l.kernel, row, col))
                changed.push(m);
        }
        // 4 flips: 30 (-5), then 10 and 20 (-2 each after rounding: ties by index), then 40 (-1).
        assert.deepEqual(changed, [10, 20, 30, 40]);
        assert.equal(alg.lastFlips, 4);
    });
    it("all-zero votes are accepted and change nothing", async () => {
        const run = await openRun(tiny);
        const r = initialReplica(run);
        const before = checksum(r.weights);
        const zero = encodeSparsePayload([1, 2, 3], [0, 0, 0]);
        assert.equal(run.algorithm.payloadProblem(zero, 0), null);
        r.applyIteration(run.algorithm, [{ author: { id: "z", joinedAt: 0 }, payload: zero }]);
        assert.equal(checksum(r.weights), before);
    });
    it("ternary: votes pushing a trit past its limit are dropped", async () => {
        const spec = parseRunSpec({ ...PRESETS["tiny-binary"], model: { ...PRESETS["tiny-binary"].model, weights: "ternary" } });
        const run = await openRun(spec);
        const alg = run.algorithm;
        const g = alg.geometry;
        const r = initialReplica(run);
        const state = r.weights;
        const k = g.layers[0].kernel;
        setWeight(state, g, k, 0, 0, 1); // weight 0 at +1: move 0 (+1) is past the limit
        setWeight(state, g, k, 0, 1, 0); // weight 1 at 0: move 2 (+1) is fine
        setWeight(state, g, k, 0, 2, -1); // weight 2 at -1: move 5 (-1) is past the limit
        const payload = encodeSparsePayload([0, 2, 5], [-9, -1, -8]);
        r.applyIteration(alg, [{ author: { id: "t", joinedAt: 0 }, payload }]);
        assert.deepEqual([0, 1, 2].map((i) => weightAt(state, g, k, 0, i)), [1, 1, -1]);
        assert.equal(alg.lastFlips, 1);
    });
    it("payload checks follow the stage: an index of a frozen stage is refused in stage 2", async () => {
        const run = await openRun(tiny);
        const alg = run.algorithm;
        const [s0, s1] = alg.ranges;
        const stage0 = encodeSparsePayload([s0.start + 3], [-1]);
        const stage1 = encodeSparsePayload([s1.start + 3], [-1]);
        assert.equal(alg.payloadProblem(stage0, 0), null);
        assert.match(alg.payloadProblem(stage1, 0) ?? "", /outside/);
        assert.match(alg.payloadProblem(stage0, 100) ?? "", /outside/);
        assert.equal(alg.payloadProblem(stage1, 100), null);
        assert.equal(stageAt([100, 100], 99), 0);
        assert.equal(stageAt([100, 100], 100), 1);
    });
    it("trains: loss falls in each stage and the stage word follows the schedule", async () => {
        const run = await openRun(tiny);
        const r = initialReplica(run);
        const author = { id: "solo", joinedAt: 0 };
        const losses = [];
        for (let t = 0; t < 200; t++) {
            const payload = run.algorithm.contribute(r, author);
            assert.ok(payload.length <= 4096);
            losses.push(run.algorithm.lastLoss);
            r.applyIteration(run.algorithm, [{ author, payload }]);
            assert.equal(r.weights[STAGE_WORD], t < 100 ? 0 : 1);
        }
        const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
        assert.ok(mean(losses.slice(80, 100)) < 0.5 * mean(losses.slice(0, 10)), "stage 1 loss falls");
        assert.ok(mean(losses.slice(180, 200)) < 0.5 * mean(losses.slice(100, 110)), "stage 2 loss falls");
    });
});
describe("bitmlp run specs", () => {
    const tiny = PRESETS["tiny-binary"];
    const bad = (over, field) => {
        assert.throws(() => parseRunSpec({
            ...tiny,
            ...over.top,
            model: { ...tiny.model, ...over.model },
            algorithm: { ...tiny.algorithm, ...over.algorithm },
        }), (err) => err instanceof RunSpecError && err.context.path === field && err.message.includes(field), field);
    };
    it("names the bad field", () => {
        bad({ model: { weights: "quaternary" } }, "model.weights");
        bad({ algorithm: { flipsPerIteration: 0 } }, "algorithm.flipsPerIteration");
        // The smaller stage has 16 * 32 + 32 * 4 = 640 moves.
        bad({ algorithm: { flipsPerIteration: 641 } }, "algorithm.flipsPerIteration");
        bad({ algorithm: { maxEntries: 1400 } }, "algorithm.maxEntries");
        bad({ algorithm: { stages: [100, 99] } }, "algorithm.stages");
        bad({ algorithm: { stages: [200] } }, "algorithm.stages");
        bad({ model: { hidden: [0, 32] } }, "model.hidden");
        bad({ model: { hidden: [65537, 32] } }, "model.hidden");
        bad({ model: { logitScale: 0.3 } }, "model.logitScale");
        // A binary algorithm on a float model, and a float algorithm on a bitmlp.
        const floatModel = { kind: "mlp", inputShape: [16, 1, 1], hidden: [8], classes: 4 };
        assert.throws(() => parseRunSpec({ ...tiny, model: floatModel }), (e) => e instanceof RunSpecError && e.context.path === "algorithm.kind" && /must be a bitmlp/.test(e.message));
        const spsa = { kind: "spsa", perturbations: 4, batchSize: 8, eps: 1e-3, schedule: { lr: 0.1, warmup: 0, minFactor: 0.1 } };
        assert.throws(() => parseRunSpec({ ...tiny, algorithm: spsa }), (e) => e instanceof RunSpecError && e.context.path === "algorithm.kind");
        assert.equal(parseRunSpec({ ...tiny, algorithm: { ...tiny.algorithm, flipsPerIteration: 640 } }).algorithm.kind, "binary");
    });
    it("--iterations moves the end of the last stage", () => {
        const spec = parseRunSpec(tiny);
        assert.deepEqual(withIterations(spec, 350).algorithm.stages, [100, 250]);
        assert.deepEqual(withIterations(spec, 101).algorithm.stages, [100, 1]);
        assert.throws(() => withIterations(spec, 100), (e) => e instanceof RunSpecError && e.context.path === "algorithm.stages");
    });
});
describe("packed state bytes", () => {
    it("are 32x smaller than float32 weights, decode back, and refuse a wrong length or padding", async () => {
        const spec = parseRunSpec(PRESETS["mnist-binary"]);
        const g = bitGeometry(spec.model);
        assert.ok(g.words * 32 < g.weightCount * 1.03 + 32 * 32 * 16, `${g.words} words for ${g.weightCount} weights`);
        const state = initBits(g, 1);
        const bytes = new Uint8Array(state.buffer.slice(0));
        assert.deepEqual(stateFromBytes(spec.model, bytes), state);
        assert.throws(() => stateFromBytes(spec.model, bytes.subarray(4)), (e) => e instanceof StateBytesError && /packed state is \d+ bytes/.test(e.message));
        const padded = bytes.slice();
        // 784 inputs = 24.5 words: bit 16 of row 0's last word is padding.
        padded[4 * (1 + 24) + 2] |= 1;
        assert.throws(() => stateFromBytes(spec.model, padded), /padding bits set/);
    });
    it("a checkpoint with a wrong packed length or checksum is refused with the reason; the file is untouched", async () => {
        const dir = await mkdtemp(join(tmpdir(), "seedswarm-binary-"));
        tempDirs.push(dir);
        const spec = parseRunSpec(PRESETS["tiny-binary"]);
        const run = await openRun(spec);
        const r = initialReplica(run);
        const path = join(dir, "cp.ssck");
        await saveCheckpoint(path, spec, 0, r.weights);
        const good = await readFile(path);
        assert.deepEqual((await loadCheckpoint(path)).weights, r.weights);
        // One byte short of the packed state.
        const headerLen = good.readUInt32LE(8);
        const short = Buffer.concat([good.subarray(0, 12), Buffer.from(JSON.stringify({ ...JSON.parse(good.toString("utf8", 12, 12 + headerLen)), params: r.weights.length - 1 }))]);
        const fixed = Buffer.alloc(4);
        fixed.writeUInt32LE(short.length - 12, 0);
        const shortFile = Buffer.concat([short.subarray(0, 8), fixed, short.subarray(12), good.subarray(12 + headerLen, good.length - 4)]);
        await writeFile(path, shortFile);
        await assert.rejects(loadCheckpoint(path), /packed state is \d+ bytes, the bitmlp needs \d+/);
        assert.deepEqual(await readFile(path), shortFile);
        const flipped = Buffer.from(good);
        flipped[flipped.length - 1] ^= 1;
        await writeFile(path, flipped);
        await assert.rejects(loadCheckpoint(path), /checksum/);
        assert.deepEqual(await readFile(path), flipped);
    });
});
describe("bitmlp export", () => {
    it("stock tf.loadLayersModel classifies the first 2,000 MNIST test images as seedswarm's evaluation does", async () => {
        await useBackend("wasm");
        const dir = await mkdtemp(join(tmpdir(), "seedswarm-binary-export-"));
        tempDirs.push(dir);
        const spec = parseRunSpec(PRESETS["mnist-binary"]);
        const run = await openRun(spec);
        const alg = run.algorithm;
        const r = initialReplica(run);
        const author = { id: "solo", joinedAt: 0 };
        for (let t = 0; t < 3; t++)
            r.applyIteration(alg, [{ author, payload: alg.contribute(r, author) }]);
        const state = r.weights;
        for (const stage of [0, 1]) {
            state[STAGE_WORD] = stage;
            const layers = toLayersModel(imageModelOf(spec), run.model.layout, state);
            await saveLayersModel(layers, join(dir, `s${stage}`));
            layers.dispose();
            const loaded = await tf.loadLayersModel(fileLoadHandler(join(dir, `s${stage}`, "model.json")));
            const test = run.dataset.test;
            // The images the evaluation below uses (its limit): the whole test set took 40 s of npm test.
            const n = Math.min(test.n, 2000);
            const x = test.x.subarray(0, n * 784);
            const ours = bitLogits(alg.kernel, state, alg.geometry, x, n);
            const probs = tf.tidy(() => tf.argMax(loaded.predict(tf.tensor4d(x, [n, 28, 28, 1])), 1).dataSync());
            loaded.dispose();
            let differ = 0;
            for (let b = 0; b < n; b++) {
                let best = 0;
                for (let c = 1; c < 10; c++)
                    if (ours[b * 10 + c] > ours[b * 10 + best])
                        best = c;
                if (best !== probs[b])
                    differ++;
            }
            assert.equal(differ, 0, `stage ${stage}: ${differ} of ${n} classified differently`);
            const tensors = toTensors(run.model.layout, state);
            const viaEval = evaluate(run.model, tensors, test, 2000);
            tf.dispose(tensors);
            const loaded2 = await tf.loadLayersModel(fileLoadHandler(join(dir, `s${stage}`, "model.json")));
            const viaExport = evaluateLayersModel(loaded2, imageModelOf(spec).inputShape, test, 2000);
            loaded2.dispose();
            assert.equal(viaExport.accuracy, viaEval.accuracy);
        }
    });
});
//# sourceMappingURL=binary.test.js.map