/**
 * The state snapshots a node serves: the latest (taken at multiples of the check period, so every
 * honest peer holds the same bytes), the few before it (bases to replay from when a fork is
 * older than the latest), and the two last announced in the DHT (a joiner that read the expert
 * records finds them still here).
 */
import type { Weights } from "../../training/params.js";

/** The state after `iteration` applied iterations, and its checksum. */
export interface Snapshot {
  readonly iteration: number;
  readonly checksum: string;
  readonly weights: Weights;
}

/** Snapshots kept before the latest: a fork up to this many check periods deep can be undone. */
const EARLIER_KEPT = 3;

export class SnapshotStore {
  private latestSnap: Snapshot | null = null;
  private earlier: Snapshot[] = [];
  private pinned: Snapshot[] = [];

  get latest(): Snapshot | null {
    return this.latestSnap;
  }

  /** Keeps a copy of `weights` as the snapshot after `iteration` (no-op if already held). */
  take(iteration: number, checksum: string, weights: Weights): void {
    if (this.latestSnap?.iteration === iteration) return;
    if (this.latestSnap && this.latestSnap.iteration < iteration)
      this.earlier = [this.latestSnap, ...this.earlier].slice(0, EARLIER_KEPT);
    this.latestSnap = { iteration, checksum, weights: weights.slice() };
  }

  /** Pins the latest for an announcement (the pin before stays too); returns it. */
  pinLatest(): Snapshot | null {
    const snap = this.latestSnap;
    if (snap && this.pinned[0]?.iteration !== snap.iteration) this.pinned = [snap, ...this.pinned].slice(0, 2);
    return snap;
  }

  /**
   * Forgets the snapshots `keep` refuses: after a fork switch, those of the side we left, which
   * would otherwise be served (and announced) as states of our chain.
   */
  retain(keep: (s: Snapshot) => boolean): void {
    if (this.latestSnap && !keep(this.latestSnap)) this.latestSnap = null;
    this.earlier = this.earlier.filter(keep);
    this.pinned = this.pinned.filter(keep);
  }

  /** Every snapshot held, newest first. */
  all(): Snapshot[] {
    const held = [this.latestSnap, ...this.earlier, ...this.pinned].filter((x): x is Snapshot => x !== null);
    return [...new Map(held.map((x) => [x.iteration, x])).values()].sort((a, b) => b.iteration - a.iteration);
  }

  /** The snapshot after exactly `iteration`, or with no iteration the latest. */
  find(iteration?: number): Snapshot | null {
    if (iteration === undefined) return this.latestSnap;
    return this.all().find((x) => x.iteration === iteration) ?? null;
  }
}
