/**
 * Finding 3b between real libp2p hosts over TCP: a peer opens 16 streams per sync protocol, each
 * asking for the largest reply (a 4 MiB snapshot chunk, a /commits page of 8 MiB), and never
 * reads. The server holds at most its reply budget and its peer's slots, aborts every stream at
 * the serve deadline (the attacker sees them reset), releases what they held, and still answers
 * an honest fetcher.
 */
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { Stream } from "@libp2p/interface";
import { lpStream } from "@libp2p/utils";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { createLogger } from "../../../node/ground/index.js";
import { fetchCommits, serveSync } from "../../../node/sync/protocols.js";
import { defaultServeLimitOptions, ServeLimits } from "../../../node/sync/serve-limits.js";
import { SnapshotStore } from "../../../node/sync/snapshot-store.js";
import { encodeCommitsRequest, encodeSnapshotRequest } from "../../../protocol/sync-codec.js";
import { MAX_COMMITS_PER_RESPONSE, MAX_SNAPSHOT_CHUNK_BYTES } from "../../../protocol/limits.js";
import { PRESETS } from "../../../protocol/presets.js";
import { PROTOCOLS } from "../../../protocol/topics.js";
import { canonicalJson, parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { checksum } from "../../../training/params.js";

const log = createLogger({ level: "silent" });
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const runId = runIdOf(spec);
const MiB = 1024 * 1024;
/** 64 MiB of weights: 16 chunks of 4 MiB. */
const weights = new Float32Array(16 * MAX_SNAPSHOT_CHUNK_BYTES / 4).fill(0.5);
/** Eight 1-MiB stand-ins for commits: a /commits page of 8 MiB. */
const commits = Array.from({ length: 8 }, (_, i) => new Uint8Array(MiB - 64).fill(i));
const DEADLINE_MS = 3000;

describe("finding 3b: 16 unread streams per sync protocol from one peer", () => {
  let server: SwarmNode;
  let attacker: SwarmNode;
  let honest: SwarmNode;
  let closeSync: () => Promise<void>;
  const limits = new ServeLimits();
  const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false };

  before(async () => {
    [server, attacker, honest] = await Promise.all([0, 1, 2].map(async () => createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log)));
    const snapshots = new SnapshotStore();
    snapshots.take(12, checksum(weights), weights);
    closeSync = await serveSync(
      server,
      {
        runId,
        specJson: canonicalJson(spec),
        snapshot: (iteration) => snapshots.find(iteration),
        commitsFrom: (from, max) => commits.slice(from, from + max),
        checksumAt: () => null,
        admits: () => true,
      },
      log,
      { limits, deadlineMs: DEADLINE_MS },
    );
    await attacker.dial(server.getMultiaddrs()[0]);
    await honest.dial(server.getMultiaddrs()[0]);
  });

  after(async () => {
    await closeSync?.();
    await Promise.all([server, attacker, honest].filter((n) => n !== undefined).map((n) => n.stop()));
  });

  it("the server holds at most its budget and 4 serves, aborts every stream at the deadline, and still answers an honest fetcher", async (t) => {
    /** Opens a stream, writes one request, and never reads (paused: no window updates go back). */
    const unread = async (protocol: string, req: Uint8Array): Promise<Stream> => {
      const s = await attacker.dialProtocol(server.peerId, protocol);
      await lpStream(s).write(req);
      s.pause();
      return s;
    };
    const began = Date.now();
    const streams = await Promise.all([
      ...Array.from({ length: 16 }, (_, i) =>
        unread(PROTOCOLS.snapshot, encodeSnapshotRequest({ runId, chunk: i, chunkSize: MAX_SNAPSHOT_CHUNK_BYTES, iteration: 12 }))),
      ...Array.from({ length: 16 }, () => unread(PROTOCOLS.commits, encodeCommitsRequest({ runId, fromIteration: 0, max: MAX_COMMITS_PER_RESPONSE }))),
    ]);
    let peakHeld = 0;
    let peakBuffered = 0;
    let peakActive = 0;
    let honestGot = -1;
    const honestFetch = fetchCommits(honest, server.peerId, runId, 7).then((c) => (honestGot = c.length));
    while (Date.now() - began < DEADLINE_MS * 2 + 2000 && streams.some((s) => s.status === "open")) {
      peakHeld = Math.max(peakHeld, limits.heldBytes);
      peakActive = Math.max(peakActive, limits.activeFor(attacker.peerId.toString()));
      const buffered = server.getConnections(attacker.peerId).reduce((t, c) => t + c.streams.reduce((u, s) => u + s.writeBufferLength, 0), 0);
      peakBuffered = Math.max(peakBuffered, buffered);
      await sleep(50);
    }
    await honestFetch;
    t.diagnostic(`held ${(peakHeld / MiB).toFixed(1)} MiB, buffered ${(peakBuffered / MiB).toFixed(1)} MiB, ${peakActive} serves at once, all aborted after ${Date.now() - began} ms`);
    assert.ok(peakHeld > 0, "requests reached the serve path");
    assert.ok(peakHeld <= defaultServeLimitOptions.maxBytes, `reply bytes held peaked at ${(peakHeld / MiB).toFixed(1)} MiB`);
    assert.ok(peakBuffered <= defaultServeLimitOptions.maxBytes, `bytes buffered for the peer peaked at ${(peakBuffered / MiB).toFixed(1)} MiB (was 16 x 4 + 16 x 8 MiB)`);
    assert.ok(peakActive <= defaultServeLimitOptions.perPeer, `serves at once for the peer: ${peakActive}`);
    assert.deepEqual(streams.filter((s) => s.status === "open").length, 0, "every unread stream was aborted");
    assert.equal(honestGot, 1, "the honest fetcher got its page (commit 7) while the attack went on");
    await sleep(200);
    assert.equal(limits.heldBytes, 0, "nothing held once they are gone");
    assert.equal(limits.activeFor(attacker.peerId.toString()), 0);
  });
});
