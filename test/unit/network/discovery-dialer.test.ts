/** Finding 12: discovered peers dialled through a bounded, deduplicated queue, with a cool-down, and only at addresses we may reach. */
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { networkInterfaces } from "node:os";
import { describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PeerId } from "@libp2p/interface";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import { dialableAddress, localScope } from "../../../node/network/address-scope.js";
import { DiscoveryDialer } from "../../../node/network/discovery-dialer.js";
import { createLogger } from "../../../node/ground/index.js";

const log = createLogger({ level: "silent" });
const addr = [multiaddr("/ip4/203.0.113.9/tcp/4001")];
const peers = async (n: number): Promise<PeerId[]> =>
  Promise.all(Array.from({ length: n }, async () => peerIdFromPrivateKey(await generateKeyPair("Ed25519"))));

describe("finding 12: discovery dial queue", () => {
  it("at most `concurrency` dials at once and `maxQueued` waiting; the rest are dropped", async () => {
    const all = await peers(30);
    const release: (() => void)[] = [];
    let inFlight = 0;
    let peak = 0;
    const dialer = new DiscoveryDialer(
      () => {
        peak = Math.max(peak, ++inFlight);
        return new Promise<void>((r) => release.push(() => (inFlight--, r())));
      },
      { concurrency: 4, maxQueued: 10, cooldownMs: 60_000, timeoutMs: 10_000 },
      log,
    );
    const outcomes = all.map((p) => dialer.offer(p, addr));
    assert.equal(outcomes.filter((o) => o === "queued").length, 14, "4 dialling and 10 waiting");
    assert.equal(outcomes.filter((o) => o === "full").length, 16);
    assert.equal(peak, 4);
    while (release.length > 0) {
      release.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(peak, 4, "never more than 4 at once");
    assert.equal(dialer.counts.dialled, 14);
    assert.equal(dialer.pending, 0);
  });

  it("a peer queued or in flight is not queued twice; after its attempt it cools down; a peer with no address is not queued", async () => {
    const [a, b] = await peers(2);
    let now = 0;
    let fail: () => void = () => {};
    const dialer = new DiscoveryDialer(
      () => new Promise<void>((_, rej) => (fail = () => rej(new Error("black hole")))),
      { concurrency: 1, maxQueued: 4, cooldownMs: 60_000, timeoutMs: 10_000 },
      log,
      () => now,
    );
    assert.equal(dialer.offer(a, addr), "queued");
    assert.equal(dialer.offer(a, addr), "duplicate", "in flight");
    assert.equal(dialer.offer(b, addr), "queued");
    assert.equal(dialer.offer(b, addr), "duplicate", "waiting");
    fail();
    await new Promise((r) => setImmediate(r));
    assert.equal(dialer.counts.failed, 1);
    assert.equal(dialer.offer(a, addr), "cooling");
    now = 60_001;
    assert.equal(dialer.offer(a, addr), "queued");
    assert.equal(dialer.offer((await peers(1))[0], []), "no-address");
    dialer.stop();
  });

  it("dials only addresses in scope: public; loopback when listening on loopback; private only in one of our subnets", () => {
    const onLoopback = localScope(["/ip4/127.0.0.1/tcp/0"], false);
    const wildcard = localScope(["/ip4/0.0.0.0/tcp/0"], false);
    const ok = (a: string, s = wildcard) => dialableAddress(multiaddr(a), s);
    assert.equal(ok("/ip4/1.1.1.1/tcp/4001"), true);
    assert.equal(ok("/ip4/8.8.8.8/tcp/4001"), true);
    assert.equal(ok("/dns4/example.org/tcp/4001"), true);
    assert.equal(ok("/ip4/127.0.0.1/tcp/4001"), false, "loopback, not listening on it");
    assert.equal(ok("/ip6/::1/tcp/4001"), false);
    assert.equal(ok("/ip4/127.0.0.1/tcp/4001", onLoopback), true, "a local swarm");
    // 10.255.255.0/24 and fd00:dead::/32 are on no interface of a test machine.
    assert.equal(ok("/ip4/10.255.255.7/tcp/22"), false);
    assert.equal(ok("/ip4/169.254.169.254/tcp/80"), false, "the cloud metadata address");
    assert.equal(ok("/ip6/fd00:dead::1/tcp/22"), false);
    assert.equal(ok("/ip4/10.255.255.7/tcp/22", localScope([], true)), true, "dialAnyDiscoveredAddress");
    // A LAN we are on (as mDNS finds it): a neighbour in the subnet of one of our interfaces.
    const lan = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === "IPv4");
    if (lan) assert.equal(ok(`/ip4/${lan.address}/tcp/4001`), true, `our own subnet ${lan.cidr}`);
  });
});
