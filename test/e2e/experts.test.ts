// Learning@home expert records: merge rules (pure), then real kad-dht nodes over loopback TCP.
import "../../node/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { ExpertDirectory } from "../../node/network/experts.js";
import {
  createSwarmNode,
  defaultNetworkOptions,
  type SwarmNode,
} from "../../node/network/libp2p.js";
import { createLogger } from "../../node/observe/logger.js";
import { Membership } from "../../protocol/membership.js";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec } from "../../protocol/run-spec.js";
import type { ExpertRecord } from "../../protocol/codec.js";
import {
  bestExpertRecord,
  ExpertUidError,
  expertKey,
  mergeExpertRecords,
  parseExpertKey,
  parseExpertUid,
  prefixSuffixes,
} from "../../protocol/experts.js";

const log = createLogger({ level: "silent" });
const RUN = "ab".repeat(32);
const P1 = Uint8Array.of(0x00, 36, ...new Uint8Array(36).fill(1));
const P2 = Uint8Array.of(0x00, 36, ...new Uint8Array(36).fill(2));

describe("expert uids and records", () => {
  it("parses uids and refuses bad ones with a typed error", () => {
    assert.deepEqual(parseExpertUid("snap.120.3"), { name: "snap", coords: [120, 3] });
    assert.deepEqual(parseExpertUid("ffn"), { name: "ffn", coords: [] });
    for (const bad of ["", "Snap.1", "snap.-1", "snap.01", "snap.x", "snap.4294967296", "a.1.1.1.1.1.1.1.1.1"]) {
      assert.throws(() => parseExpertUid(bad), ExpertUidError, bad);
    }
  });

  it("a uid touches one key per coordinate; keys round-trip", () => {
    assert.deepEqual(prefixSuffixes("snap.120.3"), [
      { prefix: "snap", suffix: 120 },
      { prefix: "snap.120", suffix: 3 },
    ]);
    assert.deepEqual(parseExpertKey(expertKey(RUN, "snap.120")), { runId: RUN, prefix: "snap.120" });
    assert.equal(parseExpertKey(new TextEncoder().encode(`/pk/${RUN}`)), null);
  });

  it("merge is a union per (suffix, peer), newest wins, expired dropped, order-free", () => {
    const now = 1000;
    const a: ExpertRecord = {
      entries: [
        { suffix: 1, peer: P1, timestamp: 10, expiresAt: 2000 },
        { suffix: 2, peer: P1, timestamp: 10, expiresAt: 900 },
      ],
    };
    const b: ExpertRecord = {
      entries: [
        { suffix: 1, peer: P1, timestamp: 20, expiresAt: 3000 },
        { suffix: 1, peer: P2, timestamp: 5, expiresAt: 2000 },
      ],
    };
    const ab = mergeExpertRecords([a, b], now);
    assert.deepEqual(mergeExpertRecords([b, a], now), ab);
    assert.deepEqual(
      ab.entries.map((e) => [e.suffix, e.peer[2], e.timestamp]),
      [
        [1, 1, 20],
        [1, 2, 5],
      ],
    );
    // A withdrawal is a newer entry that expires at once.
    const gone = mergeExpertRecords([ab, { entries: [{ suffix: 1, peer: P2, timestamp: 30, expiresAt: now }] }], now);
    assert.deepEqual(gone.entries.map((e) => e.peer[2]), [1]);
    assert.equal(bestExpertRecord([a, b, { entries: [] }], now), 1);
  });
});

