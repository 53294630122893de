import { MAX_STORED_PEERS } from "./peer-store-bound.js";

/** The libp2p host's settings and their defaults (the host itself is built in libp2p.ts). */

export interface NetworkOptions {
  /** Multiaddrs to listen on. */
  readonly listen: readonly string[];
  /** Multiaddrs ending in `/p2p/<peerId>`, dialled once at start. */
  readonly bootstrap: readonly string[];
  /** Discover peers on the local network by multicast DNS. */
  readonly mdns: boolean;
  /** Prefix of the kad-dht protocol id: nodes with another prefix form another DHT. */
  readonly dhtProtocolPrefix: string;
  /** The runs whose expert records this node stores for others in the DHT (its own); others are refused. */
  readonly dhtRunIds: readonly string[];
  /** Addresses to advertise instead of the listen addresses (NAT, containers). */
  readonly announce?: readonly string[];
  /**
   * Gossip topics whose traffic counts in peer scores. Gossipsub scores per topic: a Reject on a
   * topic not listed here costs the sender nothing, so list every topic the node validates. When
   * given, they are also gossipsub's allowedTopics: subscriptions and messages on other topics are dropped.
   */
  readonly scoredTopics?: readonly string[];
  /** Gossipsub heartbeat: mesh upkeep, gossip emission, and the peer-score cache lifetime. */
  readonly gossipHeartbeatMs?: number;
  /** Offer circuit relay v2 to other nodes (a node with a public address). */
  readonly relay?: boolean;
  /** Expect to be unreachable: reserve a slot on a relay and ask the gateway for a UPnP mapping. */
  readonly behindNat?: boolean;
  /**
   * A private swarm: the key file's bytes (`readSwarmKey` in swarm-key.ts). Every connection is
   * encrypted with it before anything else, so only peers holding the same key can connect.
   */
  readonly swarmKey?: Uint8Array;
  /** Most connections in all before libp2p prunes the least valuable. */
  readonly maxConnections: number;
  /** Most inbound connections still upgrading (protector, Noise, yamux) at once. */
  readonly maxIncomingPendingConnections: number;
  /** Most new inbound connections one host may open per second. */
  readonly inboundConnectionThreshold: number;
  /** Most inbound connections one remote IP (IPv6: /64) may hold open; 0: no limit. */
  readonly maxConnectionsPerIp: number;
  /** Apply maxConnectionsPerIp to loopback addresses too. */
  readonly limitLoopback: boolean;
  /** Most peer records the peer store keeps (peer-store-bound.ts); connected and DHT routing-table peers are never dropped. */
  readonly maxStoredPeers: number;
  /**
   * The application's score of a peer (node/chain/penalties.ts `Penalties.appSpecificScore`: 0, or
   * negative after charges for provably bad messages it signed), gossipsub's P5. Absent: 0 for all.
   */
  readonly appSpecificScore?: (peerId: string) => number;
  /**
   * Most bytes gossipsub queues on its stream to one peer that does not read; past it the stream
   * is reset (gossipsub's `maxOutboundBufferSize`). The slow-reader guard usually acts first.
   */
  readonly maxGossipWriteBufferBytes: number;
  /** Discovered peers dialled at once (DHT answers, mDNS): the rest wait in a bounded queue. */
  readonly discoveryDialConcurrency: number;
  /** Discovered peers waiting to be dialled; more are dropped until the queue drains. */
  readonly discoveryDialQueue: number;
  /** A discovered peer is dialled again no sooner than this after the last attempt. */
  readonly discoveryDialCooldownMs: number;
  /**
   * Dial any address a discovery names. Off: loopback only when we listen on loopback ourselves,
   * private ranges only within a subnet of one of this host's interfaces (a DHT answer must not
   * make us scan internal networks).
   */
  readonly dialAnyDiscoveredAddress: boolean;
}

export const defaultNetworkOptions: NetworkOptions &
  Required<Pick<NetworkOptions, "scoredTopics" | "gossipHeartbeatMs">> = {
  // Every interface, a free port: the OS picks, the node announces what it got.
  listen: ["/ip4/0.0.0.0/tcp/0"],
  // No well-known seeds: a run is found through a peer the operator names, mDNS or the DHT.
  bootstrap: [],
  // On: a LAN swarm should assemble with no configuration (tests turn it off for isolation).
  mdns: true,
  // Keeps our DHT apart from the public IPFS one (`/ipfs/kad/1.0.0`) and its traffic.
  dhtProtocolPrefix: "/seedswarm",
  // None until the node knows its run (node.ts sets it): storing strangers' records is a flood.
  dhtRunIds: [],
  scoredTopics: [],
  // 700 ms as in Lodestar: rounds last seconds, and the mesh repairs within a round.
  gossipHeartbeatMs: 700,
  // Off: relaying is a service to others that a reachable node's operator chooses.
  relay: false,
  // Off: a reservation needs a relay among the peers, and UPnP changes the LAN's router.
  behindNat: false,
  // A node needs its gossip mesh (about 12 peers) and DHT neighbours; 256 bounds the memory of
  // connections (yamux windows, gossip queues) well above that (libp2p's default is 300).
  maxConnections: 256,
  // libp2p's default: ten handshakes in flight; a flood of half-open connections waits out
  // the upgrade timeout without holding more.
  maxIncomingPendingConnections: 10,
  // libp2p's default: five new connections per host per second; honest nodes open one.
  inboundConnectionThreshold: 5,
  // One host rarely runs more than a few honest nodes (a multi-GPU machine); 8 leaves room for
  // that and a NAT shared by a few, while one host with free identities cannot fill 256 slots.
  maxConnectionsPerIp: 8,
  // Exempt: local swarms (tests, benches, `seedswarm swarm`) put every node on 127.0.0.1.
  limitLoopback: false,
  // Every peer seen connected or named by the DHT leaves a record (~1 KiB); 2,048 holds a large
  // swarm's members while a crowd of free identities cannot grow the store past it.
  maxStoredPeers: MAX_STORED_PEERS,
  // 16 MiB: two frames at the frame limit (MAX_GOSSIP_RPC_BYTES, 8 MiB) queue behind the yamux
  // window, so an honest peer that pauses for a GC or a training step keeps its stream; a peer
  // that never reads holds at most this (and the slow-reader guard drops it well before).
  maxGossipWriteBufferBytes: 16 * 1024 * 1024,
  // 4 dials of 10 s at most: a DHT answer naming 20 black-holed peers costs a slot or four of
  // libp2p's dial queue (100 parallel), never all of it, so our own dials still go out.
  discoveryDialConcurrency: 4,
  // A swarm's members are found within a few answers; 64 waiting is past any honest burst.
  discoveryDialQueue: 64,
  // Each answer names the same closest peers again: one attempt a minute per peer at most.
  discoveryDialCooldownMs: 60_000,
  // Off: see the field.
  dialAnyDiscoveredAddress: false,
};
