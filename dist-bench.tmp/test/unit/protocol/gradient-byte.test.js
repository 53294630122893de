import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dequantizeGradient, GRADIENT_BYTE_MAX, GRADIENT_BYTE_MIN, isValidGradientPayload, quantizeGradient, } from "../../../protocol/gradient-byte.js";
describe("one-byte gradient codec", () => {
    it("round-trips every byte exactly", () => {
        for (let b = -127; b <= 127; b++)
            assert.equal(quantizeGradient(dequantizeGradient(b)), b);
    });
    it("keeps relative error within 2^(1/16) - 1 over the whole range", () => {
        const bound = 2 ** (1 / 16) - 1 + 1e-6;
        let worst = 0;
        for (let e = Math.log2(GRADIENT_BYTE_MIN); e <= Math.log2(GRADIENT_BYTE_MAX); e += 0.01) {
            for (const sign of [1, -1]) {
                const g = sign * 2 ** e;
                const back = dequantizeGradient(quantizeGradient(g));
                assert.equal(Math.sign(back), sign);
                worst = Math.max(worst, Math.abs(back - g) / Math.abs(g));
            }
        }
        assert.ok(worst <= bound, `worst relative error ${worst}`);
        assert.ok(worst > 0.04, "the bound should be nearly reached");
    });
    it("dequantized values are float32 and powers of 2^(1/8)", () => {
        for (let b = 1; b <= 127; b++) {
            const v = dequantizeGradient(b);
            assert.equal(Math.fround(v), v);
            assert.equal(dequantizeGradient(-b), -v);
            assert.ok(Math.abs(Math.log2(v) * 8 - (b - 88)) < 1e-5);
        }
        assert.equal(dequantizeGradient(88), 1);
        assert.equal(dequantizeGradient(96), 2);
        assert.equal(dequantizeGradient(0), 0);
    });
    it("handles NaN, infinities, zero and out-of-range values", () => {
        assert.equal(quantizeGradient(Number.NaN), 0);
        assert.equal(quantizeGradient(0), 0);
        assert.equal(quantizeGradient(-0), 0);
        assert.equal(quantizeGradient(Number.POSITIVE_INFINITY), 127);
        assert.equal(quantizeGradient(Number.NEGATIVE_INFINITY), -127);
        assert.equal(quantizeGradient(1e30), 127);
        assert.equal(quantizeGradient(-1e30), -127);
        assert.equal(quantizeGradient(1e-30), 0);
        assert.equal(quantizeGradient(-GRADIENT_BYTE_MIN / 4), 0);
    });
    it("rejects the invalid byte -128 and non-integers", () => {
        assert.throws(() => dequantizeGradient(-128), RangeError);
        assert.throws(() => dequantizeGradient(128), RangeError);
        assert.throws(() => dequantizeGradient(1.5), RangeError);
        assert.equal(isValidGradientPayload(new Int8Array([1, -127, 0])), true);
        assert.equal(isValidGradientPayload(new Int8Array([1, -128])), false);
    });
});
//# sourceMappingURL=gradient-byte.test.js.map