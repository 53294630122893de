import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkHttpExposure, isLoopback, parseHostPort } from "../../../cli/http-options.js";
describe("--http host:port", () => {
    it("parses IPv4, names and bracketed IPv6; port 0 only where allowed", () => {
        assert.deepEqual(parseHostPort("127.0.0.1:9090"), { host: "127.0.0.1", port: 9090 });
        assert.deepEqual(parseHostPort("localhost:0"), { host: "localhost", port: 0 });
        assert.deepEqual(parseHostPort("[::1]:65535"), { host: "::1", port: 65535 });
        assert.throws(() => parseHostPort("127.0.0.1:0", false), /port must be 1 to 65535, got 0/);
    });
    it("rejects what is not host:port, with the value in the message", () => {
        for (const bad of ["9090", "127.0.0.1", "127.0.0.1:", ":9090", "127.0.0.1:65536", "127.0.0.1:-1", "[nope]:1", "a b:1", "::1:9090"]) {
            assert.throws(() => parseHostPort(bad), (e) => /expected host:port|port must be|not an/.test(e.message), bad);
        }
    });
    it("refuses a public interface unless --http-public", () => {
        assert.ok(isLoopback("127.0.0.1") && isLoopback("127.8.9.1") && isLoopback("::1") && isLoopback("localhost"));
        assert.ok(!isLoopback("0.0.0.0") && !isLoopback("10.0.0.5") && !isLoopback("::") && !isLoopback("example.org"));
        assert.equal(checkHttpExposure(undefined, false), null);
        assert.deepEqual(checkHttpExposure({ host: "127.0.0.1", port: 1 }, false), { host: "127.0.0.1", port: 1 });
        assert.throws(() => checkHttpExposure({ host: "0.0.0.0", port: 9090 }, false), /add --http-public/);
        assert.deepEqual(checkHttpExposure({ host: "0.0.0.0", port: 9090 }, true), { host: "0.0.0.0", port: 9090 });
    });
});
//# sourceMappingURL=http-options.test.js.map