import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { dequantizeGradient } from "../../../protocol/gradient-byte.js";
import { localAuthors, localIteration } from "../../../node/local/local-trainer.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { applyLowRankJs, lowRankFactors, lowRankScale, perturbLowRankJs } from "../../../training/algorithms/lowrank.js";
import { LowRankPairs } from "../../../training/algorithms/lowrank-forward.js";
import { planPasses, signWords } from "../../../training/algorithms/spsa-update.js";
import { sampleBatch } from "../../../training/data/dataset.js";
import { useBackend } from "../../../training/engine.js";
import { batchTensors, evaluate, lossOn } from "../../../training/evaluate.js";
import { buildModel, initWeights } from "../../../training/models/model.js";
import { layoutOf, toTensors } from "../../../training/params.js";
import { seedFrom } from "../../../training/rng/seeds.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
import { bytesOf, stepsFor, weightsFor } from "../../helpers/spsa-inputs.js";
const tiny = PRESETS["tiny-spsa-lowrank"];
const withAlgorithm = (extra) => parseRunSpec({ ...PRESETS["tiny-spsa"], algorithm: { ...PRESETS["tiny-spsa"].algorithm, ...extra } });
/** A matrix, its bias, a rank-3 tensor (moves as [6 x 4]) and a lone scalar. */
const layout = layoutOf([
    { name: "k", shape: [5, 7], fanIn: 5, init: "he" },
    { name: "b", shape: [7], fanIn: 5, init: "zeros" },
    { name: "c", shape: [2, 3, 4], fanIn: 6, init: "he" },
    { name: "s", shape: [1], fanIn: 1, init: "zeros" },
]);
/** The perturbation direction of a seed, float64, straight from its definition. */
function direction(seed, rank) {
    const e = new Float64Array(layout.size);
    for (const [ti, t] of layout.tensors.entries()) {
        if (t.shape.length < 2) {
            const bits = new Uint32Array(Math.ceil(t.size / 32) + 4);
            signWords(seed, ti, 0, Math.ceil(t.size / 32), bits);
            for (let i = 0; i < t.size; i++)
                e[t.offset + i] = (bits[i >>> 5] >>> (i & 31)) & 1 ? 1 : -1;
            continue;
        }
        const cols = t.shape[t.shape.length - 1];
        const rows = t.size / cols;
        const a = new Int8Array(rows * rank);
        const b = new Int8Array(cols * rank);
        lowRankFactors(seed, ti, rows, cols, rank, a, b);
        for (let i = 0; i < rows; i++)
            for (let j = 0; j < cols; j++) {
                let s = 0;
                for (let k = 0; k < rank; k++)
                    s += a[i * rank + k] * b[j * rank + k];
                e[t.offset + i * cols + j] = s / Math.sqrt(rank);
            }
    }
    return e;
}
describe("low-rank perturbations in the RunSpec", () => {
    it("are validated, default to rank 1, and are part of the runId", () => {
        const base = runIdOf(parseRunSpec(PRESETS["tiny-spsa"]));
        assert.equal(runIdOf(withAlgorithm({ perturbation: { kind: "full" } })), base);
        assert.equal(runIdOf(withAlgorithm({ fitness: "difference" })), base);
        const r1 = withAlgorithm({ perturbation: { kind: "lowrank" } });
        assert.deepEqual(r1.algorithm.kind === "spsa" && r1.algorithm.perturbation, { kind: "lowrank", rank: 1 });
        assert.equal(runIdOf(r1), runIdOf(withAlgorithm({ perturbation: { kind: "lowrank", rank: 1 } })));
        assert.notEqual(runIdOf(r1), base);
        assert.notEqual(runIdOf(withAlgorithm({ perturbation: { kind: "lowrank", rank: 2 } })), runIdOf(r1));
        assert.notEqual(runIdOf(withAlgorithm({ fitness: "sign" })), base);
        assert.throws(() => withAlgorithm({ perturbation: { kind: "lowrank", rank: 0 } }), /algorithm.perturbation.rank must be an integer in 1..64/);
        assert.throws(() => withAlgorithm({ perturbation: { kind: "lowrank", rank: 65 } }), /perturbation.rank/);
        assert.throws(() => withAlgorithm({ perturbation: { kind: "sparse" } }), /perturbation.kind must be "full" or "lowrank"/);
        assert.throws(() => withAlgorithm({ perturbation: { kind: "full", rank: 2 } }), /perturbation.rank is not a known field/);
        assert.throws(() => withAlgorithm({ fitness: "rank" }), /algorithm.fitness must be "difference" or "sign"/);
    });
});
describe("the canonical low-rank update", () => {
    const w0 = weightsFor("lowrank", layout.size);
    it("at rank 1 equals the outer-product rule computed naively, entry by entry", () => {
        const f = Math.fround;
        const steps = stepsFor("lowrank-naive", 40);
        const [plans] = planPasses(steps, 40, 3e-3);
        const got = w0.slice();
        applyLowRankJs(got, layout, plans, 1);
        const want = w0.slice();
        const dirs = plans.map((p) => p.steps.map((s) => direction(s.seed, 1)));
        for (let i = 0; i < layout.size; i++) {
            let d = -0;
            plans.forEach((p, c) => {
                let sum = 0;
                p.steps.forEach((s, q) => (sum += s.v * dirs[c][q][i]));
                d = f(d + f(f(sum) * p.coef));
            });
            want[i] = f(want[i] + d);
        }
        assert.ok(bytesOf(got).equals(bytesOf(want)));
    });
    for (const rank of [1, 3, 8]) {
        it(`at rank ${rank} is w - lr / m * sum of g_j E_j (float64 reference), and identical on reapplication`, () => {
            const m = 24;
            const lr = 1e-2;
            const steps = stepsFor(`lowrank-${rank}`, m);
            const got = w0.slice();
            for (const plans of planPasses(steps, m, lr))
                applyLowRankJs(got, layout, plans, rank);
            const again = w0.slice();
            for (const plans of planPasses(steps, m, lr))
                applyLowRankJs(again, layout, plans, rank);
            assert.ok(bytesOf(got).equals(bytesOf(again)));
            const want = Float64Array.from(w0);
            for (const s of steps) {
                if (s.byte === 0)
                    continue;
                const e = direction(s.seed, rank);
                const g = dequantizeGradient(s.byte);
                for (let i = 0; i < want.length; i++)
                    want[i] -= (lr / m) * g * e[i];
            }
            let moved = 0;
            for (let i = 0; i < want.length; i++) {
                const tol = 4e-7 * Math.max(Math.abs(want[i]), (lr / m) * 30 * Math.sqrt(rank));
                assert.ok(Math.abs(got[i] - want[i]) <= tol, `weight ${i}: ${got[i]} vs ${want[i]}`);
                if (got[i] !== w0[i])
                    moved++;
            }
            assert.ok(moved > 0.9 * want.length, `${moved} weights moved`);
            // The steps' order does not matter: the sums are exact integers.
            const reversed = w0.slice();
            for (const plans of planPasses([...steps].reverse(), m, lr))
                applyLowRankJs(reversed, layout, plans, rank);
            assert.ok(bytesOf(got).equals(bytesOf(reversed)));
        });
    }
    it("perturbs w +/- eps E exactly in float32", () => {
        const seed = seedFrom("test/lowrank", [1]);
        const e = direction(seed, 4);
        const out = new Float32Array(layout.size);
        perturbLowRankJs(out, w0, layout, seed, 1e-3, 4, -1);
        const s = Math.fround(1e-3 * lowRankScale(4));
        for (let i = 0; i < out.length; i++) {
            const isMatrix = i < 35 || (i >= 42 && i < 66);
            const step = isMatrix ? Math.fround(-s * e[i] * 2) : Math.fround(-1e-3) * e[i];
            assert.equal(out[i], Math.fround(w0[i] + step), `entry ${i}`);
        }
    });
});
describe("low-rank SPSA training", () => {
    it("measures pairs in one batched forward with the losses of the materialised weights", async () => {
        await useBackend("wasm");
        const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], model: { ...PRESETS["tiny-spsa"].model, hidden: [8, 6] } });
        const run = await openRun(spec);
        const model = buildModel(run.model.spec);
        const w = initWeights(model.layout, 3);
        const seeds = [0, 1, 2].map((j) => seedFrom("test/lowrank/pairs", [j]));
        for (const rank of [1, 2]) {
            const { plus, minus } = new LowRankPairs(model, run.dataset.train).losses(w, seeds, 16, 0.05, rank);
            seeds.forEach((seed, j) => {
                const { x, y } = batchTensors(sampleBatch(run.dataset.train, 16, seed, 16), model.spec.inputShape);
                for (const [sign, got] of [[1, plus[j]], [-1, minus[j]]]) {
                    const p = new Float32Array(w.length);
                    perturbLowRankJs(p, w, model.layout, seed, 0.05, rank, sign);
                    const t = toTensors(model.layout, p);
                    const want = lossOn(model, t, x, y);
                    tf.dispose(t);
                    assert.ok(Math.abs(got - want) < 1e-5 * Math.max(1, want), `pair ${j} sign ${sign}: ${got} vs ${want}`);
                }
                tf.dispose([x, y]);
            });
            assert.ok(plus.some((l, j) => l !== minus[j]));
        }
    });
    it("lowers the loss of the tiny problem, and a replay on the cpu backend ends on the same bytes", async () => {
        await useBackend("wasm");
        const spec = parseRunSpec(tiny);
        const run = await openRun(spec);
        const replica = initialReplica(run);
        const before = evaluate(run.model, replica.backend.tensors, run.dataset.train);
        const authors = localAuthors(2);
        const log = [];
        while (replica.iteration < 150)
            log.push(localIteration(run, replica, authors));
        const after = evaluate(run.model, replica.backend.tensors, run.dataset.train);
        assert.ok(after.loss < 0.7 * before.loss, `loss ${before.loss} -> ${after.loss}`);
        const checksum = replica.checksum();
        replica.dispose();
        // The update never touches the tensor backend: the same bytes on pure-JS cpu as on wasm.
        await useBackend("cpu");
        const replay = await openRun(spec);
        const r = initialReplica(replay);
        for (const cs of log)
            r.applyIteration(replay.algorithm, cs);
        assert.equal(r.checksum(), checksum);
        r.dispose();
        await useBackend("wasm");
    });
    it("with sign fitness sends only -88, 0 or 88 and refuses any other byte", async () => {
        await useBackend("wasm");
        const run = await openRun(parseRunSpec({ ...tiny, algorithm: { ...tiny.algorithm, fitness: "sign" } }));
        const replica = initialReplica(run);
        const [author] = localAuthors(1);
        const payload = run.algorithm.contribute(replica, author);
        const bytes = Array.from(new Int8Array(payload.buffer));
        assert.ok(bytes.every((b) => b === 0 || Math.abs(b) === 88), `bytes ${bytes}`);
        assert.ok(bytes.some((b) => b !== 0));
        const spsa = run.algorithm;
        assert.equal(spsa.payloadProblem(payload), null);
        const bad = payload.slice();
        bad[3] = 90;
        assert.match(spsa.payloadProblem(bad) ?? "", /byte 90 is not a sign/);
        replica.dispose();
    });
});
//# sourceMappingURL=lowrank.test.js.map