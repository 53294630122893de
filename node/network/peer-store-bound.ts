/**
 * A cap on the peers libp2p's peer store remembers (issue 11: no input may grow memory without
 * bound).
 *
 * The peer store keeps a record (addresses, protocols, key, agent) of every peer that ever
 * connected or that a DHT answer named, and forgets one only six hours after its last update, and
 * then only when someone reads it. Identities are free: a crowd of them connecting and leaving, or
 * a DHT peer naming made-up peers, grew a node's memory with each (measured: 1,000 identities that
 * connected and left, 1,000 records kept). Over the cap, a sweep deletes records of peers we do
 * not need: never a connected peer, a peer in the DHT routing table (kad-dht tags those, and the
 * table is bounded by its buckets) or one `keep` names (bootstrap peers). It deletes first the
 * peers never seen connected since start, then those that left longest ago.
 */
import type { Libp2p, PeerId } from "@libp2p/interface";
import { type Logger, BoundedMap } from "../ground/index.js";

/** Peers the store may hold before a sweep deletes the least needed. */
export const MAX_STORED_PEERS = 2048;
/** How often the store is checked against the cap (also swept as soon as enough peers left). */
export const PEER_SWEEP_MS = 30_000;
/** kad-dht's tag on the peers of its routing table. */
const KAD_PEER_TAG = "kad-peer";

export class PeerStoreBound {
  /** Peers that disconnected, oldest first, with the order they left in. */
  private readonly departed: BoundedMap<string, number>;
  private departures = 0;
  private sinceSweep = 0;
  private sweeping: Promise<number> | null = null;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly node: Pick<Libp2p, "peerStore" | "getPeers" | "addEventListener" | "removeEventListener">,
    private readonly cap: number,
    private readonly keep: (peer: string) => boolean,
    private readonly log: Logger,
  ) {
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`peer store cap must be a positive integer, not ${cap}`);
    // Bounded between sweeps too: a peer dropped here only loses its place, so it goes first.
    this.departed = new BoundedMap(2 * cap);
  }

  start(): void {
    this.node.addEventListener("peer:disconnect", this.onDisconnect);
    this.node.addEventListener("peer:connect", this.onConnect);
    this.timer = setInterval(() => void this.sweep(), PEER_SWEEP_MS);
    this.timer.unref();
  }

  stop(): void {
    this.node.removeEventListener("peer:disconnect", this.onDisconnect);
    this.node.removeEventListener("peer:connect", this.onConnect);
    clearInterval(this.timer);
  }

  private readonly onConnect = (evt: CustomEvent<PeerId>): void => {
    this.departed.delete(evt.detail.toString());
  };

  private readonly onDisconnect = (evt: CustomEvent<PeerId>): void => {
    const id = evt.detail.toString();
    this.departed.delete(id);
    this.departed.set(id, this.departures++);
    // A crowd leaving fills the store faster than the timer looks: sweep after a quarter of the cap.
    if (++this.sinceSweep >= Math.ceil(this.cap / 4)) void this.sweep();
  };

  /** Deletes records over the cap (one sweep at a time); resolves to the number deleted. */
  sweep(): Promise<number> {
    this.sweeping ??= this.evict()
      .catch((err: Error) => {
        this.log.warn({ err: err.message }, "peer store sweep failed");
        return 0;
      })
      .finally(() => {
        this.sweeping = null;
      });
    return this.sweeping;
  }

  private async evict(): Promise<number> {
    this.sinceSweep = 0;
    // all() also deletes the records libp2p itself considers expired.
    const peers = await this.node.peerStore.all();
    const held = new Set(peers.map((p) => p.id.toString()));
    for (const id of this.departed.keys()) if (!held.has(id)) this.departed.delete(id);
    const excess = peers.length - this.cap;
    if (excess <= 0) return 0;
    const connected = new Set(this.node.getPeers().map((p) => p.toString()));
    const order = (id: string) => this.departed.get(id) ?? -1;
    const victims = peers
      .filter((p) => {
        const id = p.id.toString();
        return !connected.has(id) && !p.tags.has(KAD_PEER_TAG) && !this.keep(id);
      })
      .map((p) => p.id)
      .sort((a, b) => order(a.toString()) - order(b.toString()))
      .slice(0, excess);
    for (const id of victims) {
      await this.node.peerStore.delete(id);
      this.departed.delete(id.toString());
    }
    this.log.debug({ held: peers.length, deleted: victims.length, cap: this.cap }, "peer store swept");
    return victims.length;
  }
}
