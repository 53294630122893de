import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dequantizeGradient } from "../../../protocol/gradient-byte.js";
import { decodeSparsePayload, encodeSparsePayload, SparsePayloadError, sparseValue, worstCaseSparseBytes, } from "../../../protocol/sparse-payload.js";
import { fillUniformInt } from "../../../training/rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../../../training/rng/seeds.js";
const limits = { maxBytes: 4096, maxEntries: 64, minIndex: 100, endIndex: 100_000 };
/** Deterministic random integers in [0, n). */
function ints(tag, count, n) {
    const out = new Uint32Array(count);
    fillUniformInt(streamOf(seedFrom(tag, []), Purpose.Noise), n, out);
    return out;
}
function throwsSparse(data, pattern, l = limits) {
    assert.throws(() => decodeSparsePayload(data, l), (err) => err instanceof SparsePayloadError && pattern.test(err.message));
}
/** Hand-built payload: scale, count, then raw (gap, byte) pairs. */
function raw(scale, count, ...entries) {
    const head = new Uint8Array(4);
    new DataView(head.buffer).setFloat32(0, scale, true);
    return Uint8Array.from([...head, ...count, ...entries.flat()]);
}
describe("sparse one-byte payload", () => {
    it("round-trips indices exactly and values to the byte's precision", () => {
        const indices = [100, 101, 250, 4000, 99_999];
        const values = [-3e-3, 1e-4, -7.5e-2, 2e-2, -1e-5];
        const p = decodeSparsePayload(encodeSparsePayload(indices, values), limits);
        assert.deepEqual([...p.indices], indices);
        const max = 7.5e-2;
        values.forEach((v, k) => {
            const got = sparseValue(p, k);
            assert.equal(got, Math.fround(p.scale * dequantizeGradient(p.bytes[k])));
            // 4.4% relative within the byte's range; below max / 5.5e4 the byte is 0.
            if (Math.abs(v) > max / 5e4)
                assert.ok(Math.abs(got - v) <= 0.045 * Math.abs(v), `${v} -> ${got}`);
            else
                assert.equal(got, 0);
        });
        assert.equal(p.bytes[2], -127, "the largest magnitude takes the top code");
    });
    it("an empty payload and all-zero values are valid", () => {
        assert.equal(decodeSparsePayload(encodeSparsePayload([], []), limits).indices.length, 0);
        const p = decodeSparsePayload(encodeSparsePayload([100, 200], [0, 0]), limits);
        assert.deepEqual([...p.bytes], [0, 0]);
    });
    it("rejects each malformation with a reason", () => {
        throwsSparse(new Uint8Array(4097), /4097 bytes, the limit is 4096/);
        throwsSparse(raw(1, [65]), /65 entries, the limit is 64/);
        throwsSparse(raw(1, [2], [100, 1], [0x80, 0x80]), /truncated varint/);
        throwsSparse(raw(1, [2], [100, 1], [0, 1]), /does not increase/);
        throwsSparse(raw(1, [1], [99, 1]), /index 99 outside 100\.\.99999/);
        throwsSparse(raw(1, [1], [0xa0, 0x8d, 0x06, 1]), /index 100000 outside/);
        throwsSparse(raw(1, [1], [100, 0x80]), /invalid byte -128/);
        throwsSparse(raw(1, [3], [100, 1], [1, 1]), /count 3 needs at least 6 bytes, 4 follow/);
        throwsSparse(raw(1, [1], [100, 1], [7]), /1 bytes after the 1 entries/);
        throwsSparse(raw(1, [2], [100, 1], [0x81, 0x01]), /entry 1 has no value byte/);
        throwsSparse(raw(Number.NaN, [0]), /scale NaN/);
        throwsSparse(raw(0, [0]), /scale 0/);
        throwsSparse(raw(-1, [0]), /scale -1/);
        throwsSparse(raw(1, [0x80, 0x00]), /non-minimal varint/);
        throwsSparse(raw(1, [0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), /longer than 5 bytes/);
        throwsSparse(Uint8Array.of(0, 0, 0x80), /shorter than a header/);
    });
    it("a huge count is refused before anything is allocated", () => {
        // count 2^32 - 1: refused by maxEntries; with a huge maxEntries, by the bytes that follow.
        const huge = raw(1, [0xff, 0xff, 0xff, 0xff, 0x0f]);
        throwsSparse(huge, /4294967295 entries/);
        throwsSparse(huge, /needs at least 8589934590 bytes/, { ...limits, maxEntries: 2 ** 32 });
    });
    it("the worst case bounds every payload of maxEntries entries", () => {
        for (const [n, end] of [
            [64, 128],
            [200, 300_000],
            [1000, 271_360],
        ]) {
            // n - 1 distinct random indices and the largest one (the widest varint).
            const pick = [...new Set(ints(`worst/${n}/${end}`, 4 * n, end - 1))].slice(0, n - 1).sort((a, b) => a - b);
            pick.push(end - 1);
            const bytes = encodeSparsePayload(pick, pick.map((_, k) => -(k + 1)));
            assert.ok(bytes.length <= worstCaseSparseBytes(n, end), `${bytes.length} > ${worstCaseSparseBytes(n, end)}`);
        }
        assert.equal(worstCaseSparseBytes(1000, 271_360), 4 + 2 + 1000 * 4);
    });
    it("fuzz: random bytes, truncations and mutations only ever throw SparsePayloadError", () => {
        const valid = encodeSparsePayload([100, 105, 300, 1000, 70_000], [-1, 0.5, -0.01, 2e-3, -3]);
        const cases = [];
        const r = ints("fuzz", 20_000, 256);
        let at = 0;
        const next = () => r[at++ % r.length];
        for (let i = 0; i < 300; i++) {
            const len = next() % 40;
            cases.push(Uint8Array.from({ length: len }, next));
        }
        for (let cut = 0; cut < valid.length; cut++)
            cases.push(valid.subarray(0, cut));
        for (let i = 0; i < valid.length; i++)
            for (const b of [0, 0x7f, 0x80, 0xff, next()]) {
                const m = valid.slice();
                m[i] = b;
                cases.push(m);
            }
        let accepted = 0;
        for (const c of cases) {
            try {
                const p = decodeSparsePayload(c, limits);
                accepted++;
                assert.ok(p.indices.length <= limits.maxEntries);
                for (let k = 0; k < p.indices.length; k++) {
                    assert.ok(p.indices[k] >= limits.minIndex && p.indices[k] < limits.endIndex);
                    if (k > 0)
                        assert.ok(p.indices[k] > p.indices[k - 1]);
                    assert.notEqual(p.bytes[k], -128);
                }
            }
            catch (err) {
                assert.ok(err instanceof SparsePayloadError, `unexpected ${String(err)}`);
            }
        }
        assert.ok(accepted > 0 && accepted < cases.length, `accepted ${accepted} of ${cases.length}`);
    });
});
//# sourceMappingURL=sparse-payload.test.js.map