/**
 * Observability against a real 2-node swarm (node processes over loopback TCP, tiny-spsa):
 * /healthz while joining and training, /status, /metrics, the dashboard in headless Chromium,
 * `seedswarm status`, the metrics log and `seedswarm plot`.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium } from "playwright-core";
import { ensureSystemPackage } from "../helpers/system-package.js";
import { readMetricsLog } from "../../node/observe/metrics-log.js";
import { metricsLogPath } from "../../node/store/data-dir.js";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { cleanup, Node, tempDir } from "./node-process.js";
const CLI = join(import.meta.dirname, "..", "..", "cli", "main.js");
const CHROMIUM = "/usr/bin/chromium";
const runId = runIdOf(parseRunSpec({ ...PRESETS["tiny-spsa"], iterations: 100000 }));
after(cleanup);
/** Runs the CLI to completion. */
function cli(args) {
    return new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d.toString()));
        child.stderr.on("data", (d) => (stderr += d.toString()));
        child.on("exit", (code) => resolve({ code, stdout, stderr }));
    });
}
/** The value of a Prometheus sample line `name{labels} value` (labels matched literally). */
function sample(text, series) {
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    assert.ok(line, `metrics have ${series}`);
    return Number(line.slice(series.length + 1));
}
async function httpUrl(node) {
    return (await node.waitFor((l) => l.msg === "http listening", 15_000, "http listening")).url;
}
describe("observability of a running 2-node swarm", () => {
    const args = ["--iterations", "100000", "--http", "127.0.0.1:0", "--eval-every", "10"];
    let a;
    let b;
    let urlA;
    let urlB;
    /** Installed (or found missing) before the swarm starts: an install takes minutes. */
    let chromiumMissing = null;
    before(async () => {
        chromiumMissing = ensureSystemPackage(CHROMIUM, "chromium");
        a = new Node(await tempDir(), [...args, "--join-wait", "15000", "--min-peers", "1"]);
        urlA = await httpUrl(a);
    });
    it("/healthz is 503 while joining, /status says joining", async () => {
        const h = await fetch(`${urlA}/healthz`);
        assert.equal(h.status, 503);
        assert.equal((await h.text()).trim(), "joining");
        const s = (await (await fetch(`${urlA}/status`)).json());
        assert.equal(s.state, "joining");
        assert.equal(s.iteration, 0);
        // Now the second node: the first one's quorum.
        b = new Node(await tempDir(), [...args, "--bootstrap", await a.address()]);
        urlB = await httpUrl(b);
        for (const n of [a, b])
            await n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 25, 30_000, "iteration 25");
    });
    it("/status: the documented fields, figures that match the node's own log", async () => {
        const s = (await (await fetch(`${urlA}/status`)).json());
        assert.deepEqual(Object.keys(s).sort(), [
            "accuracy", "backend", "bytesIn", "bytesOut", "checksum", "faults", "heldOutLoss", "iteration", "iterations", "loss",
            "peerId", "peers", "run", "state", "uptimeSeconds",
        ]);
        // Fault counters: every kind present; a fault-free pair has no stall, rejection or penalty.
        assert.deepEqual(Object.keys(s.faults ?? {}).sort(), [
            "auditFailed",
            "authorExcluded",
            "commitRejected",
            "falseAccusation",
            "forkSwitch",
            "peerPenalised",
            "repair",
            "snapshotAdopted",
            "stall",
        ]);
        assert.equal(s.faults?.commitRejected, 0);
        assert.equal(s.faults?.peerPenalised, 0);
        assert.deepEqual(s.run, { id: runId, name: "tiny-spsa", algorithm: "spsa" });
        assert.equal(s.peerId, (await a.waitFor((l) => l.msg === "node started")).peerId);
        // "following" for a moment when a loaded machine lets it fall behind and it catches up.
        assert.match(s.state, /^(training|following)$/);
        assert.equal(s.iterations, 100000);
        assert.ok(s.iteration >= 25, `iteration ${s.iteration}`);
        assert.equal(s.peers, 1);
        assert.equal(s.backend, "wasm");
        assert.ok(s.loss !== null && s.loss > 0 && s.loss < 10, `loss ${s.loss}`);
        assert.ok(s.accuracy !== null && s.accuracy >= 0 && s.accuracy <= 1, `accuracy ${s.accuracy}`);
        assert.ok(s.heldOutLoss !== null && s.heldOutLoss > 0, `held-out loss ${s.heldOutLoss}`);
        // The accuracy is the last "evaluated" line's.
        const evaluated = a.lines.filter((l) => l.msg === "evaluated");
        assert.ok(evaluated.length > 0);
        assert.ok(evaluated.some((l) => l.accuracy === s.accuracy));
        // Gossip flowed both ways, so both counters moved: kilobytes in a few dozen iterations.
        assert.ok(s.bytesIn > 1000 && s.bytesOut > 1000, `bytes ${s.bytesIn} / ${s.bytesOut}`);
        // The checksum is the one the node logged after applying that iteration, and the other
        // node's after the same iteration.
        const mine = await a.waitFor((l) => l.msg === "applied" && l.iteration === s.iteration);
        assert.equal(s.checksum, mine.checksum);
        const theirs = await b.waitFor((l) => l.msg === "applied" && l.iteration === s.iteration);
        assert.equal(theirs.checksum, s.checksum);
    });
    it("/metrics: our counters and libp2p's, consistent with each other", async () => {
        const res = await fetch(`${urlA}/metrics`);
        assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
        const ta = await res.text();
        const tb = await (await fetch(`${urlB}/metrics`)).text();
        const appliedA = sample(ta, "seedswarm_iterations_applied_total");
        assert.ok(appliedA >= 25);
        // Every applied iteration was proposed by one of the two nodes (fallbacks may add more).
        const proposed = sample(ta, "seedswarm_commits_proposed_total") + sample(tb, "seedswarm_commits_proposed_total");
        assert.ok(proposed >= appliedA, `proposed ${proposed} < applied ${appliedA}`);
        assert.equal(sample(ta, "seedswarm_round_seconds_count"), appliedA);
        assert.equal(sample(ta, "seedswarm_peers"), 1);
        assert.ok(sample(ta, "seedswarm_checksum_checks_total") >= 1, "periodic checksum checks ran");
        assert.equal(sample(ta, "seedswarm_checksum_mismatches_total"), 0);
        assert.equal(sample(ta, "seedswarm_repairs_total"), 0);
        const acc = sample(ta, "seedswarm_accuracy");
        assert.ok(acc >= 0 && acc <= 1);
        // libp2p's own: bytes per connection and per protocol (gossipsub among them), process metrics.
        const sent = sample(ta, 'libp2p_data_transfer_bytes_total{protocol="global sent"}');
        assert.ok(sent > 1000);
        assert.ok(sample(ta, "seedswarm_bytes_sent_total") >= sent, "our byte counter reads libp2p's");
        assert.match(ta, /libp2p_data_transfer_bytes_total\{protocol="\/meshsub\/[\d.]+ sent"\} \d+/);
        assert.match(ta, /^libp2p_connection_manager_connections\{/m);
        assert.match(ta, /^process_cpu_user_seconds_total \d/m);
    });
    it("/healthz is 200 while training; unknown paths 404", async () => {
        const h = await fetch(`${urlB}/healthz`);
        assert.equal(h.status, 200);
        assert.equal((await h.text()).trim(), "ok");
        assert.equal((await fetch(`${urlB}/nope`)).status, 404);
        assert.equal((await fetch(`${urlB}/status`, { method: "POST" })).status, 405);
    });
    it("the dashboard draws the running node's data in headless Chromium, without console errors", async (t) => {
        if (chromiumMissing) {
            t.skip(chromiumMissing);
            return;
        }
        const profile = await mkdtemp(join(tmpdir(), "seedswarm-chromium-"));
        const ctx = await chromium.launchPersistentContext(profile, {
            executablePath: CHROMIUM,
            headless: true,
            args: [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
            ],
        });
        try {
            const page = await ctx.newPage();
            const problems = [];
            page.on("console", (m) => {
                if (m.type() === "error" || m.type() === "warning")
                    problems.push(`${m.type()}: ${m.text()}`);
            });
            page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
            await page.goto(`${urlA}/`);
            // Curves with several points, drawn from /history, and the header from /status.
            const points = (id) => page.$eval(id, (e) => Number(e.getAttribute("data-points")));
            const atLeast = (id, n) => page.waitForFunction(`Number(document.querySelector("${id}").getAttribute("data-points")) >= ${n}`, null, { timeout: 15_000 });
            await atLeast("#c-loss", 5);
            await atLeast("#c-bytes", 2);
            assert.ok((await points("#c-accuracy")) >= 1);
            assert.ok((await points("#c-rate")) >= 5);
            assert.equal(await page.$eval("#c-peers", (e) => e.getAttribute("data-last")), "1");
            assert.ok((await page.$$("#c-loss polyline")).length === 1);
            const s = (await (await fetch(`${urlA}/status`)).json());
            assert.equal(await page.textContent("#name"), "tiny-spsa");
            assert.match((await page.textContent("#state")) ?? "", /^(training|following)$/);
            assert.equal(await page.textContent("#peers"), "1");
            const shown = /^(\d+) \/ 100000$/.exec((await page.textContent("#iteration")) ?? "");
            assert.ok(shown && Math.abs(Number(shown[1]) - s.iteration) < 200, `iteration shown ${shown?.[1]}, node at ${s.iteration}`);
            // The loss curve's last point is a loss the node reported in /history.
            const history = (await (await fetch(`${urlA}/history`)).json());
            const last = Number(await page.$eval("#c-loss", (e) => e.getAttribute("data-last")));
            assert.ok(history.some((r) => r.loss !== null && Math.abs(r.loss - last) < 1e-9), `loss ${last} not in /history`);
            assert.deepEqual(problems, []);
        }
        finally {
            await ctx.close();
            await rm(profile, { recursive: true, force: true });
        }
    });
    it("seedswarm status: summary, --json, --healthz", async () => {
        const hostPort = urlA.replace("http://", "");
        const text = await cli(["status", "--http", hostPort]);
        assert.equal(text.code, 0, text.stderr);
        assert.match(text.stdout, /^state\s+(training|following)$/m);
        assert.match(text.stdout, /^run\s+tiny-spsa \(spsa\) /m);
        const json = await cli(["status", "--http", hostPort, "--json"]);
        assert.equal(json.code, 0);
        const s = JSON.parse(json.stdout);
        assert.equal(s.run.id, runId);
        assert.ok(s.iteration >= 25);
        const healthy = await cli(["status", "--healthz", "--http", hostPort]);
        assert.equal(healthy.code, 0);
        assert.match(healthy.stdout, /^healthy: ok/);
    });
    it("the metrics log: rows on disk after leaving, drawn by seedswarm plot", async () => {
        a.child.kill("SIGTERM");
        b.child.kill("SIGTERM");
        const exits = await Promise.all([a.exit, b.exit]);
        for (const e of exits)
            assert.equal(e.code, 0);
        const files = [a, b].map((n) => metricsLogPath(n.dataDir, runId));
        for (const [i, f] of files.entries()) {
            const rows = readMetricsLog(f);
            const final = [a, b][i].result().iteration;
            assert.ok(rows.length >= 5, `${rows.length} rows`);
            for (let k = 1; k < rows.length; k++) {
                // Equal iterations: a one-step fork switch applied an iteration again.
                assert.ok(rows[k].iteration >= rows[k - 1].iteration && rows[k].t >= rows[k - 1].t, JSON.stringify(rows.slice(k - 2, k + 2)));
                assert.ok(rows[k].bytesIn >= rows[k - 1].bytesIn && rows[k].bytesOut >= rows[k - 1].bytesOut);
            }
            assert.ok(rows[rows.length - 1].iteration <= final);
            assert.ok(rows.some((r) => r.accuracy !== null));
            assert.ok(rows.some((r) => r.peers === 1));
        }
        const out = join(await tempDir(), "plot.svg");
        const plot = await cli(["plot", ...files, "--out", out]);
        assert.equal(plot.code, 0, plot.stderr);
        assert.match(plot.stdout, new RegExp(`wrote ${out}`));
        const svg = readFileSync(out, "utf8");
        assert.match(svg, /^<svg xmlns/);
        assert.equal((svg.match(/<polyline /g) ?? []).length, 8, "4 panels x 2 runs");
        for (const panel of ["training loss", "test accuracy", "iterations per second", "bytes per iteration (in + out)"]) {
            const n = Number(new RegExp(`data-panel="${panel.replace(/[()+]/g, "\\$&")}" data-points="(\\d+)"`).exec(svg)?.[1]);
            assert.ok(n >= 2, `${panel}: ${n} points`);
        }
        const missing = await cli(["plot", join(tmpdir(), "no-such-run.jsonl"), "--out", out]);
        assert.equal(missing.code, 2);
        assert.match(missing.stderr, /✖ no such metrics log: .*no-such-run\.jsonl/);
    });
    it("--http refuses a public address without --http-public and a bad port; status where nothing answers", async () => {
        const pub = await cli(["node", "--preset", "tiny-spsa", "--http", "0.0.0.0:9090", "--data-dir", await tempDir()]);
        assert.equal(pub.code, 2);
        assert.match(pub.stderr, /✖ --http 0\.0\.0\.0:9090 would serve status and metrics beyond this machine; add --http-public/);
        const port = await cli(["node", "--http", "127.0.0.1:70000"]);
        assert.notEqual(port.code, 0);
        assert.match(port.stderr, /port must be 0 to 65535, got 70000/);
        // seedswarm status where nothing answers: a port nothing listens on (ours, once released).
        const closed = await new Promise((resolve) => {
            const srv = createServer().listen(0, "127.0.0.1", () => {
                const port = srv.address().port;
                srv.close(() => resolve(port));
            });
        });
        for (const extra of [[], ["--healthz"]]) {
            const down = await cli(["status", "--http", `127.0.0.1:${closed}`, ...extra]);
            assert.equal(down.code, 1);
            assert.match(down.stderr, /✖ no seedswarm node answers at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
        }
    });
});
//# sourceMappingURL=observability.test.js.map