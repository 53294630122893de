import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { StateBytesError, stateFromBytes } from "../../../training/state-bytes.js";
describe("state bytes of a transformer run", () => {
    const spec = parseRunSpec(PRESETS["tiny-lm"]);
    const weights = Float32Array.from({ length: 10 }, (_, i) => i / 4);
    const bytes = new Uint8Array(weights.buffer);
    it("decodes a state of the layout's length", () => {
        assert.deepEqual(stateFromBytes(spec.model, bytes, 10), weights);
    });
    it("refuses a state of another length (a peer's truncated or padded snapshot), or with no length to check", () => {
        for (const [b, n] of [
            [bytes.subarray(4), 10],
            [bytes, 11],
            [bytes.subarray(0, 38), 10],
        ])
            assert.throws(() => stateFromBytes(spec.model, b, n), StateBytesError);
        assert.throws(() => stateFromBytes(spec.model, bytes), StateBytesError);
    });
});
//# sourceMappingURL=state-bytes.test.js.map