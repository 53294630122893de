/** Snapshots kept before the latest: a fork up to this many check periods deep can be undone. */
const EARLIER_KEPT = 3;
export class SnapshotStore {
    latestSnap = null;
    earlier = [];
    pinned = [];
    get latest() {
        return this.latestSnap;
    }
    /** Keeps a copy of `weights` as the snapshot after `iteration` (no-op if already held). */
    take(iteration, checksum, weights) {
        if (this.latestSnap?.iteration === iteration)
            return;
        if (this.latestSnap && this.latestSnap.iteration < iteration)
            this.earlier = [this.latestSnap, ...this.earlier].slice(0, EARLIER_KEPT);
        this.latestSnap = { iteration, checksum, weights: weights.slice() };
    }
    /** Pins the latest for an announcement (the pin before stays too); returns it. */
    pinLatest() {
        const snap = this.latestSnap;
        if (snap && this.pinned[0]?.iteration !== snap.iteration)
            this.pinned = [snap, ...this.pinned].slice(0, 2);
        return snap;
    }
    /** Every snapshot held, newest first. */
    all() {
        const held = [this.latestSnap, ...this.earlier, ...this.pinned].filter((x) => x !== null);
        return [...new Map(held.map((x) => [x.iteration, x])).values()].sort((a, b) => b.iteration - a.iteration);
    }
    /** The snapshot after exactly `iteration`, or with no iteration the latest. */
    find(iteration) {
        if (iteration === undefined)
            return this.latestSnap;
        return this.all().find((x) => x.iteration === iteration) ?? null;
    }
}
//# sourceMappingURL=snapshot-store.js.map