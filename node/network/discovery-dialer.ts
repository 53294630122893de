/**
 * Dialling discovered peers (security review, finding 12). kad-dht raises `peer:discovery` for
 * every closer peer and provider in any answer, so a hostile DHT peer names 20 peers at addresses
 * of its choosing in each reply. Dialled one by one as they came, they filled libp2p's dial queue
 * (100 parallel, 500 waiting, up to 10 s each) and our own dials failed, and the addresses made
 * us probe whatever hosts the attacker picked, internal networks included.
 *
 * Here discoveries wait in a bounded queue, deduplicated by peer id, each peer tried at most once
 * per cool-down, a few at a time. Which of its addresses may be dialled is address-scope.ts's.
 */
import type { PeerId } from "@libp2p/interface";
import type { Multiaddr } from "@multiformats/multiaddr";
import { type Logger, BoundedMap } from "../ground/index.js";

export interface DiscoveryDialerOptions {
  readonly concurrency: number;
  readonly maxQueued: number;
  readonly cooldownMs: number;
  /** Per dial. */
  readonly timeoutMs: number;
}

/** Dials one peer at these addresses; rejects on failure. */
export type DialFn = (peer: PeerId, addrs: readonly Multiaddr[], signal: AbortSignal) => Promise<unknown>;

/** Why an offer was not queued. */
export type OfferOutcome = "queued" | "duplicate" | "cooling" | "full" | "no-address";

/** Peers remembered for the cool-down: beyond this the oldest are forgotten (a flood of ids cannot grow it). */
const MAX_REMEMBERED = 4096;

export class DiscoveryDialer {
  private readonly queue = new Map<string, { peer: PeerId; addrs: readonly Multiaddr[] }>();
  private readonly inFlight = new Set<string>();
  /** Peer id -> time of its last dial attempt (insertion order = age). */
  private readonly attempted = new BoundedMap<string, number>(MAX_REMEMBERED);
  private stopped = false;
  readonly counts: Record<OfferOutcome | "dialled" | "failed", number> = {
    queued: 0, duplicate: 0, cooling: 0, full: 0, "no-address": 0, dialled: 0, failed: 0,
  };

  constructor(
    private readonly dial: DialFn,
    private readonly opts: DiscoveryDialerOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Queues a discovered peer with the addresses it may be dialled at. */
  offer(peer: PeerId, addrs: readonly Multiaddr[]): OfferOutcome {
    const outcome = this.admit(peer.toString(), addrs);
    this.counts[outcome]++;
    if (outcome === "queued") {
      this.queue.set(peer.toString(), { peer, addrs });
      this.pump();
    }
    return outcome;
  }

  /** Peers waiting plus dials in flight. */
  get pending(): number {
    return this.queue.size + this.inFlight.size;
  }

  stop(): void {
    this.stopped = true;
    this.queue.clear();
  }

  private admit(id: string, addrs: readonly Multiaddr[]): OfferOutcome {
    if (addrs.length === 0) return "no-address";
    if (this.queue.has(id) || this.inFlight.has(id)) return "duplicate";
    const last = this.attempted.get(id);
    if (last !== undefined && this.now() - last < this.opts.cooldownMs) return "cooling";
    if (this.queue.size >= this.opts.maxQueued) return "full";
    return "queued";
  }

  private pump(): void {
    while (!this.stopped && this.inFlight.size < this.opts.concurrency && this.queue.size > 0) {
      const [id, next] = this.queue.entries().next().value!;
      this.queue.delete(id);
      this.remember(id);
      this.inFlight.add(id);
      this.counts.dialled++;
      this.dial(next.peer, next.addrs, AbortSignal.timeout(this.opts.timeoutMs))
        .catch((err: Error) => {
          this.counts.failed++;
          this.log.debug({ peer: id, err: err.message }, "dial to discovered peer failed");
        })
        .finally(() => {
          this.inFlight.delete(id);
          this.pump();
        });
    }
  }

  private remember(id: string): void {
    this.attempted.delete(id);
    this.attempted.set(id, this.now());
  }
}
