/**
 * The libp2p host: one function that builds it, every non-obvious setting explained where it is
 * set. TCP + Noise + Yamux; identify and ping (kad-dht needs a service named `ping`); a private
 * kad-dht for run discovery; gossipsub for contributions and commits; bootstrap and mDNS discovery.
 *
 * Gossip contract for callers: `asyncValidation` is on, so gossipsub forwards nothing by itself.
 * Whoever handles a topic listens to `gossipsub:message`, validates (size guard, decode, checks),
 * and calls `reportMessageValidationResult(msgId, propagationSource, verdict)` for every message.
 * Only Accept forwards it; Reject also lowers the sender's score (on a topic in `scoredTopics`).
 * The plain `message` event fires before validation: do not use it for application data.
 *
 * NAT (docs/deploy.md, "NAT and relays"): every node dials relay addresses, answers and asks AutoNAT
 * dial-backs and attempts DCUtR hole punching on relayed connections; `relay` offers circuit relay
 * v2 to others; `behindNat` reserves a slot on a relay (listen on `/p2p-circuit`) and asks the
 * gateway for a UPnP port mapping. Relayed connections keep the relay's default limits, so only
 * protocols that opt into limited connections use them (gossipsub and state sync do not): a node
 * behind NAT gossips and downloads snapshots over the direct connections it opened itself.
 */
import "../ground/polyfills.js";
import { createHash } from "node:crypto";
import { noise } from "@chainsafe/libp2p-noise";
import { autoNAT } from "@libp2p/autonat";
import { bootstrap } from "@libp2p/bootstrap";
import { type CircuitRelayService, circuitRelayServer, circuitRelayTransport } from "@libp2p/circuit-relay-v2";
import { dcutr } from "@libp2p/dcutr";
import {
  type GossipSub,
  type GossipSubComponents,
  type GossipsubOpts,
  gossipsub,
  StrictNoSign,
  type TopicValidatorResult,
} from "@libp2p/gossipsub";
import type {
  PeerScoreParams,
  PeerScoreThresholds,
  TopicScoreParams,
} from "@libp2p/gossipsub/score";
import { type Identify, identify } from "@libp2p/identify";
import type { ConnectionGater, PrivateKey } from "@libp2p/interface";
import { type KadDHT, kadDHT, passthroughMapper } from "@libp2p/kad-dht";
import { mdns } from "@libp2p/mdns";
import { preSharedKey } from "@libp2p/pnet";
import { type Ping, ping } from "@libp2p/ping";
import { tcp } from "@libp2p/tcp";
import { type UPnPNAT, uPnPNAT } from "@libp2p/upnp-nat";
import { yamux } from "@libp2p/yamux";
import { multiaddr } from "@multiformats/multiaddr";
import { createLibp2p, type Libp2p, type Libp2pOptions } from "libp2p";
import { CID } from "multiformats/cid";
import * as raw from "multiformats/codecs/raw";
import { create as createDigest } from "multiformats/hashes/digest";
import { sha256 } from "multiformats/hashes/sha2";
import { EXPERT_NAMESPACE } from "../../protocol/experts.js";
import { expertRecordSelector, expertRecordValidator } from "../../protocol/experts.js";
import { expertCopies } from "./expert-copies.js";
import type { Logger } from "../ground/index.js";
import { CompactMemoryDatastore } from "./compact-datastore.js";
import { ipLimitGater } from "./connection-limits.js";
import { defaultNetworkOptions, type NetworkOptions } from "./network-options.js";
import { PeerStoreBound } from "./peer-store-bound.js";
import { dialableAddress, localScope } from "./address-scope.js";
import { DiscoveryDialer } from "./discovery-dialer.js";
import { SlowReaderGuard } from "./slow-reader-guard.js";

export { defaultNetworkOptions, type NetworkOptions } from "./network-options.js";

/**
 * Largest gossipsub RPC frame accepted; the length prefix is checked before anything is decoded
 * or buffered. One frame can carry several messages (an IWANT reply batches every message asked
 * for), and a commit at the protocol limits is about 4.1 MiB (protocol/limits.ts), so the frame
 * limit sits well above one message. A frame over it closes that peer's gossip stream. The
 * per-message guard is the application's: `MAX_MESSAGE_BYTES[kind]` before decoding.
 */
export const MAX_GOSSIP_RPC_BYTES = 8 * 1024 * 1024;

