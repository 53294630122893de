// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { multiaddr } from "@multiformats/multiaddr";
import { ipKey } from "../../../node/network/connection-limits.js";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions, type NetworkOptions } from "../../../node/network/network-options.js";
import { createLogger } from "../../../node/ground/index.js";

const log = createLogger({ level: "silent" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loopback: NetworkOptions = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [] };
/** Waits (up to 2.5 s) until the node holds `n` connections; returns how many it holds. */
async function settle(node: SwarmNode, n: number): Promise<number> {
  for (let i = 0; i < 50 && node.getConnections().length !== n; i++) await sleep(50);
  return node.getConnections().length;
}
const host = async (opts: NetworkOptions) => createSwarmNode(opts, await generateKeyPair("Ed25519"), log);

describe("per-IP connection limit", () => {
  it("counts IPv4 per address and IPv6 per /64; other addresses are not counted", () => {
    assert.equal(ipKey(multiaddr("/ip4/203.0.113.7/tcp/4001")), "203.0.113.7");
    assert.equal(ipKey(multiaddr("/ip6/2001:db8:0:1:aaaa::1/tcp/4001")), "2001:db8:0:1::/64");
    assert.equal(ipKey(multiaddr("/ip6/2001:db8:0:1:bbbb:cccc:dddd:eeee/tcp/4001")), "2001:db8:0:1::/64");
    assert.equal(ipKey(multiaddr("/ip6/2001:db8::1/tcp/4001")), "2001:db8:0:0::/64");
    assert.equal(ipKey(multiaddr("/ip6/::ffff:198.51.100.2/tcp/1")), "198.51.100.2");
    assert.equal(ipKey(multiaddr("/dns4/example.org/tcp/4001")), null);
  });

  it("a host past its cap is refused until one of its connections closes (real libp2p over TCP)", async () => {
    // Loopback counted here (it is exempt by default); the per-second rate limit raised so that
    // only the per-IP cap refuses.
    const server = await host({ ...loopback, maxConnectionsPerIp: 3, limitLoopback: true, inboundConnectionThreshold: 1000 });
    const clients: SwarmNode[] = await Promise.all(Array.from({ length: 5 }, () => host(loopback)));
    try {
      const addr = server.getMultiaddrs()[0];
      const outcomes = [];
      for (const c of clients)
        outcomes.push(await c.dial(addr, { signal: AbortSignal.timeout(5000) }).then(() => "open", () => "refused"));
      assert.deepEqual(outcomes, ["open", "open", "open", "refused", "refused"]);
      assert.equal(await settle(server, 3), 3);
      // One closes: its slot is free again.
      await clients[0].stop();
      assert.equal(await settle(server, 2), 2);
      await clients[3].dial(addr, { signal: AbortSignal.timeout(5000) });
      assert.equal(await settle(server, 3), 3);
    } finally {
      await Promise.all([server, ...clients].map((n) => n.stop()));
    }
  });

  it("loopback is exempt by default, and 0 means no limit", async () => {
    for (const opts of [{ maxConnectionsPerIp: 1 }, { maxConnectionsPerIp: 0, limitLoopback: true }]) {
      const server = await host({ ...loopback, ...opts, inboundConnectionThreshold: 1000 });
      const clients = await Promise.all(Array.from({ length: 3 }, () => host(loopback)));
      try {
        for (const c of clients) await c.dial(server.getMultiaddrs()[0], { signal: AbortSignal.timeout(5000) });
        assert.equal(await settle(server, 3), 3);
      } finally {
        await Promise.all([server, ...clients].map((n) => n.stop()));
      }
    }
  });
});
