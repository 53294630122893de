// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { lpStream } from "@libp2p/utils";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { createLogger } from "../../../node/ground/index.js";
import {
  defaultSyncOptions,
  fetchChecksum,
  fetchCommits,
  fetchRunSpec,
  serveSync,
  SyncError,
} from "../../../node/sync/protocols.js";
import type { EncodedCommit } from "../../../node/chain/commit.js";
import { fetchVerifiedSnapshot, type SnapshotFetchParts } from "../../../node/sync/snapshot-fetch.js";
import { SnapshotStore } from "../../../node/sync/snapshot-store.js";
import { decodeCommitsResponse, encodeCommitsRequest } from "../../../protocol/sync-codec.js";
import { MAX_REQUEST_BYTES } from "../../../protocol/limits.js";
import { PRESETS } from "../../../protocol/presets.js";
import { PROTOCOLS } from "../../../protocol/topics.js";
import { canonicalJson, parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { checksum } from "../../../training/params.js";

const log = createLogger({ level: "silent" });
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const runId = runIdOf(spec);
const weights = Float32Array.from({ length: 3000 }, (_, i) => Math.fround(Math.sin(i)));
const sum = checksum(weights);
/** Stand-ins for encoded commits: the protocol carries them as opaque bytes. */
const commits = [10, 11, 12, 13].map((i) => Uint8Array.of(i, i, i));
/** The server's head (its checksum at iteration -1): what its reply cache is keyed by. */
let head = { iteration: 12, checksum: sum };
/** Stand-in for the verified commit at 11 (opaque to the download). */
const anchor = { commit: {}, encoded: Uint8Array.of(11) } as unknown as EncodedCommit;

describe("sync protocols between two in-process hosts", () => {
  let server: SwarmNode;
  let client: SwarmNode;
  /** A peer the server does not admit (a non-member of a member run). */
  let stranger: SwarmNode;
  let closeSync: () => Promise<void>;
  const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false };

  before(async () => {
    [server, client, stranger] = await Promise.all([
      createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log),
      createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log),
      createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log),
    ]);
    const snapshots = new SnapshotStore();
    snapshots.take(12, sum, weights);
    closeSync = await serveSync(
      server,
      {
        runId,
        specJson: canonicalJson(spec),
        snapshot: (iteration) => snapshots.find(iteration),
        commitsFrom: (from, max) => commits.filter((c) => c[0] >= from).slice(0, max),
        checksumAt: (iteration) => (iteration < 0 ? head : iteration === 12 ? { iteration: 12, checksum: sum } : null),
        admits: (peerId) => peerId !== stranger.peerId.toString(),
      },
      log,
    );
    await client.dial(server.getMultiaddrs()[0]);
    await stranger.dial(server.getMultiaddrs()[0]);
  });

  after(async () => {
    await closeSync?.();
    await Promise.all([server, client, stranger].filter((n) => n !== undefined).map((n) => n.stop()));
  });

  it("runspec: the spec that hashes to the runId; another run's is refused", async () => {
    assert.equal(runIdOf(await fetchRunSpec(client, server.peerId, runId)), runId);
    await assert.rejects(fetchRunSpec(client, server.peerId, "0".repeat(64)), SyncError);
  });

  it("a peer the server does not admit gets no answer on any protocol; an admitted one does", async () => {
    const refused = [
      fetchRunSpec(stranger, server.peerId, runId, 5000),
      fetchChecksum(stranger, server.peerId, runId, 12, 5000),
      fetchCommits(stranger, server.peerId, runId, 10, 5000),
      fetchVerifiedSnapshot(parts(stranger, { requestTimeoutMs: 5000 }), [server.peerId]),
    ];
    for (const r of await Promise.allSettled(refused)) assert.equal(r.status, "rejected");
    assert.equal((await fetchCommits(client, server.peerId, runId, 10)).length, 4);
  });

  it("checksum: known at 12 and at the head, unknown elsewhere", async () => {
    const at12 = await fetchChecksum(client, server.peerId, runId, 12);
    assert.equal(at12.known, true);
    assert.equal(Buffer.from(at12.checksum).toString("hex"), sum);
    const head = await fetchChecksum(client, server.peerId, runId);
    assert.deepEqual([head.known, head.iteration], [true, 12]);
    assert.equal((await fetchChecksum(client, server.peerId, runId, 5)).known, false);
  });

  it("a request larger than MAX_REQUEST_BYTES is refused unread; one within it is answered", async () => {
    /** A valid commits request padded with an unknown field (decoders skip it) to `total` bytes. */
    const padded = (total: number) => {
      const req = encodeCommitsRequest({ runId, fromIteration: 10, max: 256 });
      const padLen = total - req.byteLength - 3;
      return Uint8Array.of(...req, 0x7a, 0x80 | (padLen & 0x7f), padLen >> 7, ...new Uint8Array(padLen));
    };
    const ask = async (bytes: Uint8Array) => {
      const stream = await client.dialProtocol(server.peerId, PROTOCOLS.commits);
      const lp = lpStream(stream);
      await lp.write(bytes);
      return decodeCommitsResponse((await lp.read({ signal: AbortSignal.timeout(5000) })).subarray());
    };
    assert.equal((await ask(padded(MAX_REQUEST_BYTES))).commits.length, 4);
    // One byte more: the reader refuses the length prefix before reading the bytes.
    await assert.rejects(ask(padded(MAX_REQUEST_BYTES + 1)));
  });

  it("commits: from the iteration asked, as the bytes served", async () => {
    assert.deepEqual(
      (await fetchCommits(client, server.peerId, runId, 12)).map((c) => [...c]),
      [
        [12, 12, 12],
        [13, 13, 13],
      ],
    );
    assert.deepEqual(await fetchCommits(client, server.peerId, runId, 99), []);
  });

  it("commits: a reply reused for the same request is built again once the head moves", async () => {
    const asked = async () => (await fetchCommits(client, server.peerId, runId, 13)).map((c) => c[0]);
    assert.deepEqual(await asked(), [13]);
    commits.push(Uint8Array.of(14, 14, 14));
    try {
      // Same head: the same request is answered from the reply built for it (one buffer for a crowd).
      assert.deepEqual(await asked(), [13]);
      head = { iteration: 14, checksum: "ab".repeat(32) };
      assert.deepEqual(await asked(), [13, 14], "the new head's commit is served");
    } finally {
      commits.pop();
      head = { iteration: 12, checksum: sum };
    }
  });

  it("snapshot: chunked, the whole checked against the verified commit's checksum, never the holder's", async () => {
    const blamed: string[] = [];
    const snap = await fetchVerifiedSnapshot(parts(client, {}, blamed), [server.peerId]);
    assert.equal(snap.iteration, 12);
    assert.equal(snap.checksum, sum);
    assert.deepEqual(snap.weights, weights);
    assert.equal(snap.anchor, anchor);
    assert.deepEqual(blamed, []);
    // No verified commit at 12: the holder's own checksum is no reference.
    await assert.rejects(
      fetchVerifiedSnapshot({ ...parts(client, {}, blamed), reference: async () => null }, [server.peerId]),
      (e: SyncError) => e.code === "SYNC_BEYOND_CHAIN",
    );
  });

  it("holders that claim the verified state and serve other bytes (other weights; one corrupt chunk) are blamed; the verified one comes from an honest holder", async () => {
    // Each liar claims the verified checksum at 12 and serves other weights under their own chunk hashes.
    const fake = weights.map((w) => w + 1);
    const oneChunk = weights.slice();
    oneChunk[5 * 256 + 3] += 1; // chunk 5 of 1,024-byte chunks
    const liars = await Promise.all([fake, oneChunk].map((w) => hostileServer(w, sum)));
    try {
      for (const l of liars) await client.dial(l.node.getMultiaddrs()[0]);
      const blamed: string[] = [];
      const holders = [...liars.map((l) => l.node.peerId), server.peerId];
      const snap = await fetchVerifiedSnapshot(parts(client, {}, blamed), holders);
      assert.deepEqual(snap.weights, weights);
      // The one whose chunk 0 was used is disproved; the other is blamed only if it served its
      // wrong chunk or was checked alone before the honest holder (holders go fastest first).
      const liarIds = liars.map((l) => l.node.peerId.toString());
      assert.ok(blamed.includes(liarIds[0]), "the holder of wrong weights is blamed");
      assert.ok(blamed.every((id) => liarIds.includes(id)), "only liars are blamed");
      // Liars alone: nothing adopted.
      const again: string[] = [];
      await assert.rejects(
        fetchVerifiedSnapshot(parts(client, {}, again), liars.map((l) => l.node.peerId)),
        (e: SyncError) => e.code === "SYNC_UNVERIFIED",
      );
      assert.equal(new Set(again).size, 2);
    } finally {
      for (const l of liars) await l.stop();
    }
  });

  it("holders that claim another state at the iteration (another chain: an honest node across a fork) are neither used nor blamed", async () => {
    const other = weights.map((w) => w * 2);
    const across = await hostileServer(other);
    try {
      await client.dial(across.node.getMultiaddrs()[0]);
      const blamed: string[] = [];
      const snap = await fetchVerifiedSnapshot(parts(client, {}, blamed), [across.node.peerId, server.peerId]);
      assert.deepEqual(snap.weights, weights);
      assert.deepEqual(snap.holders, [server.peerId.toString()]);
      assert.deepEqual(blamed, []);
      await assert.rejects(
        fetchVerifiedSnapshot(parts(client, {}, blamed), [across.node.peerId]),
        (e: SyncError) => e.code === "SYNC_UNVERIFIED",
      );
      assert.deepEqual(blamed, [], "alone, still not blamed");
    } finally {
      await across.stop();
    }
  });

  it("a snapshot of the wrong size (chunk count, byte length) is refused before any state changes, its holder blamed", async () => {
    const liar = await hostileServer(weights.slice(0, 2000));
    try {
      await client.dial(liar.node.getMultiaddrs()[0]);
      const blamed: string[] = [];
      await assert.rejects(
        fetchVerifiedSnapshot({ ...parts(client, {}, blamed), reference: async () => ({ checksum: checksum(weights.slice(0, 2000)), anchor }) }, [liar.node.peerId]),
        (e: SyncError) => e.code === "SYNC_FAILED",
      );
      assert.deepEqual(blamed, [liar.node.peerId.toString()]);
    } finally {
      await liar.stop();
    }
  });

  /** Fetch parts for `node`: 1 KiB chunks, the verified commit at 12 vouching for `sum`. */
  function parts(node: SwarmNode, opts: Partial<typeof defaultSyncOptions> = {}, blamed: string[] = []): SnapshotFetchParts {
    return {
      node,
      runId,
      log,
      opts: { ...defaultSyncOptions, chunkBytes: 1024, ...opts },
      weightCount: weights.length,
      decode: (b) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
      reference: async (iteration) => (iteration === 12 ? { checksum: sum, anchor } : null),
      blame: (peer) => blamed.push(peer),
    };
  }

  /** A real holder serving `w` as its snapshot at 12, claiming `claim` as its checksum (w's own by default). */
  async function hostileServer(w: Float32Array, claim = checksum(w)): Promise<{ node: SwarmNode; stop: () => Promise<void> }> {
    const node = await createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log);
    const store = new SnapshotStore();
    store.take(12, claim, w);
    const close = await serveSync(
      node,
      { runId, specJson: canonicalJson(spec), snapshot: (it) => store.find(it), commitsFrom: () => [], checksumAt: () => null, admits: () => true },
      log,
    );
    return { node, stop: async () => { await close(); await node.stop(); } };
  }
});