/** Most bytes any stream may hold unsent before it is reset: see the yamux setting. */
export const MAX_STREAM_WRITE_BUFFER_BYTES = 16 * 1024 * 1024;

/** Relay slots a `--relay` node offers (the library's default is 15): a swarm's NATed members. */
export const RELAY_MAX_RESERVATIONS = 128;

/** The gossipsub service with the methods of its implementation that the interface hides. */
export interface SwarmPubSub extends GossipSub {
  /** The local score of a peer (0 for one never seen); cached for one heartbeat. */
  getScore(peerId: string): number;
  /** The verdict on a message received with `asyncValidation`; see the module comment. */
  reportMessageValidationResult(
    msgId: string,
    propagationSource: string,
    acceptance: TopicValidatorResult,
  ): void;
}

export type SwarmServices = {
  identify: Identify;
  ping: Ping;
  dht: KadDHT;
  pubsub: SwarmPubSub;
  autoNAT: unknown;
  dcutr: unknown;
  /** Present with `relay`. */
  relay?: CircuitRelayService;
  /** Present with `behindNat`. */
  upnp?: UPnPNAT;
};

export type SwarmNode = Libp2p<SwarmServices>;

/**
 * Per-topic score parameters. Positive terms are small and capped (at most 3 + 10, and
 * `topicScoreCap` caps the total at 10) so that one Reject (-20) outweighs any good record:
 * a peer that sends a malformed or equivocating message drops below 0 at once, as in Lodestar
 * where one invalid message cancels the maximum positive score.
 */
export const swarmTopicScoreParams: TopicScoreParams = {
  topicWeight: 1,
  // P1, time in mesh: +0.01 per second, capped at 300 s (+3); rewards staying, not much.
  timeInMeshWeight: 0.01,
  timeInMeshQuantum: 1000,
  timeInMeshCap: 300,
  // P2, first deliveries: +0.5 each, capped at 20 (+10), decaying by 10% per second.
  firstMessageDeliveriesWeight: 0.5,
  firstMessageDeliveriesDecay: 0.9,
  firstMessageDeliveriesCap: 20,
  // P3/P3b, mesh delivery rate: off. Traffic comes in bursts per round, so a quiet honest peer
  // would be penalized between rounds; a peer that withholds is caught by the round deadlines.
  meshMessageDeliveriesWeight: 0,
  meshMessageDeliveriesDecay: 0.5,
  meshMessageDeliveriesCap: 100,
  meshMessageDeliveriesThreshold: 1,
  meshMessageDeliveriesWindow: 10,
  meshMessageDeliveriesActivation: 5000,
  meshFailurePenaltyWeight: 0,
  meshFailurePenaltyDecay: 0.5,
  // P4, invalid messages: -20 x count^2; decays 1% per second (half-life about 70 s).
  invalidMessageDeliveriesWeight: -20,
  invalidMessageDeliveriesDecay: 0.99,
};

/** Weight of the application's score (P5); see peerScoreParams. */
export const APP_SPECIFIC_WEIGHT = 2;

/** Peer score parameters apart from the per-topic ones. */
const peerScoreParams: Partial<PeerScoreParams> = {
  topicScoreCap: 10,
  // P5, the application's own score (penalties charged to the signer of a provably bad message:
  // a usurped rank or a lying checksum -50, an equivocation -100, a bad /commits reply -20),
  // weighted 2: one usurp or lie (-100) is past graylistThreshold (-80) even after the best
  // positive record (+10), a bad reply (-40) stops our gossip to the peer. The callback is given
  // per node (NetworkOptions.appSpecificScore); without one it is 0.
  appSpecificWeight: APP_SPECIFIC_WEIGHT,
  // P6 off: tests, benches and multi-GPU hosts run many honest nodes behind one IP. Sybils gain
  // nothing from colocation here: contributions are signed and P4 punishes each identity.
  IPColocationFactorWeight: 0,
  // P7: broken IWANT promises and early re-grafts; a few are tolerated under load.
  behaviourPenaltyWeight: -10,
  behaviourPenaltyThreshold: 6,
  behaviourPenaltyDecay: 0.9,
  decayInterval: 1000,
  decayToZero: 0.01,
  // A peer cannot clear a bad score by reconnecting within an hour.
  retainScore: 3600 * 1000,
};

/**
 * Thresholds against one Reject = -20: after one, a fresh peer gets no gossip from us; after
 * two (-80 with no positive record) we stop publishing to it; after three we drop its RPCs.
 */
