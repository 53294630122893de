// Learning@home expert records: merge rules (pure), then real kad-dht nodes over loopback TCP.
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { ExpertDirectory } from "../../node/network/experts.js";
import {
  createSwarmNode,
  defaultNetworkOptions,
  type SwarmNode,
} from "../../node/network/libp2p.js";
import { createLogger } from "../../node/ground/index.js";
import { Membership } from "../../protocol/membership.js";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec } from "../../protocol/run-spec.js";
import type { ExpertRecord } from "../../protocol/sync-codec.js";
import {
  bestExpertRecord,
  ExpertUidError,
  expertKey,
  mergeExpertRecords,
  parseExpertKey,
  MAX_HOLDERS_PER_SUFFIX,
  parseExpertUid,
  prefixSuffixes,
  verifiedExpertEntries,
} from "../../protocol/experts.js";
import { decodeExpertRecord, encodeExpertRecord, type ExpertEntry } from "../../protocol/sync-codec.js";
import { expertEntrySignedBytes } from "../../protocol/signing.js";
import { signerOf } from "../../node/chain/signatures.js";
import { peerIdBytes } from "../../node/ground/index.js";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import type { PrivateKey } from "@libp2p/interface";

const log = createLogger({ level: "silent" });
const RUN = "ab".repeat(32);
const P1 = Uint8Array.of(0x00, 36, ...new Uint8Array(36).fill(1));
const P2 = Uint8Array.of(0x00, 36, ...new Uint8Array(36).fill(2));
/** Merge rules do not look at signatures (entries are verified before merging). */
const S = new Uint8Array(64);

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
        { suffix: 1, peer: P1, timestamp: 10, expiresAt: 2000 , signature: S },
        { suffix: 2, peer: P1, timestamp: 10, expiresAt: 900 , signature: S },
      ],
    };
    const b: ExpertRecord = {
      entries: [
        { suffix: 1, peer: P1, timestamp: 20, expiresAt: 3000 , signature: S },
        { suffix: 1, peer: P2, timestamp: 5, expiresAt: 2000 , signature: S },
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
    const gone = mergeExpertRecords([ab, { entries: [{ suffix: 1, peer: P2, timestamp: 30, expiresAt: now , signature: S }] }], now);
    assert.deepEqual(gone.entries.map((e) => e.peer[2]), [1]);
    // The selector counts what verifies: here every entry (the check is given), copy b has two live.
    const all = (_k: Uint8Array, copies: readonly Uint8Array[]) => copies.map((c) => decodeExpertRecord(c).entries);
    assert.equal(bestExpertRecord(expertKey(RUN, "snap"), [a, b, { entries: [] }].map(encodeExpertRecord), now, all), 1);
  });

  it("only entries signed by the peer they name count: forged, moved, far-future and over-long ones are dropped; holders per suffix are capped", async () => {
    const keys = await Promise.all([1, 2].map(() => generateKeyPair("Ed25519")));
    const key = expertKey(RUN, "snap");
    const now = Date.now();
    const entry = (k: PrivateKey, claim: { suffix: number; timestamp: number; expiresAt: number }, signedBy = k, at = key): ExpertEntry => ({
      ...claim,
      peer: peerIdBytes(peerIdFromPrivateKey(k)),
      signature: signerOf(signedBy)(expertEntrySignedBytes(at, claim)),
    });
    const honest = entry(keys[0], { suffix: 10, timestamp: now, expiresAt: now + 15_000 });
    const forgedWithdrawal = entry(keys[0], { suffix: 10, timestamp: now + 1, expiresAt: now }, keys[1]);
    const moved = entry(keys[1], { suffix: 10, timestamp: now, expiresAt: now + 15_000 }, keys[1], expertKey(RUN, "other"));
    const future = entry(keys[1], { suffix: 11, timestamp: now + 3_600_000, expiresAt: now + 3_600_100 });
    const forever = entry(keys[1], { suffix: 12, timestamp: now, expiresAt: now + 86_400_000 });
    const kept = verifiedExpertEntries(key, [honest, forgedWithdrawal, moved, future, forever, { ...honest, peer: P1 }], now);
    assert.deepEqual(kept, [honest]);
    // The forged withdrawal would have removed the honest holder had it counted.
    assert.equal(mergeExpertRecords([{ entries: [honest, forgedWithdrawal] }], now).entries.length, 0);
    assert.deepEqual(mergeExpertRecords([{ entries: kept }], now).entries, [honest]);
    // A flood on one suffix keeps MAX_HOLDERS_PER_SUFFIX, the newest.
    const flood = Array.from({ length: MAX_HOLDERS_PER_SUFFIX + 10 }, (_, i) => ({
      suffix: 7,
      peer: Uint8Array.of(0x00, 36, ...new Uint8Array(36).fill(i + 1)),
      timestamp: i,
      expiresAt: now + 1000,
      signature: S,
    }));
    const capped = mergeExpertRecords([{ entries: flood }], now).entries;
    assert.equal(capped.length, MAX_HOLDERS_PER_SUFFIX);
    assert.equal(Math.min(...capped.map((e) => e.timestamp)), 10);
  });
});

