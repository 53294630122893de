import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { pino } from "pino";
import { faultReporter } from "../../../node/observe/faults.js";
import { createMetrics } from "../../../node/observe/metrics.js";
describe("fault reporter", () => {
    it("one call: one warn line with fault, iteration, peer and reason (and the extras), and one count for /status", async () => {
        const lines = [];
        const sink = new Writable({
            write(chunk, _enc, done) {
                lines.push(JSON.parse(chunk.toString()));
                done();
            },
        });
        const metrics = createMetrics(false);
        const report = faultReporter(pino({ level: "info" }, sink), metrics);
        report("forkSwitch", "switching to a better commit", { iteration: 41, peer: "12D3KooWpeer", reason: "rank 0 beats rank 1", rank: 0 });
        report("stall", "process stalled past the round deadline; catching up before proposing", { iteration: 7, peer: null, reason: "slept" });
        await new Promise((r) => setImmediate(r));
        assert.equal(lines.length, 2);
        assert.deepEqual(lines.map((l) => [l.level, l.msg, l.fault, l.iteration, l.peer, l.reason]), [
            [40, "switching to a better commit", "forkSwitch", 41, "12D3KooWpeer", "rank 0 beats rank 1"],
            [40, "process stalled past the round deadline; catching up before proposing", "stall", 7, null, "slept"],
        ]);
        assert.equal(lines[0].rank, 0);
        const counts = await metrics.faults();
        assert.equal(counts.forkSwitch, 1);
        assert.equal(counts.stall, 1);
        assert.equal(counts.repair, 0);
    });
});
//# sourceMappingURL=faults.test.js.map