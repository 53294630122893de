/** The libp2p host's settings and their defaults (the host itself is built in libp2p.ts). */
export const defaultNetworkOptions = {
    // Every interface, a free port: the OS picks, the node announces what it got.
    listen: ["/ip4/0.0.0.0/tcp/0"],
    // No well-known seeds: a run is found through a peer the operator names, mDNS or the DHT.
    bootstrap: [],
    // On: a LAN swarm should assemble with no configuration (tests turn it off for isolation).
    mdns: true,
    // Keeps our DHT apart from the public IPFS one (`/ipfs/kad/1.0.0`) and its traffic.
    dhtProtocolPrefix: "/seedswarm",
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
};
//# sourceMappingURL=network-options.js.map