/**
 * A stranger's libp2p node in its own process, for the swarm-key test: it dials one address
 * (with the swarm key file given, or none) and prints one JSON line, `{"connected":bool,...}`.
 * Its own process, so whatever a refused handshake leaves behind in libp2p (late socket errors)
 * cannot reach the test runner's process. Usage: node dial-probe.js <multiaddr> [key file]
 */
import "../../node/ground/polyfills.js";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { multiaddr } from "@multiformats/multiaddr";
import { createSwarmNode, defaultNetworkOptions } from "../../node/network/libp2p.js";
import { readSwarmKey } from "../../node/network/swarm-key.js";
import { createLogger } from "../../node/ground/index.js";

const [addr, keyFile] = process.argv.slice(2);
const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
const node = await createSwarmNode(
  {
    ...defaultNetworkOptions,
    listen: ["/ip4/127.0.0.1/tcp/0"],
    mdns: false,
    bootstrap: [],
    ...(keyFile ? { swarmKey: await readSwarmKey(keyFile) } : {}),
  },
  await generateKeyPair("Ed25519"),
  createLogger({ level: "silent" }),
);
try {
  const conn = await node.dial(multiaddr(addr), { signal: AbortSignal.timeout(5000) });
  say({ connected: true, remotePeer: conn.remotePeer.toString() });
} catch (err) {
  say({ connected: false, open: node.getConnections().length, error: (err as Error).message });
}
await Promise.resolve(node.stop()).catch(() => {});
process.exit(0);
