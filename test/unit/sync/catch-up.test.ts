/**
 * When a snapshot download waits for the DHT's plan (node/sync/catch-up.ts downloadSnapshot), on
 * real libp2p hosts over TCP with real tiny-spsa state: a plan only adds holders, so a snapshot
 * the connected peers can serve is not held up by a slow DHT (a joiner's 3 s wait, while the swarm
 * ran 100 iterations ahead, kept it out of e2e swarm's commits: CI, 2026-11-28); the plan is
 * waited for when no connected peer serves one.
 */
// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PeerId } from "@libp2p/interface";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { type EncodedCommit, ZERO_HASH } from "../../../node/chain/commit.js";
import { Rounds } from "../../../node/chain/rounds.js";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { Gossip } from "../../../node/network/gossip.js";
import { Peers } from "../../../node/network/peers.js";
import { createLogger } from "../../../node/observe/logger.js";
import { CatchUp } from "../../../node/sync/catch-up.js";
import { serveSync } from "../../../node/sync/protocols.js";
import type { SnapshotPlanner } from "../../../node/sync/snapshot-plan.js";
import type { Snapshot } from "../../../node/sync/snapshot-store.js";
import { fromHex } from "../../../protocol/bytes.js";
import { PRESETS } from "../../../protocol/presets.js";
import { canonicalJson, parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { initialReplica, openRun, type RunContext } from "../../../training/run-context.js";
import { signedCommit, signedContribution, type TestKey, testKeys } from "../../helpers/chain-keys.js";
import { syncParts } from "../../helpers/sync-parts.js";

const log = createLogger({ level: "silent" });
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Plan = Awaited<ReturnType<SnapshotPlanner["plan"]>>;

let run: RunContext;
let key: TestKey;
let c0: EncodedCommit;
let afterC0: Snapshot;
const hosts: SwarmNode[] = [];

before(async () => {
  await useBackend("wasm");
  run = await openRun(spec);
  [key] = await testKeys(1);
  // Commit 0 by one author: our node holds it, so a snapshot at iteration 1 is vouched for by its checksum.
  const state = initialReplica(run);
  const payload = new Uint8Array(run.algorithm.maxPayloadBytes).fill(7);
  state.applyIteration(run.algorithm, [signedContribution(key, run.runId, 0, payload, ZERO_HASH).c]);
  c0 = signedCommit(key, { runId: run.runId, iteration: 0, prevHash: ZERO_HASH, checksum: fromHex(state.checksum()), rank: 0 }, [{ key, payload }]);
  afterC0 = { iteration: 1, checksum: state.checksum(), weights: state.weights.slice() };
  state.dispose();
});

after(async () => {
  await Promise.all(hosts.map((h) => h.stop()));
});

/** A libp2p host serving `snapshot` for the run, and subscribed to its commit topic. */
async function holder(snapshot: Snapshot | null): Promise<SwarmNode> {
  const h = await createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log);
  hosts.push(h);
  const source = { runId: run.runId, specJson: canonicalJson(spec), snapshot: () => snapshot, commitsFrom: () => [], checksumAt: () => null, admits: () => true };
  await serveSync(h, source, log);
  h.services.pubsub.subscribe(Gossip.topicsOf(run.runId).commit);
  return h;
}

/** Our node at the state after commit 0, connected to `connected`, with `plan` as its DHT planner. */
async function joiner(connected: SwarmNode[], plan: (ours: SwarmNode) => Promise<Plan>) {
  const ours = await createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log);
  hosts.push(ours);
  const topic = Gossip.topicsOf(run.runId).commit;
  ours.services.pubsub.subscribe(topic);
  for (const h of connected) await ours.dial(h.getMultiaddrs()[0]);
  const abort = new AbortController();
  const peers = new Peers(ours, run.runId, topic, [], log, abort.signal, () => true);
  for (let i = 0; i < 100 && peers.connected().length < connected.length; i++) await sleep(50);
  assert.equal(peers.connected().length, connected.length, "the holders take part in the run");
  const replica = initialReplica(run);
  const self = { id: peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString(), joinedAt: Date.UTC(2025, 0, 2) };
  const transport = { publishContribution: async () => {}, publishCommit: async () => {}, sign: key.sign };
  const rounds = new Rounds(self, run, replica, transport, { roundTimeoutMs: 60_000, stopAt: 100, contribute: false }, log);
  rounds.onCommit(c0);
  assert.equal(rounds.head, 1);
  const parts = await syncParts({
    host: ours,
    runId: run.runId,
    self: self.id,
    rounds,
    replica,
    peers,
    log,
    planner: { plan: () => plan(ours) } as unknown as SnapshotPlanner,
    decode: (bytes) => new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)),
  });
  const catchUp = new CatchUp(parts, { joinWaitMs: 0, minPeers: 0, checkEvery: 10 }, abort.signal);
  return { catchUp, close: () => abort.abort() };
}

describe("a snapshot download and the DHT's plan", () => {
  it("does not wait for a slow plan when a connected peer serves the snapshot", async () => {
    const serving = await holder(afterC0);
    let asked = 0;
    const j = await joiner([serving], () => {
      asked++;
      return new Promise<Plan>(() => {}); // a DHT that never answers
    });
    try {
      const started = performance.now();
      const snap = await j.catchUp.downloadSnapshot(1);
      const took = performance.now() - started;
      assert.equal(asked, 1, "the plan was looked for");
      assert.equal(snap.iteration, 1);
      assert.equal(snap.checksum, afterC0.checksum);
      assert.equal(snap.via, "connected peers");
      // The plan's time limit is 3 s; a download from a connected peer on loopback takes far less.
      assert.ok(took < 2000, `took ${Math.round(took)} ms`);
    } finally {
      j.close();
    }
  });

  it("waits for the plan when no connected peer serves a snapshot, and downloads from its holder", async () => {
    const empty = await holder(null);
    const planned = await holder(afterC0);
    const j = await joiner([empty], async (ours) => {
      await sleep(400);
      // As the real planner does: holders we are not connected to are dialled.
      await ours.dial(planned.getMultiaddrs()[0]);
      const peers: PeerId[] = [planned.peerId];
      return { plan: { iteration: 1, holders: () => peers }, peers };
    });
    try {
      const started = performance.now();
      const snap = await j.catchUp.downloadSnapshot(1);
      assert.ok(performance.now() - started >= 400, "the plan was waited for");
      assert.equal(snap.via, "dht experts");
      assert.equal(snap.checksum, afterC0.checksum);
    } finally {
      j.close();
    }
  });
});
