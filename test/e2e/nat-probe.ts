/**
 * A bare libp2p host (node/libp2p.ts, no training) for the DCUtR measurement in nat.test.ts, run
 * inside a network namespace. Does nothing when imported (the test runner loads every file here).
 *
 *   nat-probe.js relay <listen>                               prints {"addr"} and stays up
 *   nat-probe.js listener <listen> <relay> [public]           prints {"circuit"} once it holds a reservation
 *   nat-probe.js dialer <listen> <relay> <circuit> <ms> [public]  dials the circuit address, waits <ms>
 *                                               for DCUtR, prints {"relayed","direct","seconds"}
 * `public`: announce this address too (with the relay address): the router's address and the
 * listen port, which is what a port-preserving NAT would map the listen port to if outgoing
 * connections left from it. Without it a NATed node has no public address for DCUtR to use.
 * Each prints one JSON line per event on stdout and exits on SIGTERM.
 */
import { generateKeyPair } from "@libp2p/crypto/keys";
import { multiaddr } from "@multiformats/multiaddr";
import { createSwarmNode, defaultNetworkOptions } from "../../node/network/libp2p.js";
import { createLogger } from "../../node/ground/index.js";

const [role, listen, relay, ...rest] = process.argv.slice(2);
const [target, waitMs, guess] = role === "dialer" ? rest : [undefined, undefined, rest[0]];

function emit(obj: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

async function probe(): Promise<void> {
  const node = await createSwarmNode(
    {
      ...defaultNetworkOptions,
      listen: [listen],
      bootstrap: relay ? [relay] : [],
      mdns: false,
      // A public address counts only once confirmed (AutoNAT) or announced: announce it.
      ...(role === "relay" ? { announce: [listen] } : {}),
      ...(guess ? { announce: [guess, `${relay}/p2p-circuit`] } : {}),
      relay: role === "relay",
      behindNat: role !== "relay",
    },
    await generateKeyPair("Ed25519"),
    createLogger({ level: "warn" }),
  );
  process.on("SIGTERM", () => void Promise.resolve(node.stop()).then(() => process.exit(0)));
  if (role === "relay") {
    emit({ addr: `${listen}/p2p/${node.peerId.toString()}` });
    return;
  }
  if (role === "listener") {
    const circuit = () => node.getMultiaddrs().find((a) => a.toString().includes("/p2p-circuit"));
    while (!circuit()) await new Promise((r) => setTimeout(r, 100));
    emit({ circuit: circuit()?.toString() });
    return;
  }
  // dialer: a relayed connection first, then DCUtR (run by the listener's side) may add a direct one.
  const remote = multiaddr(target as string);
  const peer = remote.getComponents().findLast((c) => c.name === "p2p")?.value as string;
  const t0 = Date.now();
  const conn = await node.dial(remote, { signal: AbortSignal.timeout(10_000) });
  emit({ relayed: conn.remoteAddr.toString().includes("/p2p-circuit"), limited: conn.limits != null });
  const deadline = t0 + Number(waitMs);
  let direct: string | undefined;
  while (Date.now() < deadline && !direct) {
    direct = node
      .getConnections()
      .find((c) => c.remotePeer.toString() === peer && !c.remoteAddr.toString().includes("/p2p-circuit"))
      ?.remoteAddr.toString();
    if (!direct) await new Promise((r) => setTimeout(r, 200));
  }
  emit({ direct: direct ?? null, seconds: (Date.now() - t0) / 1000 });
  await node.stop();
  process.exit(0);
}

if (role) {
  probe().catch((err: Error) => {
    emit({ error: err.message });
    process.exit(1);
  });
}
