import { MetricsLog } from "./metrics-log.js";
import { metricsLogPath } from "../store/data-dir.js";
import { clearProgress, reportProgress } from "./progress.js";
export const NODE_STATES = ["joining", "training", "following", "leaving"];
/**
 * Healthy when training or following and the head advanced within `stallMs` (counted from when
 * the node started training if it has applied nothing since).
 */
export function healthOf(state, lastAdvanceMs, nowMs, stallMs) {
    if (state === "joining" || state === "leaving")
        return { ok: false, reason: state };
    const idle = nowMs - lastAdvanceMs;
    if (idle > stallMs)
        return { ok: false, reason: `stalled: no iteration applied for ${Math.round(idle / 1000)} s` };
    return { ok: true, reason: "ok" };
}
export const defaultRunMonitorOptions = {
    // Every 50 iterations costs ~1% of a tiny round and well under that of an MNIST one.
    evalEvery: 50,
    // 1,000 MNIST test images: a 784-32-10 forward pass in a few milliseconds, accuracy within ~1.5%.
    evalLimit: 1000,
    // 4,000 rows (over 16 minutes at the row rate) are ~600 KB of JSON for the dashboard.
    historyRows: 4000,
    // Four rows a second draw smooth curves; more only grows the log (MNIST rounds take ~0.3 s).
    rowEveryMs: 250,
};
/** Stall threshold for a run: a few round timeouts, at least 10 s (start-up, a slow loaded machine). */
export function stallMsFor(roundTimeoutMs) {
    return Math.max(10_000, 5 * roundTimeoutMs);
}
export class RunMonitor {
    run;
    replica;
    view;
    metrics;
    opts;
    logger;
    started = Date.now();
    lastAdvance = Date.now();
    accuracy = null;
    /** Held-out loss at the last evaluation; null before the first. */
    heldOutLoss = null;
    rows = [];
    log;
    writing = Promise.resolve();
    lastRowAt = 0;
    constructor(run, replica, view, metrics, dataDir, opts, logger) {
        this.run = run;
        this.replica = replica;
        this.view = view;
        this.metrics = metrics;
        this.opts = opts;
        this.logger = logger;
        this.log = new MetricsLog(metricsLogPath(dataDir, run.runId), (err) => logger.error({ err, errno: err.code ?? null }, "metrics log write failed; no more metrics rows this run"));
    }
    /** Path of this run's metrics log. */
    get logPath() {
        return this.log.path;
    }
    lossNow() {
        const l = this.run.algorithm.lastLoss;
        return Number.isFinite(l) ? l : null;
    }
    /** Call after each applied iteration (the head is already advanced). */
    onApplied(roundMs) {
        const now = Date.now();
        this.lastAdvance = now;
        const t = this.replica.iteration;
        const training = this.view.state() === "training";
        // Evaluate only while training: a node replaying commits to catch up has better things to do.
        let accuracy = null;
        // The first evaluation comes at once (no score yet), then every evalEvery iterations. "No score
        // yet" is the held-out loss: a causal-LM run never has an accuracy, and would evaluate on every
        // iteration.
        if (training && this.opts.evalEvery > 0 && (t % this.opts.evalEvery === 0 || this.heldOutLoss === null)) {
            const score = this.run.heldOut(this.replica.backend.tensors, this.opts.evalLimit);
            // Language-model runs without a classification task have a held-out loss and no accuracy.
            accuracy = score.accuracy;
            this.accuracy = accuracy;
            this.heldOutLoss = score.loss;
            this.logger.info({ iteration: t, accuracy, heldOutLoss: score.loss, examples: score.examples }, "evaluated");
        }
        const loss = this.lossNow();
        const peers = this.view.peers();
        const m = this.metrics;
        if (m) {
            m.iterationsApplied.inc();
            m.iteration.set(t);
            if (loss !== null)
                m.loss.set(loss);
            if (this.accuracy !== null)
                m.accuracy.set(this.accuracy);
            m.peers.set(peers);
            m.roundSeconds.observe(roundMs / 1000);
        }
        reportProgress(training ? "training" : "catching up", t, training ? this.run.spec.iterations : 0, `${this.rate(now, t)} it/s  loss ${loss?.toFixed(4) ?? "-"}  accuracy ${this.accuracy === null ? "-" : `${(100 * this.accuracy).toFixed(1)}%`}  peers ${peers}`);
        // At most one row per rowEveryMs (a lone tiny run applies hundreds of iterations a second),
        // and every row with an accuracy.
        if (accuracy === null && now - this.lastRowAt < this.opts.rowEveryMs)
            return;
        this.lastRowAt = now;
        // Bytes come from an async read of libp2p's counters; chain the writes so rows stay in order.
        this.writing = this.writing.then(async () => {
            const b = (await m?.bytes()) ?? { in: 0, out: 0 };
            const row = { t: now, iteration: t, loss, accuracy, peers, bytesIn: b.in, bytesOut: b.out, itPerSec: this.rate(now, t) };
            this.rows.push(row);
            if (this.rows.length > this.opts.historyRows)
                this.rows.splice(0, this.rows.length - this.opts.historyRows);
            this.log.append(row);
        });
    }
    /** Iterations per second over the rows of the last 5 s (and this one). */
    rate(now, iteration) {
        let first;
        for (let i = this.rows.length - 1; i >= 0 && now - this.rows[i].t <= 5000; i--)
            first = this.rows[i];
        if (!first || now === first.t)
            return 0;
        return Math.round(((iteration - first.iteration) * 1000 * 100) / (now - first.t)) / 100;
    }
    /** The rows after `sinceIteration` (all kept rows when omitted). */
    history(sinceIteration = -1) {
        return this.rows.filter((r) => r.iteration > sinceIteration);
    }
    /** Call when the node has joined: time spent joining does not count as a stall. */
    joined() {
        this.lastAdvance = Date.now();
    }
    health() {
        return healthOf(this.view.state(), this.lastAdvance, Date.now(), this.opts.stallMs);
    }
    async status() {
        const b = (await this.metrics?.bytes()) ?? { in: 0, out: 0 };
        const spec = this.run.spec;
        return {
            run: { id: this.run.runId, name: spec.name, algorithm: spec.algorithm.kind },
            peerId: this.view.peerId,
            state: this.view.state(),
            iteration: this.replica.iteration,
            iterations: spec.iterations,
            loss: this.lossNow(),
            accuracy: this.accuracy,
            heldOutLoss: this.heldOutLoss,
            peers: this.view.peers(),
            bytesIn: b.in,
            bytesOut: b.out,
            backend: this.view.backend(),
            checksum: this.view.checksum(),
            uptimeSeconds: Math.round((Date.now() - this.started) / 1000),
            faults: (await this.metrics?.faults()) ?? null,
        };
    }
    /** Flushes the metrics log. */
    async close() {
        clearProgress();
        await this.writing.catch(() => { });
        await this.log.close();
    }
}
//# sourceMappingURL=run-monitor.js.map