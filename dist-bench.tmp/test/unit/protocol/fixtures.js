/** Shared values of the protocol tests: run ids, peer id multihashes, a WireError assertion. */
import assert from "node:assert/strict";
import { WireError } from "../../../protocol/errors.js";
export const RUN = "0123456789abcdef".repeat(4);
export const OTHER_RUN = "f".repeat(64);
export function filled(n, v) {
    return new Uint8Array(n).fill(v);
}
/** An Ed25519-style identity peer id (36 bytes of key) and a sha2-256 one. */
export const PEER_A = Uint8Array.of(0x00, 36, ...filled(36, 1));
export const PEER_B = Uint8Array.of(0x12, 32, ...filled(32, 2));
export function throwsWire(fn, code) {
    assert.throws(fn, (err) => {
        assert.ok(err instanceof WireError, `expected WireError, got ${String(err)}`);
        assert.equal(err.code, code, err.message);
        return true;
    });
}
//# sourceMappingURL=fixtures.js.map