const peerScoreThresholds: PeerScoreThresholds = {
  gossipThreshold: -10,
  publishThreshold: -50,
  graylistThreshold: -80,
  // Peer exchange is off (doPX false); the threshold only matters if it is turned on.
  acceptPXThreshold: 10,
  // Below the reachable positive scores (cap 10), so opportunistic grafting can trigger.
  opportunisticGraftThreshold: 2,
};

/** Gossipsub settings; see the module comment for the validation contract. */
function gossipOptions(opts: NetworkOptions): Partial<GossipsubOpts> {
  const topics: Record<string, TopicScoreParams> = {};
  for (const t of opts.scoredTopics ?? []) topics[t] = swarmTopicScoreParams;
  return {
    // No envelope signatures: every message carries its author's own signature over its content
    // (protocol/signing.ts), which validation checks, so gossipsub's per-message sign and verify
    // (a key import each) would only repeat it. Message ids are the SHA-256 of the data. A node
    // with another policy drops our messages silently.
    globalSignaturePolicy: StrictNoSign,
    // Ed25519 signatures are deterministic, so a message made again (a commit re-proposed after
    // a fork switch back) is the same bytes, the same id: already out there, not an error.
    ignoreDuplicatePublishError: true,
    // The application validates and reports each message (see the module comment).
    asyncValidation: true,
    // A node alone in a run (first node, or peers not yet connected) still publishes.
    allowPublishToZeroTopicPeers: true,
    // The publisher handles its own message where it publishes it; an echo would count it twice.
    emitSelf: false,
    // All our nodes speak gossipsub; floodsub peers could not be scored or limited the same way.
    fallbackToFloodsub: false,
    heartbeatInterval: opts.gossipHeartbeatMs ?? defaultNetworkOptions.gossipHeartbeatMs,
    maxInboundDataLength: MAX_GOSSIP_RPC_BYTES,
    // A peer that subscribes and never reads (finding 3) would otherwise keep every publish and
    // forward in its stream's write buffer: past this many bytes waiting the stream is reset.
    // Without the option gossipsub sets no limit at all (yamux's default is Infinity).
    maxOutboundBufferSize: opts.maxGossipWriteBufferBytes,
    // Decode limits per RPC stay at the library's finite defaults (5000 messages, ids or
    // subscriptions; 16 peer infos): an IWANT reply legitimately carries many messages.
    // Only the run's topics: subscriptions and messages on any other topic are dropped before
    // they cost memory (a peer could otherwise make us track arbitrarily many topics).
    ...(opts.scoredTopics && opts.scoredTopics.length > 0 ? { allowedTopics: [...opts.scoredTopics] } : {}),
    scoreParams: {
      ...peerScoreParams,
      topics,
      ...(opts.appSpecificScore ? { appSpecificScore: opts.appSpecificScore } : {}),
    },
    scoreThresholds: peerScoreThresholds,
  };
}

/**
 * Creates and starts the libp2p host.
 *
 * @param opts network settings; start from `defaultNetworkOptions` and override.
 * @param privateKey the node identity (see `loadOrCreateIdentity`).
 * @param log parent logger; the node logs under `module: "libp2p"`.
 * @param metrics libp2p's metrics hook (`Metrics.libp2p` from node/observe/metrics.ts): counts bytes.
 * @param isolated a test fault (ops/fault-hooks.ts `cut@`): while true, no connection is dialled or accepted.
 */
/** `gater`, denying every dial and every inbound connection while `isolated()`. */
function isolatable(gater: ConnectionGater, isolated: () => boolean): ConnectionGater {
  return {
    ...gater,
    denyDialPeer: () => isolated(),
    denyDialMultiaddr: () => isolated(),
    denyInboundConnection: (maConn) => isolated() || (gater.denyInboundConnection?.(maConn) ?? false),
  };
}

/** One dial of a discovered peer: as before the queue, well within a DHT query's patience. */
const DISCOVERY_DIAL_TIMEOUT_MS = 10_000;

/** Loopback networks, as libp2p's connection-manager allow list spells them. */
const LOOPBACK_NETS = ["/ip4/127.0.0.0/ipcidr/8", "/ip6/::1/ipcidr/128"];

