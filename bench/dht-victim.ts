/**
 * The victim of bench/adversary-dht.ts, in a process of its own so that its RSS is its own: a
 * libp2p host with the project's settings (node/network/libp2p.ts), storing the expert records of
 * one run (argv[2]). Prints `{ addr, peerId }` once listening; on each stdin line, collects garbage
 * (run with --expose-gc) and prints `{ rssMb, records }` (the datastore's record key space).
 */
import "../node/ground/polyfills.js";
import { createInterface } from "node:readline";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { createSwarmNode, defaultNetworkOptions } from "../node/network/libp2p.js";
import { createLogger } from "../node/ground/index.js";
import { datastoreOf } from "../test/e2e/dht-attacker.js";

const runId = process.argv[2];
const node = await createSwarmNode(
  { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [], dhtRunIds: [runId] },
  await generateKeyPair("Ed25519"),
  createLogger({ level: "silent" }),
);
const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
out({ addr: node.getMultiaddrs()[0].toString(), peerId: node.peerId.toString() });
for await (const _ of createInterface({ input: process.stdin })) {
  (globalThis as { gc?: () => void }).gc?.();
  out({ rssMb: process.memoryUsage().rss / 2 ** 20, records: datastoreOf(node).use().find((u) => u.prefix === "/dht/record/") });
}
await node.stop();