describe("expert records in a real kad-dht (3 nodes, loopback TCP)", () => {
  const nodes: SwarmNode[] = [];
  const keys: PrivateKey[] = [];
  const dirs: ExpertDirectory[] = [];
  before(async () => {
    const opts = (bootstrap: string[]) => ({
      ...defaultNetworkOptions,
      listen: ["/ip4/127.0.0.1/tcp/0"],
      bootstrap,
      mdns: false,
      dhtRunIds: [RUN],
    });
    for (let i = 0; i < 3; i++) keys.push(await generateKeyPair("Ed25519"));
    nodes.push(await createSwarmNode(opts([]), keys[0], log));
    const first = nodes[0].getMultiaddrs()[0].toString();
    for (let i = 1; i < 3; i++) nodes.push(await createSwarmNode(opts([first]), keys[i], log));
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
    for (const [i, n] of nodes.entries())
      dirs.push(new ExpertDirectory(n, RUN, signerOf(keys[i]), log, { announceEveryMs: 300, ttlMs: 1500, queryTimeoutMs: 3000 }));
  });
  after(async () => {
    await Promise.all(dirs.map((d) => d.stop()));
    await Promise.all(nodes.map((n) => n.stop()));
  });

  it("declared shards are found by every node, per shard with its holders", async () => {
    // Declared to outlive the test (the directories' 1.5 s TTL is for the expiry test): on a loaded
    // machine two declares and a read can take longer (2026-12-02: suffix 10 had expired).
    await dirs[1].declare(["snap.10.0", "snap.10.1", "snap.20.0"], 10_000);
    await dirs[2].declare(["snap.20.0", "snap.20.1"], 10_000);
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
    const dir = new ExpertDirectory(nodes[0], RUN, signerOf(keys[0]), log, { announceEveryMs: 300, ttlMs: 5000, queryTimeoutMs: 3000 }, membership);
    await dirs[1].declare(["mema.7"], 5000);
    await dirs[2].declare(["memb.7"], 5000);
    const holders = async (d: ExpertDirectory, grid: string) =>
      [...(await d.suffixes(grid))].map(([s, h]) => [s, h.map((x) => x.peer.toString())]);
    // The open view sees both records: the non-member's entry is in the DHT.
    assert.deepEqual(await holders(dirs[0], "memb"), [[7, [nodes[2].peerId.toString()]]]);
    assert.deepEqual(await holders(dir, "mema"), [[7, [nodes[1].peerId.toString()]]]);
    assert.deepEqual(await holders(dir, "memb"), [], "the non-member's entry is dropped");
  });

  it("a record written by another peer can neither withdraw an honest holder nor announce a peer that did not sign", async () => {
    await dirs[1].declare(["forge.5"], 5000);
    // Node 2 writes the record back with node 1's entry as it found it, plus a newer withdrawal in
    // node 1's name and an entry naming node 0, both signed with its own key (the DHT validator
    // stores them: it checks the shape only). Unsigned, the withdrawal would win the merge.
    // (Overwriting a DHT copy erases entries until their holder's next announcement whatever
    // they carry: kad-dht keeps the last write; docs/security.md, attack 5.)
    const honest = await dirs[2].entries("forge");
    assert.equal(honest.length, 1);
    const key = expertKey(RUN, "forge");
    const now = Date.now();
    const claim = { suffix: 5, timestamp: now + 10, expiresAt: now + 10 };
    const forged = [nodes[1], nodes[0]].map((n, i) => ({
      ...(i === 0 ? claim : { ...claim, expiresAt: now + 5000 }),
      peer: peerIdBytes(n.peerId),
      signature: signerOf(keys[2])(expertEntrySignedBytes(key, i === 0 ? claim : { ...claim, expiresAt: now + 5000 })),
    }));
    for await (const _ of nodes[2].services.dht.put(key, encodeExpertRecord({ entries: [...honest, ...forged] }), { signal: AbortSignal.timeout(3000) })) {
      // drain
    }
    for (const d of [dirs[0], dirs[2]]) {
      const holders = [...(await d.suffixes("forge"))].map(([s, h]) => [s, h.map((x) => x.peer.toString())]);
      assert.deepEqual(holders, [[5, [nodes[1].peerId.toString()]]], "the honest holder stays; the forged entries count for nothing");
    }
  });

  it("beam search walks the grid: best epochs first, then their shards", async () => {
    // Its own grid, declared to outlive the test: the first test's entries live 1.5 s, which the
    // tests between can outlast on a loaded machine (CI, 2026-11-28: one holder of two left).
    await dirs[1].declare(["beam.10.0", "beam.10.1", "beam.20.0"], 10_000);
    await dirs[2].declare(["beam.20.0", "beam.20.1"], 10_000);
    const found = await dirs[0].beamSearch("beam", [1, 16], (c) => c[0] * 100 - (c[1] ?? 0));
    assert.deepEqual(
      found.map((f) => f.uid),
      ["beam.20.0", "beam.20.1"],
    );
    assert.equal(found[0].holders.length, 2);
    const wide = await dirs[0].beamSearch("beam", [2, 16], (c) => c[0]);
    assert.deepEqual(wide.map((f) => f.uid).sort(), ["beam.10.0", "beam.10.1", "beam.20.0", "beam.20.1"]);
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
