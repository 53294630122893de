/**
 * Finding 3a: a peer that subscribes and never reads. Against fake connections, the guard's
 * rules; between real libp2p hosts over TCP, a paused gossipsub subscriber gets its stream reset
 * at the write-buffer cap, or is disconnected by the guard before it, while a reading peer
 * receives everything.
 */
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { Connection, Stream } from "@libp2p/interface";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { SlowReaderGuard } from "../../../node/network/slow-reader-guard.js";
import { createLogger } from "../../../node/ground/index.js";

const log = createLogger({ level: "silent" });
const MiB = 1024 * 1024;

/** A fake connection whose streams' write buffers the test sets. */
function fakeConn(peer: string, buffers: number[]) {
  const streams = buffers.map((b) => ({ writeBufferLength: b }) as unknown as Stream & { writeBufferLength: number });
  let aborted = false;
  const conn = {
    remotePeer: { toString: () => peer },
    streams,
    abort: () => {
      aborted = true;
    },
  } as unknown as Connection;
  return { conn, streams, aborted: () => aborted };
}

describe("finding 3a: slow-reader guard rules", () => {
  const opts = { intervalMs: 1000, stallBytes: MiB, stallSamples: 3, maxTotalBytes: 10 * MiB };

  it("a buffer above stallBytes that does not shrink for stallSamples samples drops its connection; one that shrinks does not", () => {
    const stuck = fakeConn("stuck", [2 * MiB]);
    const moving = fakeConn("moving", [4 * MiB]);
    const small = fakeConn("small", [MiB / 2]);
    const conns = [stuck, moving, small];
    const guard = new SlowReaderGuard({ getConnections: () => conns.filter((c) => !c.aborted()).map((c) => c.conn) }, log, opts);
    for (let i = 0; i < 3; i++) {
      guard.check();
      moving.streams[0].writeBufferLength -= MiB / 4; // draining, slowly
      assert.equal(stuck.aborted(), false, `not before ${opts.stallSamples} stalled samples`);
    }
    guard.check();
    assert.equal(stuck.aborted(), true);
    assert.equal(moving.aborted(), false);
    assert.equal(small.aborted(), false);
    assert.equal(guard.closed.stalled, 1);
  });

  it("over maxTotalBytes for everyone, the largest holders are dropped until under it", () => {
    const conns = [fakeConn("a", [3 * MiB]), fakeConn("b", [5 * MiB, MiB]), fakeConn("c", [4 * MiB])];
    const guard = new SlowReaderGuard({ getConnections: () => conns.map((c) => c.conn) }, log, opts);
    guard.check();
    assert.deepEqual(conns.map((c) => c.aborted()), [false, true, false], "13 MiB held: b (6 MiB) goes, 7 MiB stay");
    assert.equal(guard.closed["over-total"], 1);
  });
});

describe("finding 3a: a paused gossipsub subscriber between real hosts", () => {
  const topic = "/seedswarm/test/commit";
  const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false, scoredTopics: [topic], gossipHeartbeatMs: 100 };
  const started: SwarmNode[] = [];
  const host = async () => {
    const n = await createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log);
    started.push(n);
    return n;
  };
  after(async () => {
    await Promise.all(started.map((n) => n.stop()));
  });

  /** A host that takes the victim's gossip stream and never reads it, subscribed to `topic`. */
  const pausedSubscriber = async (victim: SwarmNode) => {
    const a = await host();
    await a.handle(["/meshsub/1.2.0", "/meshsub/1.1.0", "/meshsub/1.0.0"], (stream) => stream.pause(), { force: true });
    await a.dial(victim.getMultiaddrs()[0]);
    a.services.pubsub.subscribe(topic);
    for (let i = 0; i < 100 && !victim.services.pubsub.getSubscribers(topic).some((p) => p.equals(a.peerId)); i++) await sleep(50);
    assert.ok(victim.services.pubsub.getSubscribers(topic).some((p) => p.equals(a.peerId)), "the victim sees the subscription");
    return a;
  };
  const heldFor = (victim: SwarmNode, peer: SwarmNode) =>
    victim.getConnections(peer.peerId).reduce((sum, c) => sum + c.streams.reduce((s, x) => s + x.writeBufferLength, 0), 0);

  it("publishing 24 MiB: the paused peer's stream is reset at the 16 MiB cap; a reading peer gets every message", async () => {
    const victim = await host();
    const reader = await host();
    await reader.dial(victim.getMultiaddrs()[0]);
    reader.services.pubsub.subscribe(topic);
    let got = 0;
    reader.services.pubsub.addEventListener("gossipsub:message", (e) => {
      got++;
      reader.services.pubsub.reportMessageValidationResult(e.detail.msgId, e.detail.propagationSource.toString(), "accept" as never);
    });
    const paused = await pausedSubscriber(victim);
    let peak = 0;
    for (let i = 0; i < 48; i++) {
      const data = new Uint8Array(MiB / 2).fill(i);
      await victim.services.pubsub.publish(topic, data);
      peak = Math.max(peak, heldFor(victim, paused));
      await sleep(5);
    }
    assert.ok(peak <= 16 * MiB + MiB, `at most the cap held for the paused peer (peak ${(peak / MiB).toFixed(1)} MiB)`);
    assert.ok(heldFor(victim, paused) < MiB, `the paused peer's buffer was released (${heldFor(victim, paused)} bytes)`);
    for (let i = 0; i < 100 && got < 48; i++) await sleep(50);
    assert.equal(got, 48, "the reading peer received all 48 messages");
  });

  it("a paused peer below the cap is disconnected by the guard within about 10 s", async () => {
    const victim = await host();
    const paused = await pausedSubscriber(victim);
    // Published until more than 1 MiB waits for it (the socket's own buffers take the first few
    // on a quiet machine, and a busy one forms the mesh later), at most 12 MiB: below the cap.
    for (let i = 0; i < 24 && heldFor(victim, paused) <= MiB; i++) {
      await victim.services.pubsub.publish(topic, new Uint8Array(MiB / 2).fill(i));
      await sleep(i < 6 ? 0 : 100);
    }
    await sleep(500);
    assert.ok(heldFor(victim, paused) > MiB, "bytes wait for the paused peer");
    // The connection that holds them (the peer may be dialled again later: a fresh connection
    // holds nothing until we publish again).
    const holding = victim.getConnections(paused.peerId).filter((c) => c.streams.some((x) => x.writeBufferLength > MiB));
    assert.equal(holding.length, 1);
    const began = Date.now();
    while (holding[0].status === "open" && Date.now() - began < 20_000) await sleep(200);
    assert.notEqual(holding[0].status, "open", "disconnected");
    assert.ok(Date.now() - began < 15_000, `after ${Date.now() - began} ms`);
    assert.ok(heldFor(victim, paused) < MiB, "nothing left held for it");
  });
});