export async function createSwarmNode(
  opts: NetworkOptions,
  privateKey: PrivateKey,
  log: Logger,
  metrics?: Libp2pOptions["metrics"],
  isolated: () => boolean = () => false,
): Promise<SwarmNode> {
  const nlog = log.child({ module: "libp2p" });
  const peerDiscovery = [];
  if (opts.bootstrap.length > 0) {
    // The bootstrap module throws on an empty list, hence the condition. It dials after
    // `timeout`; 100 ms instead of 1 s lets the other services start first without idling.
    peerDiscovery.push(bootstrap({ list: [...opts.bootstrap], timeout: 100 }));
  }
  // Our own service tag: the default `_p2p._udp.local` would make us dial every IPFS node on the LAN.
  if (opts.mdns) peerDiscovery.push(mdns({ serviceTag: "_seedswarm._udp.local" }));

  const node = await createLibp2p<SwarmServices>({
    privateKey,
    // Peer records and DHT records in memory, each value in an array of its own size.
    datastore: new CompactMemoryDatastore(),
    ...(metrics ? { metrics } : {}),
    addresses: {
      // `/p2p-circuit`: reserve a slot on a relay among our peers so that others can dial us.
      listen: [...opts.listen, ...(opts.behindNat ? ["/p2p-circuit"] : [])],
      ...(opts.announce && opts.announce.length > 0 ? { announce: [...opts.announce] } : {}),
    },
    // The relay transport dials `/p2p-circuit` addresses (and listens on them when behind NAT).
    transports: [tcp(), circuitRelayTransport()],
    // A private swarm: every raw connection is wrapped in XSalsa20 under the pre-shared key before
    // Noise starts, so a peer without the key fails the handshake and learns nothing.
    ...(opts.swarmKey ? { connectionProtector: preSharedKey({ psk: opts.swarmKey }) } : {}),
    connectionEncrypters: [noise()],
    // Every stream's write buffer is capped (the library's default is Infinity): a peer that
    // stops reading any protocol's replies gets that stream reset past it. Above the largest
    // reply we write in one piece (a /commits page, 8 MiB) so an honest slow reader is not cut;
    // gossip streams have their own cap, and slow-reader-guard.ts disconnects such peers sooner.
    streamMuxers: [yamux({ streamOptions: { maxWriteBufferLength: MAX_STREAM_WRITE_BUFFER_BYTES } })],
    // Bounded resources (issue 11): total connections, handshakes in flight and new connections
    // per host per second here; open inbound connections per remote IP in the gater.
    connectionManager: {
      maxConnections: opts.maxConnections,
      maxIncomingPendingConnections: opts.maxIncomingPendingConnections,
      inboundConnectionThreshold: opts.inboundConnectionThreshold,
      // Loopback is exempt from these limits as from the gater's (unless limitLoopback): a local
      // swarm's nodes, DHT queries included, all connect from 127.0.0.1.
      allow: opts.limitLoopback ? [] : LOOPBACK_NETS,
    },
    connectionGater: isolatable(ipLimitGater(opts), isolated),
    peerDiscovery,
    services: {
      identify: identify(),
      // kad-dht looks this service up by the name `ping` (routing-table liveness checks).
      ping: ping(),
      dht: kadDHT({
        protocol: `${opts.dhtProtocolPrefix}/kad/1.0.0`,
        // Server mode always: by default a node stays a client until it proves a public address,
        // so on a LAN or loopback no node answers queries and every lookup hangs silently.
        clientMode: false,
        // Keep private and loopback addresses in DHT records (the default mapper strips them, so
        // peers on a LAN or on 127.0.0.1 could not be found or dialled).
        peerInfoMapper: passthroughMapper,
        // Provider records for a run expire an hour after their node stops re-providing (the
        // default is 48 h), so joiners do not waste dials on nodes long gone.
        reprovide: { validity: 3_600_000, threshold: 1_800_000, interval: 600_000 },
        // Every query waits for the first self-query, which runs after this delay (default 1 s):
        // a joiner's first DHT lookups (providers, expert records) would idle for it.
        initialQuerySelfInterval: 100,
        // Learning@home expert records (node/network/experts.ts): a DHT peer stores a value only when
        // its namespace has a validator (ours: our runs' keys, bounded size), and spreads only the
        // copy the selector picks (ours: the most verified entries; none when none verify).
        validators: { [EXPERT_NAMESPACE]: expertRecordValidator(opts.dhtRunIds) },
        selectors: { [EXPERT_NAMESPACE]: expertRecordSelector(expertCopies.check) },
      }),
      // The cast exposes getScore/reportMessageValidationResult, which the returned class has.
      pubsub: gossipsub(gossipOptions(opts)) as (c: GossipSubComponents) => SwarmPubSub,
      // Asks peers to dial our addresses back and answers their requests: a node learns which of
      // its addresses are reachable (and announces only those it confirmed or was told to).
      autoNAT: autoNAT(),
      // Over a relayed connection both ends dial each other at once to open a direct one.
      // Over TCP in Node.js it fails behind NAT: an outbound socket cannot bind the listening
      // port without SO_REUSEPORT, so the NAT maps the punch to another port (docs/deploy.md).
      dcutr: dcutr(),
      ...(opts.relay
        ? {
            // Default limits per relayed connection (2 min, 128 KiB): enough for identify,
            // AutoNAT and the DCUtR handshake, not to carry a run's traffic for strangers.
            relay: circuitRelayServer({ reservations: { maxReservations: RELAY_MAX_RESERVATIONS } }),
          }
        : {}),
      // UPnP maps the listen port on the gateway, where one answers; opt-in (it changes the LAN's
      // router, and its SSDP search multicasts on every interface).
      ...(opts.behindNat ? { upnp: uPnPNAT() } : {}),
    },
  });

  // libp2p 3 does not dial discovered peers by itself (mDNS, DHT answers only fill the peer
  // store); a swarm wants its members connected, so discovered peers are dialled, but through a
  // bounded, deduplicated queue and only at addresses we may reach (finding 12): every closer
  // peer in any DHT answer is a discovery, and the answer's author picks them.
  const scope = localScope(opts.listen, opts.dialAnyDiscoveredAddress);
  // Bootstrap peers are the operator's word: dialled at once, wherever they are.
  const bootstrapIds = new Set(
    opts.bootstrap.flatMap((a) => multiaddr(a).getComponents().flatMap((c) => (c.name === "p2p" && c.value ? [c.value] : []))),
  );
  const dialer = new DiscoveryDialer(
    (peer, addrs, signal) => node.dial([...addrs], { signal }),
    {
      concurrency: opts.discoveryDialConcurrency,
      maxQueued: opts.discoveryDialQueue,
      cooldownMs: opts.discoveryDialCooldownMs,
      timeoutMs: DISCOVERY_DIAL_TIMEOUT_MS,
    },
    nlog,
  );
  node.addEventListener("peer:discovery", (evt) => {
    const { id: peer, multiaddrs } = evt.detail;
    if (peer.equals(node.peerId) || node.getConnections(peer).length > 0) return;
    const id = peer.toString();
    if (bootstrapIds.has(id)) {
      node.dial(peer, { signal: AbortSignal.timeout(DISCOVERY_DIAL_TIMEOUT_MS) }).catch((err: Error) => {
        nlog.debug({ peer: id, err: err.message }, "dial to bootstrap peer failed");
      });
      return;
    }
    const addrs = multiaddrs
      .filter((a) => dialableAddress(a, scope))
      .map((a) => (a.getComponents().some((c) => c.name === "p2p") ? a : a.encapsulate(`/p2p/${id}`)));
    dialer.offer(peer, addrs);
  });
  node.addEventListener("stop", () => dialer.stop(), { once: true });

  // Peers that stop reading what we send (finding 3): disconnected before their buffers grow.
  const guard = new SlowReaderGuard(node, nlog);
  guard.start();
  node.addEventListener("stop", () => guard.stop(), { once: true });

  // Bounded peer records: a crowd of identities that come and go (or that a DHT answer names)
  // would otherwise each leave one for hours. Bootstrap peers are kept to reconnect through.
  const bound = new PeerStoreBound(node, opts.maxStoredPeers, (id) => bootstrapIds.has(id), nlog);
  bound.start();
  node.addEventListener("stop", () => bound.stop(), { once: true });

  nlog.info(
    { peerId: node.peerId.toString(), addrs: node.getMultiaddrs().map((a) => a.toString()) },
    "libp2p started",
  );
  return node;
}

/**
 * The CID under which nodes of a run provide themselves in the DHT: CIDv1, raw codec, over the
 * sha256 multihash of the runId's hex string (UTF-8). Same run, same CID, on every node.
 */
export function runIdCid(runId: string): CID {
  const bytes = createHash("sha256").update(runId, "utf8").digest();
  return CID.createV1(raw.code, createDigest(sha256.code, bytes));
}
