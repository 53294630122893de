/**
 * A hostile peer for e2e tests: a real libp2p node with its own Ed25519 identity, dialled into
 * the honest nodes, speaking the real wire (gossip without envelope signatures, the same codecs, the sync
 * protocols with raw frames). By default it accepts every message it hears (so it relays, and
 * learns what honest nodes publish and can forge from it); with `relay: false` it ignores them
 * (a fuzzing pool must not relay each other's cases and multiply them).
 */
import "../../node/ground/polyfills.js";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PeerId } from "@libp2p/interface";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { lpStream } from "@libp2p/utils";
import { multiaddr } from "@multiformats/multiaddr";
import { type Signer, signerOf } from "../../node/chain/signatures.js";
import { createSwarmNode, defaultNetworkOptions, type SwarmNode } from "../../node/network/libp2p.js";
import { createLogger } from "../../node/ground/index.js";
import type { Node } from "./node-process.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Attacker {
  readonly node: SwarmNode;
  /** Its peer id string. */
  readonly id: string;
  /** Signs with its key, as a node signs contributions and commits. */
  readonly sign: Signer;
  /** Its peer id multihash bytes (what commits name as proposer and author). */
  readonly bytes: Uint8Array;
  /** Publishes on a topic; a failure (nobody subscribed yet) is ignored. */
  publish(topic: string, data: Uint8Array): Promise<void>;
  stop(): Promise<void>;
}

export interface AttackerOptions {
  /** Accept (and so forward) what it hears; default true. */
  readonly relay?: boolean;
}

/** Starts the attacker, dials every node, subscribes to `topics` and waits until `nodes.length` peers hear it on the first. */
export async function startAttacker(nodes: readonly Node[], topics: readonly string[], opts: AttackerOptions = {}): Promise<Attacker> {
  // A key in memory: identities are free, and a pool of them needs no data directories.
  const privateKey = await generateKeyPair("Ed25519");
  const peerId = peerIdFromPrivateKey(privateKey);
  const node = await createSwarmNode(
    { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [], gossipHeartbeatMs: 100 },
    privateKey,
    createLogger({ level: "silent" }),
  );
  for (const n of nodes) await node.dial(multiaddr(await n.address()));
  for (const t of topics) node.services.pubsub.subscribe(t);
  const verdict = opts.relay === false ? "ignore" : "accept";
  node.services.pubsub.addEventListener("gossipsub:message", (e) =>
    node.services.pubsub.reportMessageValidationResult(e.detail.msgId, e.detail.propagationSource.toString(), verdict as never),
  );
  for (let i = 0; i < 50 && node.services.pubsub.getSubscribers(topics[0]).length < nodes.length; i++) await sleep(100);
  return {
    node,
    id: peerId.toString(),
    bytes: peerId.toMultihash().bytes,
    sign: signerOf(privateKey),
    publish: async (topic, data) => {
      await node.services.pubsub.publish(topic, data).catch(() => {});
    },
    stop: async () => {
      await node.stop();
    },
  };
}

/** What became of a raw request: an answer frame came back, or the server closed or reset the stream, or nothing came in time. */
export type RawOutcome = "answered" | "closed" | "timeout";

/**
 * Opens `protocol` on `peer` and writes `bytes` as they are (length prefix included, so a hostile
 * prefix can be sent), closes its writing end, and waits up to `timeoutMs` for one reply frame.
 */
export async function rawRequest(
  attacker: Attacker,
  peer: PeerId,
  protocol: string,
  bytes: Uint8Array,
  timeoutMs = 2000,
): Promise<RawOutcome> {
  const signal = AbortSignal.timeout(timeoutMs);
  let stream;
  try {
    stream = await attacker.node.dialProtocol(peer, protocol, { signal });
  } catch {
    return signal.aborted ? "timeout" : "closed";
  }
  try {
    if (bytes.byteLength > 0) stream.send(bytes);
    await stream.close({ signal });
    await lpStream(stream, { maxDataLength: 16 * 1024 * 1024, maxBufferSize: 16 * 1024 * 1024 + 16 }).read({ signal });
    return "answered";
  } catch {
    stream.abort(new Error("fuzz request done"));
    return signal.aborted ? "timeout" : "closed";
  }
}

/** Answers every request on `protocol` with `reply()`'s raw bytes (length prefix included), then closes. */
export async function serveRaw(attacker: Attacker, protocol: string, reply: () => Uint8Array, onRequest: () => void = () => {}): Promise<void> {
  await attacker.node.handle(
    protocol,
    async (stream) => {
      onRequest();
      try {
        stream.send(reply());
        await stream.close({ signal: AbortSignal.timeout(2000) });
      } catch {
        stream.abort(new Error("hostile reply done"));
      }
    },
    { maxInboundStreams: 64 },
  );
}
