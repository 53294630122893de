import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { DatasetError, featuresOf, fromIdx, sampleBatch, sliceBatch, } from "../../../training/data/dataset.js";
import { IdxError, parseIdx, readIdxFile } from "../../../training/data/idx.js";
import { idxContentHash, idxPathsIn, loadIdxDataset, loadMnist, MNIST_CONTENT_HASH, mnistPaths } from "../../../training/data/mnist.js";
import { syntheticDataset } from "../../../training/data/synthetic.js";
import { contributionSeed } from "../../../training/rng/seeds.js";
/** An IDX buffer with the given header fields and `dataLen` bytes of data (0, 1, 2, ...). */
function idxBuffer(type, dims, dataLen, magic = [0, 0]) {
    const buf = new Uint8Array(4 + 4 * dims.length + dataLen);
    const view = new DataView(buf.buffer);
    buf[0] = magic[0];
    buf[1] = magic[1];
    buf[2] = type;
    buf[3] = dims.length;
    for (const [i, d] of dims.entries())
        view.setUint32(4 + 4 * i, d, false);
    for (let i = 0; i < dataLen; i++)
        buf[4 + 4 * dims.length + i] = i & 0xff;
    return buf;
}
function assertIdxError(fn, code, source) {
    assert.throws(fn, (err) => {
        assert.ok(err instanceof IdxError, `expected IdxError, got ${String(err)}`);
        assert.equal(err.code, code);
        assert.ok(err.message.includes(source), `message should name ${source}: ${err.message}`);
        return true;
    });
}
describe("IDX parsing", () => {
    it("parses a valid unsigned-byte buffer", () => {
        const got = parseIdx(idxBuffer(0x08, [2, 3, 2], 12), "ok");
        assert.deepEqual(got.dims, [2, 3, 2]);
        assert.deepEqual(Array.from(got.data), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    });
    it("rejects a truncated header", () => {
        assertIdxError(() => parseIdx(new Uint8Array([0, 0]), "short"), "IDX_TRUNCATED", "short");
        const full = idxBuffer(0x08, [5, 4, 4], 80);
        assertIdxError(() => parseIdx(full.subarray(0, 10), "hdr"), "IDX_TRUNCATED", "hdr");
    });
    it("rejects truncated data and names the expected size", () => {
        const full = idxBuffer(0x08, [10, 28, 28], 7840);
        assertIdxError(() => parseIdx(full.subarray(0, full.length - 1), "t10k-images"), "IDX_TRUNCATED", "t10k-images");
        assert.throws(() => parseIdx(full.subarray(0, 16 + 123), "t10k-images"), /10x28x28 = 7840 bytes, file has 123/);
    });
    it("rejects trailing bytes", () => {
        assertIdxError(() => parseIdx(idxBuffer(0x08, [4], 5), "trail"), "IDX_SIZE_MISMATCH", "trail");
    });
    it("rejects bad magic bytes", () => {
        assertIdxError(() => parseIdx(idxBuffer(0x08, [4], 4, [0x1f, 0x8b]), "gz"), "IDX_BAD_MAGIC", "gz");
    });
    it("rejects unsupported element types", () => {
        assertIdxError(() => parseIdx(idxBuffer(0x0d, [4], 16), "floats"), "IDX_UNSUPPORTED_TYPE", "floats");
    });
    it("rejects zero, missing or too many dimensions", () => {
        assertIdxError(() => parseIdx(idxBuffer(0x08, [0, 28, 28], 0), "zero"), "IDX_BAD_DIMS", "zero");
        assertIdxError(() => parseIdx(idxBuffer(0x08, [], 0), "nodims"), "IDX_BAD_DIMS", "nodims");
        assertIdxError(() => parseIdx(idxBuffer(0x08, [1, 1, 1, 1, 1], 1), "5d"), "IDX_BAD_DIMS", "5d");
        assertIdxError(() => parseIdx(idxBuffer(0x08, [0xffffffff, 0xffffffff], 0), "huge"), "IDX_BAD_DIMS", "huge");
    });
    it("reports a missing file as IDX_READ_FAILED naming the path", async () => {
        const path = join("/nonexistent", "seedswarm", "missing-idx1-ubyte");
        await assert.rejects(readIdxFile(path), (err) => {
            assert.ok(err instanceof IdxError);
            assert.equal(err.code, "IDX_READ_FAILED");
            assert.ok(err.message.includes(path));
            return true;
        });
    });
});
describe("fromIdx", () => {
    it("scales bytes to [0, 1] and keeps labels", () => {
        const images = { dims: [2, 1, 2], data: new Uint8Array([0, 255, 51, 102]) };
        const labels = { dims: [2], data: new Uint8Array([1, 0]) };
        const s = fromIdx("tiny", images, labels, 2);
        assert.equal(s.n, 2);
        assert.deepEqual(Array.from(s.x), [0, 1, Math.fround(0.2), Math.fround(0.4)]);
        assert.deepEqual(Array.from(s.y), [1, 0]);
    });
    it("rejects count mismatches and out-of-range labels", () => {
        const images = { dims: [2, 1, 1], data: new Uint8Array([0, 1]) };
        assert.throws(() => fromIdx("tiny", images, { dims: [3], data: new Uint8Array(3) }, 10), (e) => e instanceof DatasetError && e.code === "DATASET_MISMATCH" && /2 .*3/.test(e.message));
        assert.throws(() => fromIdx("tiny", images, { dims: [2], data: new Uint8Array([0, 10]) }, 10), (e) => e instanceof DatasetError && e.code === "DATASET_BAD_LABEL");
    });
});
describe("MNIST", () => {
    let ds;
    before(async () => {
        ds = await loadMnist();
    });
    it("has the standard sizes and shape", () => {
        assert.equal(ds.train.n, 60000);
        assert.equal(ds.test.n, 10000);
        assert.deepEqual(ds.inputShape, [28, 28, 1]);
        assert.equal(ds.classes, 10);
        assert.equal(featuresOf(ds), 784);
        assert.equal(ds.train.x.length, 60000 * 784);
        assert.equal(ds.test.x.length, 10000 * 784);
    });
    it("has pixels in [0, 1] and labels below 10 with plausible counts", () => {
        for (const s of [ds.train, ds.test]) {
            let lo = Infinity;
            let hi = -Infinity;
            for (const v of s.x) {
                if (v < lo)
                    lo = v;
                if (v > hi)
                    hi = v;
            }
            assert.equal(lo, 0);
            assert.equal(hi, 1);
            for (const l of s.y)
                assert.ok(l < 10);
        }
        const counts = new Array(10).fill(0);
        for (const l of ds.train.y)
            counts[l]++;
        for (const c of counts)
            assert.ok(c >= 5000 && c <= 7000, `class counts ${counts}`);
    });
    it("starts with the standard labels", () => {
        assert.equal(ds.train.y[0], 5);
        assert.equal(ds.test.y[0], 7);
    });
});
describe("datasets named by content", () => {
    it("MNIST is the pinned bytes: the hash of the installed files is MNIST_CONTENT_HASH", async () => {
        assert.equal(await idxContentHash(mnistPaths()), MNIST_CONTENT_HASH);
    });
    it("an IDX directory loads only when its four files hash to the run's contentHash; one changed byte is refused by name", async () => {
        const dir = await mkdtemp(join(tmpdir(), "seedswarm-idx-"));
        try {
            const paths = idxPathsIn(dir);
            const files = [
                [paths.trainImages, idxBuffer(0x08, [6, 2, 2], 24)],
                [paths.trainLabels, Uint8Array.of(0, 0, 0x08, 1, 0, 0, 0, 6, 0, 1, 0, 1, 0, 1)],
                [paths.testImages, idxBuffer(0x08, [2, 2, 2], 8)],
                [paths.testLabels, Uint8Array.of(0, 0, 0x08, 1, 0, 0, 0, 2, 1, 0)],
            ];
            for (const [p, b] of files)
                await writeFile(p, b);
            // The hash a spec names: SHA-256 of the four files' bytes in order (what `cat ... | sha256sum` gives).
            const expected = createHash("sha256").update(Buffer.concat(files.map(([, b]) => b))).digest("hex");
            assert.equal(await idxContentHash(paths), expected);
            const ds = await loadIdxDataset(paths, "idx", expected);
            assert.equal(ds.train.n, 6);
            assert.equal(ds.classes, 2);
            const changed = Uint8Array.from(files[0][1]);
            changed[changed.length - 1] ^= 1;
            await writeFile(paths.trainImages, changed);
            await assert.rejects(loadIdxDataset(paths, "idx", expected), (err) => {
                assert.ok(err instanceof DatasetError);
                assert.equal(err.code, "DATASET_HASH_MISMATCH");
                assert.ok(err.message.includes(expected) && err.message.includes(dir), err.message);
                return true;
            });
        }
        finally {
            await rm(dir, { recursive: true, force: true });
        }
    });
});
describe("batches", () => {
    const author = { id: "12D3KooWabc", joinedAt: 1700000000000 };
    const features = 3;
    // Row i holds i in every feature, so a batch row reveals the index it was drawn from.
    const n = 1000;
    const split = {
        x: Float32Array.from({ length: n * features }, (_, i) => Math.floor(i / features)),
        y: Uint8Array.from({ length: n }, (_, i) => i % 7),
        n,
    };
    it("sampleBatch is deterministic per seed and draws rows in range", () => {
        const a = sampleBatch(split, features, contributionSeed("run", 3, author, 0), 64);
        const b = sampleBatch(split, features, contributionSeed("run", 3, author, 0), 64);
        const c = sampleBatch(split, features, contributionSeed("run", 3, author, 1), 64);
        assert.equal(a.size, 64);
        assert.deepEqual(a.x, b.x);
        assert.deepEqual(a.y, b.y);
        assert.notDeepEqual(a.x, c.x);
        for (let i = 0; i < a.size; i++) {
            const r = a.x[i * features];
            assert.ok(Number.isInteger(r) && r >= 0 && r < n);
            assert.equal(a.x[i * features + 2], r);
            assert.equal(a.y[i], r % 7);
        }
    });
    it("sampleBatch into a given array draws the same rows, as a view that the next draw overwrites", () => {
        const seed = contributionSeed("run", 3, author, 0);
        const fresh = sampleBatch(split, features, seed, 64);
        const into = new Float32Array(70 * features).fill(-1);
        const a = sampleBatch(split, features, seed, 64, into);
        assert.deepEqual(a.x, fresh.x);
        assert.deepEqual(a.y, fresh.y);
        assert.equal(a.x.buffer, into.buffer);
        assert.equal(a.x.length, 64 * features);
        assert.equal(into[64 * features], -1, "nothing past the batch is written");
        const b = sampleBatch(split, features, contributionSeed("run", 3, author, 1), 64, into);
        assert.deepEqual(a.x, b.x, "the earlier batch's rows are gone: callers copy them away first");
        assert.deepEqual(a.y, fresh.y, "labels are never shared");
        assert.throws(() => sampleBatch(split, features, seed, 64, new Float32Array(64 * features - 1)), (err) => err instanceof DatasetError && err.code === "DATASET_BAD_ARGUMENT");
    });
    it("sliceBatch returns consecutive rows and clips at the end", () => {
        const s = sliceBatch(split, features, 10, 5);
        assert.equal(s.size, 5);
        assert.deepEqual(Array.from(s.y), [3, 4, 5, 6, 0]);
        assert.equal(s.x[0], 10);
        const tail = sliceBatch(split, features, 990, 100);
        assert.equal(tail.size, 10);
        assert.equal(tail.x.length, 10 * features);
        assert.equal(tail.x[tail.x.length - 1], 999);
        assert.equal(sliceBatch(split, features, n, 10).size, 0);
    });
    it("rejects a features count that does not fit the split", () => {
        assert.throws(() => sampleBatch(split, 4, contributionSeed("run", 0, author, 0), 8), DatasetError);
    });
});
describe("synthetic dataset", () => {
    const opts = { features: 32, classes: 4, trainSize: 400, testSize: 200, seed: 7 };
    it("is deterministic and depends on the seed", () => {
        const a = syntheticDataset(opts);
        const b = syntheticDataset(opts);
        assert.deepEqual(a.train.x, b.train.x);
        assert.deepEqual(a.train.y, b.train.y);
        assert.deepEqual(a.test.x, b.test.x);
        assert.notDeepEqual(syntheticDataset({ ...opts, seed: 8 }).train.x, a.train.x);
        assert.deepEqual(a.inputShape, [32, 1, 1]);
        assert.equal(featuresOf(a), 32);
    });
    it("has every class, values in [0, 1], and is learnable by nearest centroid", () => {
        const ds = syntheticDataset(opts);
        const f = opts.features;
        for (const s of [ds.train, ds.test]) {
            assert.deepEqual(new Set(s.y), new Set([0, 1, 2, 3]));
            for (const v of s.x)
                assert.ok(v >= 0 && v <= 1);
        }
        const centroids = Array.from({ length: opts.classes }, () => new Float64Array(f));
        for (let i = 0; i < ds.train.n; i++) {
            for (let j = 0; j < f; j++)
                centroids[ds.train.y[i]][j] += ds.train.x[i * f + j];
        }
        let correct = 0;
        for (let i = 0; i < ds.test.n; i++) {
            let best = -1;
            let bestD = Infinity;
            centroids.forEach((c, k) => {
                let d = 0;
                for (let j = 0; j < f; j++)
                    d += (ds.test.x[i * f + j] - c[j] / (ds.train.n / opts.classes)) ** 2;
                if (d < bestD) {
                    bestD = d;
                    best = k;
                }
            });
            if (best === ds.test.y[i])
                correct++;
        }
        assert.ok(correct / ds.test.n > 0.9, `nearest-centroid accuracy ${correct / ds.test.n}`);
    });
});
//# sourceMappingURL=data.test.js.map