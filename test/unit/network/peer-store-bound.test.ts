// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { noise } from "@chainsafe/libp2p-noise";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { identify } from "@libp2p/identify";
import { tcp } from "@libp2p/tcp";
import { yamux } from "@libp2p/yamux";
import { Key } from "interface-datastore";
import { createLibp2p, type Libp2p } from "libp2p";
import { CompactMemoryDatastore } from "../../../node/network/compact-datastore.js";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions, type NetworkOptions } from "../../../node/network/network-options.js";
import { createLogger } from "../../../node/ground/index.js";

const log = createLogger({ level: "silent" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loopback: NetworkOptions = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [] };

/** A fresh identity as an attacker makes them for free: TCP, Noise, yamux and identify, nothing else. */
async function identity(): Promise<Libp2p> {
  return createLibp2p({
    privateKey: await generateKeyPair("Ed25519"),
    addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify() },
  });
}

/** `count` fresh identities, one after another, connect to `victim` (each stored once identify ran on its side) and leave; their ids in order. */
async function crowd(victim: SwarmNode, count: number): Promise<string[]> {
  const addr = victim.getMultiaddrs()[0];
  const left: string[] = [];
  for (let i = 0; i < count; i++) {
    const sybil = await identity();
    await sybil.dial(addr);
    for (let w = 0; w < 100 && !(await victim.peerStore.has(sybil.peerId)); w++) await sleep(20);
    assert.ok(await victim.peerStore.has(sybil.peerId), `identity ${i} was never stored`);
    left.push(sybil.peerId.toString());
    await sybil.stop();
  }
  return left;
}

/** The peers `victim` holds records of, once its sweep brought them within `cap` (or 5 s passed). */
async function heldWithin(victim: SwarmNode, cap: number): Promise<string[]> {
  let held = (await victim.peerStore.all()).map((p) => p.id.toString());
  for (let w = 0; w < 100 && held.length > cap; w++) {
    await sleep(50);
    held = (await victim.peerStore.all()).map((p) => p.id.toString());
  }
  assert.ok(held.length <= cap, `${held.length} records kept, cap ${cap}`);
  return held;
}

describe("peer store bound", () => {
  it("a crowd of identities that connect and leave keeps at most the cap; connected and recent peers stay (real libp2p over TCP)", async () => {
    const cap = 16;
    const victim = await createSwarmNode({ ...loopback, maxStoredPeers: cap }, await generateKeyPair("Ed25519"), log);
    const friend = await identity();
    try {
      await friend.dial(victim.getMultiaddrs()[0]);
      const left = await crowd(victim, 3 * cap);
      const held = await heldWithin(victim, cap);
      // Without the bound all 49 stay (libp2p forgets a peer six hours after its last update).
      assert.ok(held.includes(friend.peerId.toString()), "the connected peer's record was deleted");
      assert.ok(held.includes(left[left.length - 1]), "the peer that left last was deleted before older ones");
      assert.ok(!held.includes(left[0]), "the peer that left first is still held");
      // The sweep deleted records only: the connected peer's connection is untouched.
      assert.equal(victim.getConnections(friend.peerId).length, 1);
    } finally {
      await friend.stop();
      await victim.stop();
    }
  });

  it("a bootstrap peer that left before the crowd came is never deleted (real libp2p over TCP)", async () => {
    const cap = 8;
    const boot = await identity();
    const bootAddr = `${boot.getMultiaddrs()[0].toString()}/p2p/${boot.peerId.toString()}`;
    const victim = await createSwarmNode({ ...loopback, bootstrap: [bootAddr], maxStoredPeers: cap }, await generateKeyPair("Ed25519"), log);
    try {
      // The bootstrap module dials it after start; then it leaves, first of all: the peer that
      // left longest ago, which the sweep would delete first were it not a bootstrap peer.
      for (let w = 0; w < 200 && victim.getConnections(boot.peerId).length === 0; w++) await sleep(25);
      assert.equal(victim.getConnections(boot.peerId).length, 1, "the node never dialled its bootstrap peer");
      await boot.stop();
      // 23 more departures: with the bootstrap peer's, 24, a multiple of cap / 4, after which a
      // sweep runs at once (otherwise at the 30 s timer).
      await crowd(victim, 3 * cap - 1);
      const held = await heldWithin(victim, cap);
      assert.ok(held.includes(boot.peerId.toString()), "the bootstrap peer's record was deleted");
    } finally {
      await victim.stop();
    }
  });

  it("stores a view into a larger buffer as a copy of its own size, and a whole array as it is", async () => {
    const ds = new CompactMemoryDatastore();
    const slab = new Uint8Array(8192).fill(7);
    const view = slab.subarray(100, 160);
    await ds.put(new Key("/a"), view);
    const got = await ds.get(new Key("/a"));
    assert.equal(got.byteLength, 60);
    assert.equal(got.buffer.byteLength, 60, "the stored value keeps its 8 KiB backing buffer");
    assert.deepEqual(got, view);
    slab.fill(0);
    assert.equal((await ds.get(new Key("/a")))[0], 7, "the stored value shares memory with the caller's buffer");
    const whole = new Uint8Array(32).fill(1);
    await ds.put(new Key("/b"), whole);
    assert.equal(await ds.get(new Key("/b")), whole);
    // Batches go through put as well (peer-store and kad-dht write both ways).
    const b = ds.batch();
    b.put(new Key("/c"), slab.subarray(0, 10));
    await b.commit();
    assert.equal((await ds.get(new Key("/c"))).buffer.byteLength, 10);
  });
});
