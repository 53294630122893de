/**
 * Joining a run by its id: the spec comes from a peer over /seedswarm/runspec/1.0.0 and must
 * hash to the runId asked for.
 */
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { lpStream } from "@libp2p/utils";
import { createSwarmNode, defaultNetworkOptions } from "../../node/network/libp2p.js";
import { createLogger } from "../../node/ground/index.js";
import { fetchRunSpec, SyncError } from "../../node/sync/protocols.js";
import { decodeRunSpecRequest, encodeRunSpecResponse } from "../../protocol/sync-codec.js";
import { PRESETS } from "../../protocol/presets.js";
import { canonicalJson, parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { PROTOCOLS } from "../../protocol/topics.js";
import { cleanup, Node, tempDir } from "./node-process.js";

after(cleanup);

describe("joining a run by id", () => {
  it("a node given only --run fetches the spec from its bootstrap peer and trains bit-identically", async () => {
    const args = ["--iterations", "100000", "--stop-at", "60"];
    const runId = runIdOf(parseRunSpec({ ...PRESETS["tiny-spsa"], iterations: 100000 }));
    const a = new Node(await tempDir(), [...args, "--join-wait", "15000", "--min-peers", "1"]);
    const b = new Node(await tempDir(), [
      "--run",
      runId,
      "--stop-at",
      "60",
      "--bootstrap",
      await a.address(),
    ]);
    const fetched = await b.waitFor((l) => l.msg === "run spec fetched", 20_000, "spec fetched");
    assert.equal(fetched.run, runId);
    const [ea, eb] = await Promise.all([a.exit, b.exit]);
    assert.equal(ea.code, 0);
    assert.equal(eb.code, 0, b.stderr);
    assert.equal(b.result().iteration, 60);
    assert.equal(b.result().checksum, a.result().checksum);
  });

  it("no peer serving the run: a clear error and a non-zero exit", async () => {
    const a = new Node(await tempDir(), ["--iterations", "100000", "--stop-at", "100000"]);
    const unknown = "0".repeat(64);
    const b = new Node(await tempDir(), ["--run", unknown, "--join-wait", "1500", "--bootstrap", await a.address()]);
    const exit = await b.exit;
    a.child.kill("SIGTERM");
    await a.exit;
    assert.equal(exit.code, 1);
    assert.match(b.stderr, /no peer served the run spec of run 0{64}/);
    const bad = new Node(await tempDir(), ["--run", "not-a-run-id"]);
    // A malformed flag is a usage error (exit 2), before anything starts.
    assert.equal((await bad.exit).code, 2);
    assert.match(bad.stderr, /not a runId/);
  });

  it("a spec that does not hash to the runId asked for is refused", async () => {
    const log = createLogger({ level: "silent" });
    const opts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false };
    const liar = await createSwarmNode(opts, await generateKeyPair("Ed25519"), log);
    const asker = await createSwarmNode(opts, await generateKeyPair("Ed25519"), log);
    try {
      const other = parseRunSpec({ ...PRESETS["tiny-spsa"], seed: 999 });
      await liar.handle(PROTOCOLS.runspec, async (stream) => {
        const lp = lpStream(stream);
        decodeRunSpecRequest((await lp.read()).subarray());
        await lp.write(encodeRunSpecResponse({ specJson: canonicalJson(other) }));
        await stream.close();
      });
      await asker.dial(liar.getMultiaddrs()[0]);
      const wanted = runIdOf(parseRunSpec(PRESETS["tiny-spsa"]));
      await assert.rejects(fetchRunSpec(asker, liar.peerId, wanted), (err: unknown) => {
        assert.ok(err instanceof SyncError);
        assert.equal(err.code, "SYNC_BAD_SPEC");
        return true;
      });
    } finally {
      await Promise.all([liar.stop(), asker.stop()]);
    }
  });
});
