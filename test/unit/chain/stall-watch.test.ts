import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StallWatch } from "../../../node/chain/stall-watch.js";

/** Holds the event loop, as a SIGSTOPped process or a frozen VM does (no timer or I/O runs). */
function freeze(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* the loop does not run */
  }
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("StallWatch", () => {
  it("reports a freeze longer than the limit once, at the next check, and nothing while the loop runs", async () => {
    const stalls: number[] = [];
    const w = new StallWatch(100, (gap) => stalls.push(gap));
    w.start();
    await tick(300); // the loop runs: the watch's timer keeps it fresh
    assert.equal(w.check(), false);
    freeze(250);
    assert.equal(w.check(), true);
    assert.equal(stalls.length, 1);
    assert.ok(stalls[0] >= 250, `gap ${stalls[0]}`);
    assert.equal(w.check(), false, "reported once");
    w.stop();
  });

  it("the watch's own timer reports a freeze nobody checked", async () => {
    const stalls: number[] = [];
    const w = new StallWatch(100, (gap) => stalls.push(gap));
    w.start();
    freeze(250);
    await tick(100);
    assert.equal(stalls.length, 1);
    w.stop();
  });

  it("work announced with touch() is not a stall; a stopped watch reports nothing", () => {
    const stalls: number[] = [];
    const w = new StallWatch(100, (gap) => stalls.push(gap));
    w.start();
    freeze(250);
    w.touch();
    assert.equal(w.check(), false);
    w.stop();
    freeze(250);
    assert.equal(w.check(), false);
    assert.deepEqual(stalls, []);
  });
});
