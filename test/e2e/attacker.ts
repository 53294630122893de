/**
 * A hostile peer for e2e tests: a real libp2p node with its own Ed25519 identity, dialled into
 * the honest nodes, speaking the real wire (StrictSign gossip, the same codecs). It accepts every
 * message it hears, so it learns what honest nodes publish and can forge from it.
 */
import "../../node/polyfills.js";
import { multiaddr } from "@multiformats/multiaddr";
import { type Signer, signerOf } from "../../node/chain/signatures.js";
import { createSwarmNode, defaultNetworkOptions, type SwarmNode } from "../../node/network/libp2p.js";
import { createLogger } from "../../node/observe/logger.js";
import { loadOrCreateIdentity } from "../../node/store/identity.js";
import { type Node, tempDir } from "./node-process.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Attacker {
  readonly node: SwarmNode;
  /** Its peer id string. */
  readonly id: string;
  /** Signs with its key, as a node signs contributions and commits. */
  readonly sign: Signer;
  /** Publishes on a topic; a failure (nobody subscribed yet) is ignored. */
  publish(topic: string, data: Uint8Array): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the attacker, dials every node, subscribes to `topics` and waits until `nodes.length` peers hear it on the first. */
export async function startAttacker(nodes: readonly Node[], topics: readonly string[]): Promise<Attacker> {
  const { privateKey, peerId } = await loadOrCreateIdentity(await tempDir());
  const node = await createSwarmNode(
    { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [], gossipHeartbeatMs: 100 },
    privateKey,
    createLogger({ level: "silent" }),
  );
  for (const n of nodes) await node.dial(multiaddr(await n.address()));
  for (const t of topics) node.services.pubsub.subscribe(t);
  node.services.pubsub.addEventListener("gossipsub:message", (e) =>
    node.services.pubsub.reportMessageValidationResult(e.detail.msgId, e.detail.propagationSource.toString(), "accept" as never),
  );
  for (let i = 0; i < 50 && node.services.pubsub.getSubscribers(topics[0]).length < nodes.length; i++) await sleep(100);
  return {
    node,
    id: peerId.toString(),
    sign: signerOf(privateKey),
    publish: async (topic, data) => {
      await node.services.pubsub.publish(topic, data).catch(() => {});
    },
    stop: async () => {
      await node.stop();
    },
  };
}
