// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { lpStream } from "@libp2p/utils";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { createLogger } from "../../../node/ground/index.js";
import { fetchCommits, serveSync, SyncError, withinReplyBudget } from "../../../node/sync/protocols.js";
import { MAX_COMMITS_RESPONSE_BYTES } from "../../../protocol/limits.js";
import { PRESETS } from "../../../protocol/presets.js";
import { canonicalJson, parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { PROTOCOLS } from "../../../protocol/topics.js";

const log = createLogger({ level: "silent" });
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const runId = runIdOf(spec);
const MiB = 1024 * 1024;
/** Four opaque "commits" of 3 MiB each (under the 4.15 MiB commit limit): 12 MiB in all. */
const big = [1, 2, 3, 4].map((i) => new Uint8Array(3 * MiB).fill(i));
const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false };

describe("/commits replies: a byte budget when serving, typed refusals when fetching", () => {
  let server: SwarmNode;
  let hostile: SwarmNode;
  let client: SwarmNode;
  /** What the hostile server writes on its next /commits stream. */
  let answer: (raw: { write(b: Uint8Array): Promise<void> }, lp: ReturnType<typeof lpStream>) => Promise<void> = async () => {};

  before(async () => {
    [server, hostile, client] = await Promise.all(
      [0, 1, 2].map(async () => createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log)),
    );
    await serveSync(
      server,
      {
        runId,
        specJson: canonicalJson(spec),
        snapshot: () => null,
        commitsFrom: (from, max) => big.slice(from, from + max),
        checksumAt: () => null,
        admits: () => true,
      },
      log,
    );
    await hostile.handle(PROTOCOLS.commits, async (stream) => {
      const lp = lpStream(stream, { maxDataLength: 1024 });
      await lp.read();
      const raw = { write: async (b: Uint8Array) => void stream.send(b) };
      await answer(raw, lp).catch(() => {});
      await stream.close().catch(() => {});
    });
    await client.dial(server.getMultiaddrs()[0]);
    await client.dial(hostile.getMultiaddrs()[0]);
  });

  after(async () => {
    await Promise.all([server, hostile, client].filter((n) => n !== undefined).map((n) => n.stop()));
  });

  it("withinReplyBudget keeps the longest prefix under the budget, and always one commit", () => {
    assert.equal(withinReplyBudget(big).length, 2);
    assert.equal(withinReplyBudget([new Uint8Array(10)], 5).length, 1);
    assert.equal(withinReplyBudget([]).length, 0);
    const kept = withinReplyBudget(Array.from({ length: 256 }, () => new Uint8Array(40_000)));
    assert.ok(kept.reduce((s, c) => s + c.byteLength + 6, 0) <= MAX_COMMITS_RESPONSE_BYTES);
    assert.equal(kept.length, Math.floor(MAX_COMMITS_RESPONSE_BYTES / 40_006));
  });

  it("a log of large commits is served in pages under the budget (it used to fail to encode: no reply at all)", async () => {
    const first = await fetchCommits(client, server.peerId, runId, 0);
    assert.deepEqual(first.map((c) => c[0]), [1, 2]);
    const next = await fetchCommits(client, server.peerId, runId, 2);
    assert.deepEqual(next.map((c) => c[0]), [3, 4]);
  });

  it("garbage, an oversized length prefix or a truncated reply is a typed SyncError naming the peer", async () => {
    const cases: [string, typeof answer, string][] = [
      ["garbage", async (_raw, lp) => lp.write(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3])), "SYNC_BAD_REPLY"],
      // Length prefix 2^40: refused on the prefix, nothing buffered.
      ["huge length prefix", async (raw) => raw.write(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 1, 2])), "SYNC_FAILED"],
      // Just over the budget: refused on the prefix too.
      ["over the budget", async (raw) => raw.write(Uint8Array.from([0x81, 0x80, 0x80, 0x04])), "SYNC_FAILED"],
      ["truncated", async (raw) => raw.write(Uint8Array.from([0x10, 1, 2])), "SYNC_FAILED"],
    ];
    for (const [what, a, code] of cases) {
      answer = a;
      const err = await fetchCommits(client, hostile.peerId, runId, 0, 2000).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof SyncError, `${what}: ${String(err)}`);
      assert.equal(err.code, code, `${what}: ${err.message}`);
      assert.equal(err.context.peer, hostile.peerId.toString());
    }
  });
});
