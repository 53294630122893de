import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import { runIdCid } from "./libp2p.js";
/** Authors dialled at once when we want more direct peers. */
const AUTHORS_DIALLED = 8;
export class Peers {
    libp2p;
    runId;
    commitTopic;
    bootstrap;
    log;
    signal;
    admits;
    constructor(libp2p, runId, 
    /** The commit topic: a peer subscribed to it takes part in the run. */
    commitTopic, bootstrap, log, 
    /** Aborted when the daemon stops: ends DHT queries early. */
    signal, 
    /** Whether a peer may take part (a member run: its members only); read at each call. */
    admits) {
        this.libp2p = libp2p;
        this.runId = runId;
        this.commitTopic = commitTopic;
        this.bootstrap = bootstrap;
        this.log = log;
        this.signal = signal;
        this.admits = admits;
    }
    /**
     * Connected peers that take part in this run: subscribed to its commit topic and admitted, so
     * a non-member of a member run is never asked for checksums, commits or snapshots.
     */
    connected() {
        const subs = new Set(this.libp2p.services.pubsub.getSubscribers(this.commitTopic).map(String));
        return this.libp2p.getPeers().filter((p) => subs.has(p.toString()) && this.admits(p.toString()));
    }
    /**
     * Where the connected peers of the run listen, as their identify told us (relay addresses left
     * out), each ending in `/p2p/<peer id>`: what a restart dials to find the swarm again.
     */
    async listenAddresses() {
        const out = [];
        for (const p of this.connected()) {
            const known = await this.libp2p.peerStore.get(p).catch(() => null);
            for (const { multiaddr: a } of known?.addresses ?? []) {
                const s = a.toString();
                if (s.includes("/p2p-circuit"))
                    continue;
                out.push(s.includes("/p2p/") ? s : `${s}/p2p/${p.toString()}`);
            }
        }
        return out;
    }
    /** Dials the DHT providers of the run (failures only cost discovery). */
    async dialProviders() {
        try {
            for await (const p of this.libp2p.contentRouting.findProviders(runIdCid(this.runId), {
                signal: this.timeout(30_000),
            })) {
                if (p.id.equals(this.libp2p.peerId) || this.libp2p.getConnections(p.id).length > 0)
                    continue;
                await this.libp2p.dial(p.id, { signal: AbortSignal.timeout(10_000) }).catch(() => { });
            }
        }
        catch (err) {
            this.log.debug({ err: err.message }, "dht findProviders ended");
        }
    }
    /** Announces the run in the DHT in the background; failures only cost discovery. */
    provide() {
        this.libp2p.contentRouting
            .provide(runIdCid(this.runId), { signal: this.timeout(30_000) })
            .catch((err) => this.log.debug({ err: err.message }, "dht provide failed"));
    }
    /**
     * Waits until `count` peers take part or `deadline` (ms since the epoch) passes or `signal`
     * aborts, dialling the bootstrap peers again every second while connected to nobody: libp2p
     * dials them once, and one still starting (a compose service, a spot instance booting) refuses
     * that dial. True when the peers are there.
     */
    async waitFor(count, deadline, signal) {
        let dialedAt = Date.now();
        for (;;) {
            if (this.connected().length >= count)
                return true;
            if (Date.now() >= deadline || signal.aborted)
                return false;
            if (this.libp2p.getConnections().length === 0 && Date.now() - dialedAt > 1000) {
                dialedAt = Date.now();
                this.dialBootstrap().catch(() => { });
            }
            await new Promise((r) => setTimeout(r, 100));
        }
    }
    /** Dials the configured bootstrap peers (failures are expected while they start). */
    async dialBootstrap() {
        await Promise.allSettled(this.bootstrap.map((a) => this.libp2p.dial(multiaddr(a), { signal: AbortSignal.timeout(2000) })));
    }
    /**
     * Dials the authors of the last commit we are not connected to, finding
     * their addresses through the DHT: more direct peers mean more independent opinions when
     * checksums disagree, and a fuller gossip mesh.
     */
    async dialAuthors(authors, self) {
        const missing = authors
            .filter((id) => id !== self)
            .map((id) => peerIdFromString(id))
            .filter((p) => this.libp2p.getConnections(p).length === 0)
            .slice(0, AUTHORS_DIALLED);
        await Promise.allSettled(missing.map(async (p) => {
            const signal = AbortSignal.timeout(3000);
            const info = await this.libp2p.peerRouting.findPeer(p, { signal });
            await this.libp2p.dial(info.id, { signal });
            this.log.debug({ peer: p.toString() }, "connected to a chain author");
        }));
    }
    /** The peers among `peers` we are connected to or could dial (addresses from the DHT). */
    async reachable(peers) {
        const dialled = await Promise.all(peers.map(async (p) => {
            try {
                if (this.libp2p.getConnections(p).length === 0)
                    await this.libp2p.dial(p, { signal: AbortSignal.timeout(5000) });
                return [p];
            }
            catch {
                return [];
            }
        }));
        return dialled.flat();
    }
    timeout(ms) {
        return AbortSignal.any([this.signal, AbortSignal.timeout(ms)]);
    }
}
//# sourceMappingURL=peers.js.map