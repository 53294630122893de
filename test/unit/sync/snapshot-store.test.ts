import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SnapshotStore } from "../../../node/sync/snapshot-store.js";

const weights = (v: number) => new Float32Array(4).fill(v);

describe("snapshot store", () => {
  it("keeps a copy of the weights, the latest and three before it, newest first", () => {
    const store = new SnapshotStore();
    assert.equal(store.find(), null);
    const w = weights(1);
    store.take(10, "c10", w);
    w.fill(99);
    assert.deepEqual(store.latest?.weights, weights(1), "taken weights are a copy");
    for (const t of [20, 30, 40, 50]) store.take(t, `c${t}`, weights(t));
    assert.equal(store.latest?.iteration, 50);
    assert.deepEqual(
      store.all().map((s) => s.iteration),
      [50, 40, 30, 20],
    );
    assert.equal(store.find(10), null, "the fifth oldest is dropped");
    assert.equal(store.find(30)?.checksum, "c30");
    assert.equal(store.find()?.iteration, 50);
  });

  it("taking the same iteration again changes nothing", () => {
    const store = new SnapshotStore();
    store.take(10, "first", weights(1));
    store.take(10, "second", weights(2));
    assert.equal(store.latest?.checksum, "first");
    assert.equal(store.all().length, 1);
  });

  it("pinned snapshots (the two last announced) outlive the kept ones", () => {
    const store = new SnapshotStore();
    store.take(10, "c10", weights(10));
    assert.equal(store.pinLatest()?.iteration, 10);
    store.take(20, "c20", weights(20));
    store.pinLatest();
    for (const t of [30, 40, 50, 60, 70]) store.take(t, `c${t}`, weights(t));
    assert.deepEqual(
      store.all().map((s) => s.iteration),
      [70, 60, 50, 40, 20, 10],
    );
    store.take(80, "c80", weights(80));
    store.pinLatest();
    assert.equal(store.find(10), null, "only the two last pins are kept");
    assert.equal(store.find(20)?.checksum, "c20");
  });

  it("retain forgets the snapshots of a side we left, pinned ones included", () => {
    const store = new SnapshotStore();
    for (const t of [10, 20, 30]) {
      store.take(t, `c${t}`, weights(t));
      store.pinLatest();
    }
    store.retain((x) => x.iteration <= 10);
    assert.deepEqual(store.all().map((s) => s.iteration), [10]);
    assert.equal(store.latest, null, "the latest (30) was past the base: gone until the next is taken");
    assert.equal(store.find(), null);
    store.retain(() => false);
    assert.deepEqual(store.all(), []);
    store.take(40, "c40", weights(40));
    assert.equal(store.find()?.iteration, 40);
  });
});