describe("expert records in a real kad-dht (3 nodes, loopback TCP)", () => {
  const nodes: SwarmNode[] = [];
  const dirs: ExpertDirectory[] = [];
  before(async () => {
    const opts = (bootstrap: string[]) => ({
      ...defaultNetworkOptions,
      listen: ["/ip4/127.0.0.1/tcp/0"],
      bootstrap,
      mdns: false,
    });
    nodes.push(await createSwarmNode(opts([]), await generateKeyPair("Ed25519"), log));
    const first = nodes[0].getMultiaddrs()[0].toString();
    for (let i = 0; i < 2; i++)
      nodes.push(await createSwarmNode(opts([first]), await generateKeyPair("Ed25519"), log));
    // A full mesh before the DHT is asked anything: a declare reads the copies it can reach and
    // writes back their union, so a writer that cannot yet reach another's copy would overwrite it
    // (re-announcing repairs that in a daemon; these tests declare once).
    await nodes[1].dial(nodes[2].getMultiaddrs()[0]);
    const deadline = Date.now() + 10_000;
    while (
      nodes.some((n) => n.getPeers().length < 2) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 50));
    for (const n of nodes)
      dirs.push(new ExpertDirectory(n, RUN, log, { announceEveryMs: 300, ttlMs: 1500, queryTimeoutMs: 3000 }));
  });
  after(async () => {
    await Promise.all(dirs.map((d) => d.stop()));
    await Promise.all(nodes.map((n) => n.stop()));
  });

  it("declared shards are found by every node, per shard with its holders", async () => {
    await dirs[1].declare(["snap.10.0", "snap.10.1", "snap.20.0"]);
    await dirs[2].declare(["snap.20.0", "snap.20.1"]);
    // The third node never declared anything: it reads what the other two wrote.
    const epochs = await dirs[0].suffixes("snap");
    assert.deepEqual([...epochs.keys()].sort((x, y) => x - y), [10, 20]);
    assert.equal(epochs.get(20)?.length, 2, "both nodes hold snapshot 20");
    const shards = await dirs[0].suffixes("snap.20");
    assert.deepEqual(
      [...shards].map(([s, h]) => [s, h.map((x) => x.peer.toString()).sort()]).sort(),
      [
        [0, [nodes[1].peerId.toString(), nodes[2].peerId.toString()].sort()],
        [1, [nodes[2].peerId.toString()]],
      ],
    );
  });

  it("a member run reads only the entries that name its members", async () => {
    // Only nodes 0 and 1 are members. Each grid has one writer (no merge race): node 1 (a member)
    // announces "mema", node 2 (no member) "memb".
    const members = [nodes[0], nodes[1]].map((n) => n.peerId.toString());
    const membership = Membership.of(parseRunSpec({ ...PRESETS["tiny-spsa"], members }));
    const dir = new ExpertDirectory(nodes[0], RUN, log, { announceEveryMs: 300, ttlMs: 5000, queryTimeoutMs: 3000 }, membership);
    await dirs[1].declare(["mema.7"], 5000);
    await dirs[2].declare(["memb.7"], 5000);
    const holders = async (d: ExpertDirectory, grid: string) =>
      [...(await d.suffixes(grid))].map(([s, h]) => [s, h.map((x) => x.peer.toString())]);
    // The open view sees both records: the non-member's entry is in the DHT.
    assert.deepEqual(await holders(dirs[0], "memb"), [[7, [nodes[2].peerId.toString()]]]);
    assert.deepEqual(await holders(dir, "mema"), [[7, [nodes[1].peerId.toString()]]]);
    assert.deepEqual(await holders(dir, "memb"), [], "the non-member's entry is dropped");
  });

  it("beam search walks the grid: best epochs first, then their shards", async () => {
    const found = await dirs[0].beamSearch("snap", [1, 16], (c) => c[0] * 100 - (c[1] ?? 0));
    assert.deepEqual(
      found.map((f) => f.uid),
      ["snap.20.0", "snap.20.1"],
    );
    assert.equal(found[0].holders.length, 2);
    const wide = await dirs[0].beamSearch("snap", [2, 16], (c) => c[0]);
    assert.deepEqual(wide.map((f) => f.uid).sort(), ["snap.10.0", "snap.10.1", "snap.20.0", "snap.20.1"]);
  });

  it("entries expire unless re-announced; serve() keeps them alive and withdraws dropped uids", async () => {
    await dirs[1].serve(["grid.1.1"]);
    await dirs[2].declare(["grid.2.1"], 800);
    assert.deepEqual([...(await dirs[0].suffixes("grid")).keys()].sort(), [1, 2]);
    await new Promise((r) => setTimeout(r, 2000));
    // grid.2 was declared once with a short TTL and is gone; grid.1 is re-announced every 300 ms.
    assert.deepEqual([...(await dirs[0].suffixes("grid")).keys()], [1]);
    await dirs[1].serve(["grid.3.1"]);
    const after = await dirs[0].suffixes("grid");
    assert.deepEqual([...after.keys()], [3], "the dropped uid is withdrawn at once");
  });
});
