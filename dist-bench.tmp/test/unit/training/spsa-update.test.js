import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SpsaKernels } from "../../../training/algorithms/spsa-kernels.js";
import { applyUpdateJs, planPasses, planUpdate, perturbJs, perturbTensorJs, signWords, } from "../../../training/algorithms/spsa-update.js";
import { dequantizeGradient } from "../../../protocol/gradient-byte.js";
import { rademacherBits } from "../../../training/rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../../../training/rng/seeds.js";
import { bytesOf, layoutWith, stepsFor, weightsFor } from "../../helpers/spsa-inputs.js";
const kernels = new SpsaKernels(1 << 16);
describe("Philox sign words: WebAssembly = JavaScript", () => {
    it("matches the Random123 known answer for counter 0, key 0", () => {
        const w = kernels.philoxWords({ k0: 0, k1: 0, c2: 0, c3: 0 }, 0, 4);
        assert.deepEqual([...w].map((x) => x.toString(16).padStart(8, "0")), ["6627e8d5", "e169c58d", "bc57ac4c", "9b00dbd8"]);
    });
    it("gives the words of rademacherBits, from any block, for any length", () => {
        for (const words of [1, 3, 4, 5, 15, 17, 64, 131]) {
            const seed = seedFrom("test/philox", [words]);
            const id = streamOf(seed, Purpose.Noise, words % 5);
            const ref = rademacherBits(id, 32 * words + 100, new Uint32Array(words + 4));
            assert.deepEqual(kernels.philoxWords(id, 0, words), ref.subarray(0, words));
            const js = new Uint32Array(words);
            signWords(seed, words % 5, 1, words, js);
            assert.deepEqual(kernels.philoxWords(id, 1, words), js);
            if (words > 4)
                assert.deepEqual(js.subarray(0, words - 4), ref.subarray(4, words));
        }
    });
});
describe("canonical SPSA update: WebAssembly = JavaScript reference", () => {
    const SIZES = [[1], [3, 31, 33], [127, 129, 4095], [4097, 17], [8200, 5], [16, 32, 128, 4096]];
    const MS = [1, 2, 3, 5, 48, 200, 1024];
    for (const [si, sizes] of SIZES.entries()) {
        for (const m of MS) {
            const n = sizes.reduce((a, b) => a + b, 0);
            if (m === 1024 && n > 5000)
                continue; // the JS reference at m = 1024 is slow on big layouts
            it(`tensors [${sizes.join(", ")}], m = ${m}`, () => {
                const layout = layoutWith(sizes);
                const w0 = weightsFor(`w${si}`, n);
                const plans = planUpdate(stepsFor(`s${si}.${m}`, m), m, 1e-3 * (si + 1));
                const js = w0.slice();
                applyUpdateJs(js, layout, plans);
                const streamed = w0.slice();
                kernels.apply(streamed, layout, plans);
                assert.ok(bytesOf(js).equals(bytesOf(streamed)), "streamed wasm != js");
                const inPlace = kernels.arena.subarray(7, 7 + n);
                inPlace.set(w0);
                kernels.apply(inPlace, layout, plans);
                assert.ok(bytesOf(js).equals(bytesOf(inPlace)), "in-place wasm != js");
                let moved = 0;
                for (let i = 0; i < n; i++)
                    if (js[i] !== w0[i])
                        moved++;
                assert.ok(moved > 0.9 * n, `only ${moved} of ${n} weights moved`);
            });
        }
    }
    it("rounds a class sum beyond 2^24 to float32 the same way (1,024 steps on one direction)", () => {
        const layout = layoutWith([300]);
        const seed = seedFrom("test/spsa-update", ["one direction"]);
        // |b| = 127 and |b| = 7 share class 7: S = +/-(1023 * 2^15 + 1), 25 significant bits.
        const steps = Array.from({ length: 1024 }, (_, q) => ({ seed, byte: q === 0 ? 7 : 127 }));
        const plans = planUpdate(steps, 1024, 0.5);
        const w0 = weightsFor("big", 300);
        const js = w0.slice();
        applyUpdateJs(js, layout, plans);
        const wasm = w0.slice();
        kernels.apply(wasm, layout, plans);
        assert.ok(bytesOf(js).equals(bytesOf(wasm)));
        const f = Math.fround;
        const z = rademacherBits(streamOf(seed, Purpose.Noise, 0), 300, new Uint32Array(10));
        const coef = plans[0].coef;
        for (const i of [0, 5, 299]) {
            const s = ((z[i >>> 5] >>> (i & 31)) & 1 ? 1 : -1) * (1023 * 2 ** 15 + 1);
            assert.notEqual(f(s), s);
            assert.equal(js[i], f(w0[i] + f(-0 + f(f(s) * coef))));
        }
    });
    it("cuts more than 1,024 non-zero bytes into passes of 1,024 (wasm = JS)", () => {
        const layout = layoutWith([333]);
        const steps = stepsFor("passes", 1500);
        const passes = planPasses(steps, 1500, 1e-3);
        const nonZero = steps.filter((s) => s.byte !== 0).length;
        assert.deepEqual(passes.map((p) => p.reduce((a, c) => a + c.steps.length, 0)), [1024, nonZero - 1024]);
        const w0 = weightsFor("passes", 333);
        const js = w0.slice();
        const wasm = w0.slice();
        for (const p of passes) {
            applyUpdateJs(js, layout, p);
            kernels.apply(wasm, layout, p);
        }
        assert.ok(bytesOf(js).equals(bytesOf(wasm)));
        assert.throws(() => planUpdate(steps, 1500, 1e-3), /at most 1024/);
    });
    it("is exact: a byte and its negation on one direction cancel to the same bytes", () => {
        const layout = layoutWith([1000, 77]);
        const w0 = weightsFor("cancel", 1077);
        const seed = seedFrom("test/spsa-update", ["cancel"]);
        const steps = [
            { seed, byte: 127 },
            { seed: seedFrom("test/spsa-update", ["other"]), byte: 0 },
            { seed, byte: -127 },
            { seed, byte: 3 },
            { seed, byte: -3 },
        ];
        for (const apply of [
            (w) => applyUpdateJs(w, layout, planUpdate(steps, 5, 1e-2)),
            (w) => kernels.apply(w, layout, planUpdate(steps, 5, 1e-2)),
        ]) {
            const w = w0.slice();
            apply(w);
            assert.ok(bytesOf(w).equals(bytesOf(w0)));
        }
    });
    it("does not depend on the order of the bytes", () => {
        const layout = layoutWith([513]);
        const steps = stepsFor("order", 40);
        const a = weightsFor("order", 513);
        const b = a.slice();
        applyUpdateJs(a, layout, planUpdate(steps, 40, 1e-3));
        kernels.apply(b, layout, planUpdate([...steps].reverse(), 40, 1e-3));
        assert.ok(bytesOf(a).equals(bytesOf(b)));
    });
    it("one byte moves each weight by exactly -lr * dequant(b) * z / m, rounded once", () => {
        const layout = layoutWith([200]);
        const seed = seedFrom("test/spsa-update", ["single"]);
        const w0 = weightsFor("single", 200);
        const w = w0.slice();
        const lr = 0.01;
        const m = 4;
        kernels.apply(w, layout, planUpdate([{ seed, byte: -93 }], m, lr));
        const z = rademacherBits(streamOf(seed, Purpose.Noise, 0), 200, new Uint32Array(7));
        const f = Math.fround;
        const step = f(f(-lr * dequantizeGradient(-93)) / m);
        for (let i = 0; i < 200; i++) {
            const zi = (z[i >>> 5] >>> (i & 31)) & 1 ? 1 : -1;
            assert.equal(w[i], f(w0[i] + zi * step), `weight ${i}`);
        }
    });
});
describe("small language-model steps and float32 (MeZO's rates)", () => {
    it("OPT-13B's lr 1e-7 over a 16-byte commit moves every matrix-sized weight (|w| ~ 0.02) and rounds away a norm gain's (w = 1)", () => {
        // 16 bytes of |g| ~ 1 (byte 88): the commit's summed step is 1e-7 * (sum of 16 signs) / 16 per weight.
        const n = 4096;
        const layout = layoutWith([n]);
        const steps = Array.from({ length: 16 }, (_, j) => ({ seed: seedFrom("test/small-steps", [j]), byte: j % 2 ? 88 : -88 }));
        const plan = planUpdate(steps, 16, 1e-7);
        const matrix = new Float32Array(n).fill(Math.fround(0.02));
        const gains = new Float32Array(n).fill(1);
        const m = matrix.slice();
        const g = gains.slice();
        kernels.apply(m, layout, plan);
        kernels.apply(g, layout, plan);
        // A weight whose 16 signs do not cancel moves by >= 2 * 1e-7 / 16 = 1.25e-8, ~6 ulps of 0.02 (2^-29 = 1.9e-9).
        const zs = steps.map((s) => rademacherBits(streamOf(s.seed, Purpose.Noise, 0), n, new Uint32Array(n / 32)));
        let moved = 0;
        let shouldMove = 0;
        let gainsMoved = 0;
        let gainsAboveHalfUlp = 0;
        for (let i = 0; i < n; i++) {
            const sum = zs.reduce((acc, z, j) => acc + (((z[i >>> 5] >>> (i & 31)) & 1 ? 1 : -1) * (j % 2 ? 1 : -1)), 0);
            if (sum !== 0)
                shouldMove++;
            if (m[i] !== matrix[i])
                moved++;
            if (g[i] !== 1)
                gainsMoved++;
            // Half an ulp of 1 is 2^-24 upward and 2^-25 downward.
            const step = (-1e-7 * sum) / 16;
            if (step > 2 ** -24 || step < -(2 ** -25))
                gainsAboveHalfUlp++;
        }
        assert.equal(moved, shouldMove, "every weight with a non-zero summed step moved");
        assert.ok(shouldMove > n / 2);
        // A gain moves only when its summed step passes half an ulp of 1: most of this rate's steps are rounded away.
        assert.equal(gainsMoved, gainsAboveHalfUlp);
        assert.ok(gainsMoved < shouldMove / 4, `${gainsMoved} of ${n} gains moved`);
    });
});
describe("seeded perturbation: WebAssembly = JavaScript reference", () => {
    for (const sizes of [[1], [5, 33, 129], [4097, 4096, 3], [20000]]) {
        it(`tensors [${sizes.join(", ")}]`, () => {
            const layout = layoutWith(sizes);
            const n = layout.size;
            const w = weightsFor(`p${n}`, n);
            const seed = seedFrom("test/perturb", [n]);
            const eps = Math.fround(1e-3);
            for (const sign of [1, -1]) {
                const js = new Float32Array(n);
                perturbJs(js, w, layout, seed, eps, sign);
                const streamed = new Float32Array(n);
                kernels.perturb(streamed, w, layout, seed, eps, sign);
                assert.ok(bytesOf(js).equals(bytesOf(streamed)));
                const cw = kernels.arena.subarray(0, n);
                const out = kernels.arena.subarray(n + 3, 2 * n + 3);
                cw.set(w);
                kernels.perturb(out, cw, layout, seed, eps, sign);
                assert.ok(bytesOf(js).equals(bytesOf(out)));
                // One tensor at a time into a tensor-sized buffer (what a forward pass uploads), both ways.
                for (const [ti, t] of layout.tensors.entries()) {
                    const one = new Float32Array(t.size);
                    kernels.perturbTensor(one, 0, w, t, ti, seed, eps, sign);
                    assert.ok(bytesOf(one).equals(bytesOf(js.subarray(t.offset, t.offset + t.size))), `wasm tensor ${ti}`);
                    one.fill(0);
                    perturbTensorJs(one, w, t, ti, seed, eps, sign, 0);
                    assert.ok(bytesOf(one).equals(bytesOf(js.subarray(t.offset, t.offset + t.size))), `js tensor ${ti}`);
                }
                // The direction is the stream rademacherBits gives each tensor.
                for (const [ti, t] of layout.tensors.entries()) {
                    const z = rademacherBits(streamOf(seed, Purpose.Noise, ti), t.size, new Uint32Array(Math.ceil(t.size / 32)));
                    for (const i of [0, t.size - 1, t.size >>> 1]) {
                        const zi = (z[i >>> 5] >>> (i & 31)) & 1 ? 1 : -1;
                        assert.equal(js[t.offset + i], Math.fround(w[t.offset + i] + sign * zi * eps));
                    }
                }
            }
        });
    }
});
//# sourceMappingURL=spsa-update.test.js.map