import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fillRademacher, fillUniform24, fillUniformInt, rademacherBits, } from "../../../training/rng/noise.js";
import { fillWords, philox4x32 } from "../../../training/rng/philox.js";
import { contributionSeed, contributionSeeds, Purpose, seedFrom, streamOf } from "../../../training/rng/seeds.js";
const hex = (a) => Array.from(a, (x) => x.toString(16).padStart(8, "0")).join(" ");
describe("Philox4x32-10", () => {
    // Random123 kat_vectors: counter[4] key[2] -> output[4].
    const KAT = [
        [[0, 0, 0, 0], [0, 0], "6627e8d5 e169c58d bc57ac4c 9b00dbd8"],
        [
            [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff],
            [0xffffffff, 0xffffffff],
            "408f276d 41c83b0e a20bc7c6 6d5451fd",
        ],
        [
            [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
            [0xa4093822, 0x299f31d0],
            "d16cfe09 94fdcceb 5001e420 24126ea1",
        ],
    ];
    for (const [c, k, want] of KAT) {
        it(`matches the known answer for key ${k.map((x) => x.toString(16)).join(",")}`, () => {
            const out = new Uint32Array(4);
            philox4x32(c[0], c[1], c[2], c[3], k[0], k[1], out);
            assert.equal(hex(out), want);
        });
    }
    it("reads the same words whatever the start offset", () => {
        const id = streamOf(seedFrom("t", [1]), Purpose.Noise, 3);
        const all = new Uint32Array(40);
        fillWords(id, all);
        const tail = new Uint32Array(33);
        fillWords(id, tail, 7);
        assert.deepEqual(tail, all.subarray(7));
    });
});
describe("seeds and streams", () => {
    const author = { id: "12D3KooWabc", joinedAt: 1700000000000 };
    it("same inputs give the same seed and stream", () => {
        const a = new Float32Array(1000);
        const b = new Float32Array(1000);
        fillUniform24(streamOf(contributionSeed("run", 5, author, 2), Purpose.Noise, 0), a);
        fillUniform24(streamOf(contributionSeed("run", 5, author, 2), Purpose.Noise, 0), b);
        assert.deepEqual(a, b);
    });
    it("every seed field changes the seed", () => {
        const base = contributionSeed("run", 5, author, 2);
        const variants = [
            contributionSeed("run2", 5, author, 2),
            contributionSeed("run", 6, author, 2),
            contributionSeed("run", 5, { ...author, id: "12D3KooWabd" }, 2),
            contributionSeed("run", 5, { ...author, joinedAt: author.joinedAt + 1 }, 2),
            contributionSeed("run", 5, author, 3),
        ];
        for (const v of variants)
            assert.notDeepEqual(v, base);
    });
    it("different tensors and purposes get different, uncorrelated streams", () => {
        const seed = contributionSeed("run", 1, author, 0);
        const n = 4096;
        const a = new Float32Array(n);
        const b = new Float32Array(n);
        const c = new Float32Array(n);
        fillRademacher(streamOf(seed, Purpose.Noise, 0), a);
        fillRademacher(streamOf(seed, Purpose.Noise, 1), b);
        fillRademacher(streamOf(seed, Purpose.Batch, 0), c);
        const corr = (x, y) => x.reduce((s, v, i) => s + v * y[i], 0) / n;
        assert.ok(Math.abs(corr(a, b)) < 0.06, `tensor streams correlate: ${corr(a, b)}`);
        assert.ok(Math.abs(corr(a, c)) < 0.06, `purpose streams correlate: ${corr(a, c)}`);
        assert.notDeepEqual(a, b);
    });
    it("Rademacher signs are +/-1, balanced, and agree with the packed bits", () => {
        const id = streamOf(seedFrom("t", [2]), Purpose.Noise, 0);
        const n = 10001;
        const s = new Float32Array(n);
        fillRademacher(id, s);
        const bits = rademacherBits(id, n, new Uint32Array(400));
        let sum = 0;
        for (let i = 0; i < n; i++) {
            assert.ok(s[i] === 1 || s[i] === -1);
            assert.equal(s[i] === 1, ((bits[i >>> 5] >>> (i & 31)) & 1) === 1);
            sum += s[i];
        }
        assert.ok(Math.abs(sum) < 4 * Math.sqrt(n), `unbalanced: ${sum}`);
    });
    it("uniform24 values are exact multiples of 2^-24 in [0, 1) with mean ~1/2", () => {
        const u = new Float32Array(20000);
        fillUniform24(streamOf(seedFrom("t", [3]), Purpose.Vendor, 0), u);
        let mean = 0;
        for (const v of u) {
            assert.ok(v >= 0 && v < 1);
            assert.ok(Number.isInteger(v * 16777216));
            mean += v / u.length;
        }
        assert.ok(Math.abs(mean - 0.5) < 0.01, `mean ${mean}`);
    });
    it("uniform ints stay in range and cover it", () => {
        const out = new Uint32Array(5000);
        fillUniformInt(streamOf(seedFrom("t", [4]), Purpose.Batch, 0), 10, out);
        const counts = new Array(10).fill(0);
        for (const v of out)
            counts[v] += 1;
        assert.ok(counts.every((c) => c > 400 && c < 600), counts.join(","));
    });
});
describe("contribution seeds", () => {
    it("contributionSeeds gives contributionSeed of every index, large fields included", () => {
        for (const author of [{ id: "peer-a", joinedAt: 0 }, { id: "12D3KooWx", joinedAt: 1_795_477_773_608 }]) {
            const seeds = contributionSeeds("run", 2 ** 40 + 7, author, 5);
            assert.deepEqual(seeds, [0, 1, 2, 3, 4].map((j) => contributionSeed("run", 2 ** 40 + 7, author, j)));
        }
        // Integers hash as u64 big-endian: this value was produced by the BigInt encoding before.
        assert.deepEqual(seedFrom("t", [2 ** 40 + 7, 0, 5, 1_795_477_773_608]), {
            k0: 1229380893,
            k1: 47634415,
            k2: 2855380988,
        });
    });
});
//# sourceMappingURL=rng.test.js.map