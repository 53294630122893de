import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { KNOWN_PEERS_KEPT, readKnownPeers, writeKnownPeers } from "../../../node/store/known-peers.js";
const PEER = "12D3KooWCL1ECgLYTKkZPtNmmEaBj9BxndsieFHDRWouG2MTn8F6";
describe("known peers", () => {
    it("round trip: only addresses naming their peer, each once, at most KNOWN_PEERS_KEPT", async () => {
        const dir = mkdtempSync(join(tmpdir(), "seedswarm-known-"));
        const path = join(dir, "runs", "r", "peers.json");
        const a = `/ip4/127.0.0.1/tcp/4001/p2p/${PEER}`;
        await writeKnownPeers(path, [a, a, "/ip4/127.0.0.1/tcp/4002"]);
        assert.deepEqual(await readKnownPeers(path), [a]);
        const many = Array.from({ length: KNOWN_PEERS_KEPT + 5 }, (_, i) => `/ip4/10.0.0.1/tcp/${4000 + i}/p2p/${PEER}`);
        await writeKnownPeers(path, many);
        assert.deepEqual(await readKnownPeers(path), many.slice(0, KNOWN_PEERS_KEPT));
        rmSync(dir, { recursive: true, force: true });
    });
    it("a missing, torn or foreign file is no addresses, never an error (it is only a hint)", async () => {
        const dir = mkdtempSync(join(tmpdir(), "seedswarm-known-"));
        assert.deepEqual(await readKnownPeers(join(dir, "none.json")), []);
        for (const text of ['["/ip4/1.2.3.4/tcp/1/p2p/', "{}", `[1, null, "/ip4/1.2.3.4/tcp/1/p2p/${PEER}"]`]) {
            writeFileSync(join(dir, "peers.json"), text);
            const got = await readKnownPeers(join(dir, "peers.json"));
            assert.deepEqual(got, text.startsWith("[1") ? [`/ip4/1.2.3.4/tcp/1/p2p/${PEER}`] : []);
        }
        rmSync(dir, { recursive: true, force: true });
    });
});
//# sourceMappingURL=known-peers.test.js.map