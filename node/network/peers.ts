/**
 * Finding and dialling the run's peers: DHT providers of the runId, bootstrap addresses (again
 * while we know nobody), the chain's recent authors by peer id, and which connected peers take
 * part (in a member run, only the spec's members count).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { PeerId } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import type { Logger } from "../ground/index.js";
import { runIdCid, type SwarmNode } from "./libp2p.js";

/** Authors dialled at once when we want more direct peers. */
const AUTHORS_DIALLED = 8;

export class Peers {
  constructor(
    private readonly libp2p: SwarmNode,
    private readonly runId: string,
    /** The commit topic: a peer subscribed to it takes part in the run. */
    private readonly commitTopic: string,
    private readonly bootstrap: readonly string[],
    private readonly log: Logger,
    /** Aborted when the daemon stops: ends DHT queries early. */
    private readonly signal: AbortSignal,
    /** Whether a peer may take part (a member run: its members only); read at each call. */
    readonly admits: (peerId: string) => boolean,
  ) {}

  /**
   * Connected peers that take part in this run: subscribed to its commit topic and admitted, so
   * a non-member of a member run is never asked for checksums, commits or snapshots.
   */
  connected(): PeerId[] {
    const subs = new Set(this.libp2p.services.pubsub.getSubscribers(this.commitTopic).map(String));
    return this.libp2p.getPeers().filter((p) => subs.has(p.toString()) && this.admits(p.toString()));
  }

  /**
   * Where the connected peers of the run listen, as their identify told us (relay addresses left
   * out), each ending in `/p2p/<peer id>`: what a restart dials to find the swarm again.
   */
  async listenAddresses(): Promise<string[]> {
    const out: string[] = [];
    for (const p of this.connected()) {
      const known = await this.libp2p.peerStore.get(p).catch(() => null);
      for (const { multiaddr: a } of known?.addresses ?? []) {
        const s = a.toString();
        if (s.includes("/p2p-circuit")) continue;
        out.push(s.includes("/p2p/") ? s : `${s}/p2p/${p.toString()}`);
      }
    }
    return out;
  }

  /** Dials the DHT providers of the run (failures only cost discovery). */
  async dialProviders(): Promise<void> {
    try {
      for await (const p of this.libp2p.contentRouting.findProviders(runIdCid(this.runId), {
        signal: this.timeout(30_000),
      })) {
        if (p.id.equals(this.libp2p.peerId) || this.libp2p.getConnections(p.id).length > 0)
          continue;
        await this.libp2p.dial(p.id, { signal: AbortSignal.timeout(10_000) }).catch(() => {});
      }
    } catch (err) {
      this.log.debug({ err: (err as Error).message }, "dht findProviders ended");
    }
  }

  /** Announces the run in the DHT in the background; failures only cost discovery. */
  provide(): void {
    this.libp2p.contentRouting
      .provide(runIdCid(this.runId), { signal: this.timeout(30_000) })
      .catch((err: Error) => this.log.debug({ err: err.message }, "dht provide failed"));
  }

  /**
   * Waits until `count` peers take part or `deadline` (ms since the epoch) passes or `signal`
   * aborts, dialling the bootstrap peers again while connected to nobody: libp2p dials them once,
   * and one still starting (a compose service, a spot instance booting, the first node of a local
   * swarm started at the same time) refuses that dial. The pause between dials doubles from
   * 100 ms to 1 s: a peer seconds from listening costs a few refused dials, one a moment away
   * no longer a whole second (the local swarm's start, where it did).
   */
  async waitFor(count: number, deadline: number, signal: AbortSignal): Promise<boolean> {
    let dialedAt = Date.now();
    let pause = 100;
    for (;;) {
      if (this.connected().length >= count) return true;
      if (Date.now() >= deadline || signal.aborted) return false;
      if (this.libp2p.getConnections().length === 0 && Date.now() - dialedAt >= pause) {
        dialedAt = Date.now();
        pause = Math.min(1000, 2 * pause);
        this.dialBootstrap().catch(() => {});
      }
      await sleep(100);
    }
  }

  /** Dials the configured bootstrap peers (failures are expected while they start). */
  async dialBootstrap(): Promise<void> {
    await Promise.allSettled(
      this.bootstrap.map((a) => this.libp2p.dial(multiaddr(a), { signal: AbortSignal.timeout(2000) })),
    );
  }

  /**
   * Dials the authors of the last commit we are not connected to, finding
   * their addresses through the DHT: more direct peers mean more independent opinions when
   * checksums disagree, and a fuller gossip mesh.
   */
  async dialAuthors(authors: readonly string[], self: string): Promise<void> {
    const missing = authors
      .filter((id) => id !== self)
      .map((id) => peerIdFromString(id))
      .filter((p) => this.libp2p.getConnections(p).length === 0)
      .slice(0, AUTHORS_DIALLED);
    await Promise.allSettled(
      missing.map(async (p) => {
        const signal = AbortSignal.timeout(3000);
        const info = await this.libp2p.peerRouting.findPeer(p, { signal });
        await this.libp2p.dial(info.id, { signal });
        this.log.debug({ peer: p.toString() }, "connected to a chain author");
      }),
    );
  }

  /** The peers among `peers` we are connected to or could dial (addresses from the DHT). */
  async reachable(peers: readonly PeerId[]): Promise<PeerId[]> {
    const dialled = await Promise.all(
      peers.map(async (p) => {
        try {
          if (this.libp2p.getConnections(p).length === 0)
            await this.libp2p.dial(p, { signal: AbortSignal.timeout(5000) });
          return [p];
        } catch {
          return [];
        }
      }),
    );
    return dialled.flat();
  }

  private timeout(ms: number): AbortSignal {
    return AbortSignal.any([this.signal, AbortSignal.timeout(ms)]);
  }
}
