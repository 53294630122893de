import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localAuthors, localIteration } from "../../../node/local/local-trainer.js";
import { PRESETS } from "../../../protocol/presets.js";
import { algorithmOf, parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { evaluate } from "../../../training/evaluate.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
import { lrScale } from "../../../training/schedule.js";
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
describe("SPSA with one-byte gradients", () => {
    it("lowers the loss on synthetic data in a few seconds", async () => {
        await useBackend("wasm");
        const run = await openRun(spec);
        const replica = initialReplica(run);
        const before = evaluate(run.model, replica.backend.tensors, run.dataset.train);
        const authors = localAuthors(2);
        const t0 = performance.now();
        while (replica.iteration < 150)
            localIteration(run, replica, authors);
        const after = evaluate(run.model, replica.backend.tensors, run.dataset.train);
        const test = evaluate(run.model, replica.backend.tensors, run.dataset.test);
        assert.ok(after.loss < 0.6 * before.loss, `loss ${before.loss} -> ${after.loss}`);
        assert.ok(test.accuracy > 0.8, `test accuracy ${test.accuracy}`);
        assert.ok(performance.now() - t0 < 60_000);
        replica.dispose();
    });
    it("apply is order-independent of input order, and rejects malformed payloads", async () => {
        await useBackend("wasm");
        const run = await openRun(spec);
        const a = initialReplica(run);
        const b = initialReplica(run);
        const authors = localAuthors(3);
        const cs = authors.map((author) => ({
            author,
            payload: run.algorithm.contribute(a, author),
        }));
        a.applyIteration(run.algorithm, cs);
        b.applyIteration(run.algorithm, [cs[2], cs[0], cs[1]]);
        assert.equal(a.checksum(), b.checksum());
        const spsa = run.algorithm;
        assert.match(spsa.payloadProblem(new Uint8Array(3)) ?? "", /3 bytes, the run needs 8/);
        assert.match(spsa.payloadProblem(new Uint8Array(8).fill(0x80)) ?? "", /-128/);
        const w = a.weights.slice();
        assert.throws(() => run.algorithm.apply(w, 1, [{ author: authors[0], payload: new Uint8Array(2) }]), /needs 8/);
        assert.throws(() => a.applyIteration(run.algorithm, [cs[0], cs[0]]), /two contributions from author/);
        a.dispose();
        b.dispose();
    });
    it("a zero byte leaves the weights unchanged; a non-zero one moves every weight by lr*g/m", async () => {
        await useBackend("wasm");
        const run = await openRun(spec);
        const r = initialReplica(run);
        const [author] = localAuthors(1);
        const w0 = r.weights.slice();
        run.algorithm.apply(r.weights, 0, [{ author, payload: new Uint8Array(8) }]);
        assert.deepEqual(r.weights, w0);
        const payload = new Uint8Array(8);
        payload[0] = 88; // dequantizes to exactly 1
        run.algorithm.apply(r.weights, 0, [{ author, payload }]);
        const step = Math.fround(Math.fround(-algorithmOf(spec, "spsa").schedule.lr) / 8);
        let moved = 0;
        for (let i = 0; i < w0.length; i++) {
            const d = Math.abs(r.weights[i] - w0[i]);
            if (d > 0)
                moved += 1;
            assert.ok(Math.abs(d - Math.abs(step)) < 1e-6, `weight ${i} moved by ${d}`);
        }
        assert.equal(moved, w0.length);
        r.dispose();
    });
});
describe("learning-rate scaling with the bytes of a commit", () => {
    it("is 1, sqrt(m / k) or m / k, capped, in float32", () => {
        assert.equal(lrScale(undefined, 64, 16), 1);
        assert.equal(lrScale({ rule: "none" }, 64, 16), 1);
        assert.equal(lrScale({ rule: "sqrt" }, 64, 16), 2);
        assert.equal(lrScale({ rule: "sqrt" }, 32, 16), Math.fround(Math.SQRT2));
        assert.equal(lrScale({ rule: "linear" }, 48, 16), 3);
        assert.equal(lrScale({ rule: "linear", cap: 2.5 }, 48, 16), 2.5);
        assert.equal(lrScale({ rule: "linear" }, 8, 16), 0.5);
    });
    it("is declared in the RunSpec; the default spelled out is the same run", () => {
        const base = PRESETS["tiny-spsa"];
        const with_ = (lrScaling) => parseRunSpec({ ...base, algorithm: { ...base.algorithm, lrScaling } });
        assert.equal(runIdOf(with_({ rule: "none" })), runIdOf(parseRunSpec(base)));
        assert.notEqual(runIdOf(with_({ rule: "sqrt" })), runIdOf(parseRunSpec(base)));
        assert.throws(() => with_({ rule: "cube" }), /lrScaling.rule/);
        assert.throws(() => with_({ rule: "linear", cap: 0.5 }), /lrScaling.cap/);
    });
    it("a linear rule moves two authors' weights twice as far as none", async () => {
        await useBackend("wasm");
        const base = PRESETS["tiny-spsa"];
        const { lr } = base.algorithm.schedule;
        const r5 = (x) => Math.round(x * 1e5) / 1e5;
        // Two authors, byte 1.0 each at index 0: a weight moves by lr_eff * (z1 + z2) / 16.
        const steps = async (lrScaling) => {
            const s = parseRunSpec({ ...base, algorithm: { ...base.algorithm, ...(lrScaling ? { lrScaling } : {}) } });
            const run = await openRun(s);
            const r = initialReplica(run);
            const w0 = r.weights.slice();
            const payload = new Uint8Array(8);
            payload[0] = 88;
            run.algorithm.apply(r.weights, 0, localAuthors(2).map((author) => ({ author, payload })));
            const d = new Set(Array.from(r.weights, (w, i) => r5(Math.abs(w - w0[i]))));
            r.dispose();
            return [...d].sort();
        };
        assert.deepEqual(await steps(), [0, r5((2 * lr) / 16)]);
        assert.deepEqual(await steps({ rule: "linear" }), [0, r5((4 * lr) / 16)]);
        assert.deepEqual(await steps({ rule: "linear", cap: 1.5 }), [0, r5((3 * lr) / 16)]);
    });
});
//# sourceMappingURL=spsa.test.js.map