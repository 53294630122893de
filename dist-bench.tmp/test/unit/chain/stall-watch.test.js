import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StallWatch } from "../../../node/chain/stall-watch.js";
/** Holds the event loop, as a SIGSTOPped process or a frozen VM does (no timer or I/O runs). */
function freeze(ms) {
    const end = performance.now() + ms;
    while (performance.now() < end) {
        /* the loop does not run */
    }
}
const tick = (ms) => new Promise((r) => setTimeout(r, ms));
describe("StallWatch", () => {
    it("reports a freeze longer than the limit once, at the next check, and nothing while the loop runs", async () => {
        const stalls = [];
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
        const stalls = [];
        const w = new StallWatch(100, (gap) => stalls.push(gap));
        w.start();
        freeze(250);
        await tick(100);
        assert.equal(stalls.length, 1);
        w.stop();
    });
    it("work is not a stall, but a stop in the middle of work is (its wall time beyond its CPU time)", () => {
        const stalls = [];
        // The limit is well above the work: on a machine shared with other processes the busy loop's
        // wall time runs ahead of its CPU time (descheduled, not stopped), and that must not count.
        const w = new StallWatch(400, (gap) => stalls.push(gap));
        w.start();
        const work = w.begin();
        freeze(300); // busy: CPU time
        w.worked(work);
        assert.equal(w.check(), false, "a long forward pass");
        const stopped = w.begin();
        // The thread sleeps without using CPU, as a SIGSTOPped process does mid-computation.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600);
        w.worked(stopped);
        assert.equal(w.check(), true, "stopped mid-work");
        assert.equal(stalls.length, 1);
        w.stop();
        freeze(500);
        assert.equal(w.check(), false, "a stopped watch reports nothing");
    });
});
//# sourceMappingURL=stall-watch.test.js.map