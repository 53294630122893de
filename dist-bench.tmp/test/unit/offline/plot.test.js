import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { MetricsLog, readMetricsLog } from "../../../node/observe/metrics-log.js";
import { metricsLogPath } from "../../../node/store/data-dir.js";
import { plotRuns } from "../../../node/offline/plot.js";
const rows = (n, lossAt) => Array.from({ length: n }, (_, i) => ({
    t: 1_000_000 + i * 250,
    iteration: i * 10,
    loss: lossAt(i),
    accuracy: i % 4 === 0 ? i / n : null,
    peers: 2,
    bytesIn: i * 5000,
    bytesOut: i * 4000,
    itPerSec: 40,
}));
describe("metrics log and plot", () => {
    it("a log round-trips through the file, skipping a torn last line", async () => {
        const dir = mkdtempSync(join(tmpdir(), "seedswarm-mlog-"));
        try {
            const path = metricsLogPath(dir, "ab".repeat(32));
            assert.equal(path, join(dir, "metrics", `${"ab".repeat(32)}.jsonl`));
            const log = new MetricsLog(path, (err) => assert.fail(err));
            const written = rows(5, (i) => 1 / (i + 1));
            for (const r of written)
                log.append(r);
            await log.close();
            appendFileSync(path, '{"t":1,"iterat');
            assert.deepEqual(readMetricsLog(path), written);
        }
        finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
    it("draws each run in each panel, scaled to the data", () => {
        const svg = plotRuns([
            { label: "fast", rows: rows(40, (i) => 2 / (i + 1)) },
            { label: "slow <b>", rows: rows(20, (i) => 2 - i / 20) },
        ]);
        assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
        assert.equal((svg.match(/<polyline /g) ?? []).length, 8);
        assert.match(svg, /slow &#60;b&#62;/, "labels are escaped");
        assert.match(svg, /data-panel="training loss" data-points="60"/);
        assert.match(svg, /data-panel="test accuracy" data-points="15"/);
        // 9000 bytes per 10 iterations: 900 per iteration, every point.
        const bytesPanel = svg.slice(svg.indexOf('data-panel="bytes per iteration'));
        assert.match(bytesPanel, />900</, "the y axis is labelled at the constant value");
        // Loss axis spans the data: max 2 (both runs start at 2).
        const lossPanel = svg.slice(svg.indexOf('data-panel="training loss"'), svg.indexOf('data-panel="test accuracy"'));
        assert.match(lossPanel, />2\.00</);
    });
});
//# sourceMappingURL=plot.test.js.map