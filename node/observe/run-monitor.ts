/**
 * What a running daemon reports about itself: the `/status` document, health, the recent history
 * the dashboard draws, the metrics log and the Prometheus gauges. It only reads the daemon's state
 * (through a `DaemonView`) and never changes it; evaluating test accuracy reads the weights.
 */
import type { TrainingRun } from "../../training/run-context.js";
import type { Replica } from "../../training/replica.js";
import { type Logger, clearProgress, reportProgress } from "../ground/index.js";
import { MetricsLog, type MetricsRow } from "./metrics-log.js";
import type { FaultKind, Metrics } from "./metrics.js";

export const NODE_STATES = ["joining", "training", "following", "leaving"] as const;
/** joining: looking for peers and catching up at start; training: contributing and proposing;
 * following: applying commits without contributing (catching up, repairing); leaving: stopping. */
export type NodeState = (typeof NODE_STATES)[number];

/** The `/status` document. Its top-level fields are a contract: tools and people read them. */
export interface NodeStatus {
  readonly run: { readonly id: string; readonly name: string; readonly algorithm: string };
  readonly peerId: string;
  readonly state: NodeState;
  /** Iterations applied (the next one to apply). */
  readonly iteration: number;
  /** The run length. */
  readonly iterations: number;
  /** This node's last measured training loss; null before its first contribution. */
  readonly loss: number | null;
  /** Test accuracy on the evaluation subset at the last evaluation; null before the first. */
  readonly accuracy: number | null;
  /** Held-out loss at the last evaluation (test split; next-token loss for language models); null before the first. */
  readonly heldOutLoss: number | null;
  readonly peers: number;
  /** Bytes received / sent on all libp2p connections since start (TCP payload: Noise + Yamux framed). */
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly backend: string;
  /** SHA-256 of the weights after `iteration`. */
  readonly checksum: string;
  readonly uptimeSeconds: number;
  /** Faults met and handled since start, by kind (see FAULT_KINDS in metrics.ts). */
  readonly faults: Record<FaultKind, number> | null;
}

export interface Health {
  readonly ok: boolean;
  /** "ok", or why not: joining, leaving, stalled (with how long). */
  readonly reason: string;
}

/**
 * Healthy when training or following and the head advanced within `stallMs` (counted from when
 * the node started training if it has applied nothing since).
 */
export function healthOf(state: NodeState, lastAdvanceMs: number, nowMs: number, stallMs: number): Health {
  if (state === "joining" || state === "leaving") return { ok: false, reason: state };
  const idle = nowMs - lastAdvanceMs;
  if (idle > stallMs) return { ok: false, reason: `stalled: no iteration applied for ${Math.round(idle / 1000)} s` };
  return { ok: true, reason: "ok" };
}

/** What the monitor reads from the daemon. */
export interface DaemonView {
  readonly peerId: string;
  state(): NodeState;
  peers(): number;
  checksum(): string;
  backend(): string;
}

export interface RunMonitorOptions {
  /** Evaluate test accuracy every this many iterations (0: never). */
  readonly evalEvery: number;
  /** Test examples per evaluation: a fixed subset (the first n), so evaluations are cheap and comparable. */
  readonly evalLimit: number;
  /** No iteration applied for this long while training or following: unhealthy. */
  readonly stallMs: number;
  /** Rows kept in memory for `/history`. */
  readonly historyRows: number;
  /** Minimum time between two rows of the metrics log and history. */
  readonly rowEveryMs: number;
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
} as const satisfies Partial<RunMonitorOptions>;

/** Stall threshold for a run: a few round timeouts, at least 10 s (start-up, a slow loaded machine). */
export function stallMsFor(roundTimeoutMs: number): number {
  return Math.max(10_000, 5 * roundTimeoutMs);
}

/** How often the per-iteration progress reads the peer count (a gauge and a progress line). */
const PEERS_EVERY_MS = 1000;

export class RunMonitor {
  private readonly started = Date.now();
  private lastAdvance = Date.now();
  private accuracy: number | null = null;
  /** Held-out loss at the last evaluation; null before the first. */
  private heldOutLoss: number | null = null;
  private readonly rows: MetricsRow[] = [];
  private readonly log: MetricsLog;
  private writing: Promise<void> = Promise.resolve();
  private lastRowAt = 0;
  /** The connected peers' count, read at most every PEERS_EVERY_MS (it filters every connection). */
  private peersSeen = { at: 0, n: 0 };

  constructor(
    private readonly run: Pick<TrainingRun, "runId" | "spec" | "algorithm" | "heldOut">,
    private readonly replica: Replica,
    private readonly view: DaemonView,
    private readonly metrics: Metrics | null,
    /** Where this run's metrics rows go (store/data-dir.ts `metricsLogPath`). */
    metricsPath: string,
    private readonly opts: RunMonitorOptions,
    private readonly logger: Logger,
  ) {
    this.log = new MetricsLog(metricsPath, (err) =>
      logger.error({ err, errno: (err as NodeJS.ErrnoException).code ?? null }, "metrics log write failed; no more metrics rows this run"),
    );
  }

  /** Path of this run's metrics log. */
  get logPath(): string {
    return this.log.path;
  }

  private lossNow(): number | null {
    const l = this.run.algorithm.lastLoss;
    return Number.isFinite(l) ? l : null;
  }

  /** Call after each applied iteration (the head is already advanced). */
  onApplied(roundMs: number): void {
    const now = Date.now();
    this.lastAdvance = now;
    const t = this.replica.iteration;
    const training = this.view.state() === "training";
    // Evaluate only while training: a node replaying commits to catch up has better things to do.
    let accuracy: number | null = null;
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
    if (now - this.peersSeen.at >= PEERS_EVERY_MS) this.peersSeen = { at: now, n: this.view.peers() };
    const peers = this.peersSeen.n;
    const m = this.metrics;
    if (m) {
      m.iterationsApplied.inc();
      m.iteration.set(t);
      if (loss !== null) m.loss.set(loss);
      if (this.accuracy !== null) m.accuracy.set(this.accuracy);
      m.peers.set(peers);
      m.roundSeconds.observe(roundMs / 1000);
    }
    reportProgress(
      training ? "training" : "catching up",
      t,
      training ? this.run.spec.iterations : 0,
      `${this.rate(now, t)} it/s  loss ${loss?.toFixed(4) ?? "-"}  accuracy ${this.accuracy === null ? "-" : `${(100 * this.accuracy).toFixed(1)}%`}  peers ${peers}`,
    );
    // At most one row per rowEveryMs (a lone tiny run applies hundreds of iterations a second),
    // and every row with an accuracy.
    if (accuracy === null && now - this.lastRowAt < this.opts.rowEveryMs) return;
    this.lastRowAt = now;
    // Bytes come from an async read of libp2p's counters; chain the writes so rows stay in order.
    this.writing = this.writing.then(async () => {
      const b = (await m?.bytes()) ?? { in: 0, out: 0 };
      const row: MetricsRow = { t: now, iteration: t, loss, accuracy, peers, bytesIn: b.in, bytesOut: b.out, itPerSec: this.rate(now, t) };
      this.rows.push(row);
      if (this.rows.length > this.opts.historyRows) this.rows.splice(0, this.rows.length - this.opts.historyRows);
      this.log.append(row);
    });
  }

  /** Iterations per second over the rows of the last 5 s (and this one). */
  private rate(now: number, iteration: number): number {
    let first: MetricsRow | undefined;
    for (let i = this.rows.length - 1; i >= 0 && now - this.rows[i].t <= 5000; i--) first = this.rows[i];
    if (!first || now === first.t) return 0;
    return Math.round(((iteration - first.iteration) * 1000 * 100) / (now - first.t)) / 100;
  }

  /** The rows after `sinceIteration` (all kept rows when omitted). */
  history(sinceIteration = -1): MetricsRow[] {
    return this.rows.filter((r) => r.iteration > sinceIteration);
  }

  /** Call when the node has joined: time spent joining does not count as a stall. */
  joined(): void {
    this.lastAdvance = Date.now();
  }

  health(): Health {
    return healthOf(this.view.state(), this.lastAdvance, Date.now(), this.opts.stallMs);
  }

  async status(): Promise<NodeStatus> {
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
  async close(): Promise<void> {
    clearProgress();
    await this.writing.catch(() => {});
    await this.log.close();
  }
}
