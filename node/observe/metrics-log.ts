/**
 * The metrics log: one JSONL file per run under the data directory,
 * `<data-dir>/metrics/<runId>.jsonl`, a row per applied iteration at most every 250 ms (and every
 * row with a test accuracy), appended across restarts.
 * It is what `seedswarm plot` draws and what the dashboard's `/history` serves.
 */
import { createWriteStream, mkdirSync, openSync, readFileSync, type WriteStream } from "node:fs";
import { join } from "node:path";

/** One row of the metrics log. */
export interface MetricsRow {
  /** Unix time in milliseconds when the iteration was applied. */
  readonly t: number;
  /** Iterations applied so far (the head after this one). */
  readonly iteration: number;
  /** This node's last measured training loss (null before it has measured any). */
  readonly loss: number | null;
  /** Test accuracy on the evaluation subset, only on rows where it was evaluated. */
  readonly accuracy: number | null;
  /** Connected peers in the run. */
  readonly peers: number;
  /** Bytes received and sent on all libp2p connections since the process started. */
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Applied iterations per second over the last few seconds. */
  readonly itPerSec: number;
}

/**
 * Appends rows to a run's metrics log. A failed write (a full disk) stops the log, reported once
 * through `onError`: losing plot rows must never stop training.
 */
export class MetricsLog {
  private readonly out: WriteStream;
  private failed = false;

  constructor(
    readonly path: string,
    onError: (err: Error) => void,
  ) {
    mkdirSync(join(path, ".."), { recursive: true });
    // Opened here, synchronously: an unwritable data dir fails at start, not at the first row.
    this.out = createWriteStream("", { fd: openSync(path, "a") });
    this.out.on("error", (err) => {
      if (!this.failed) onError(err);
      this.failed = true;
    });
  }

  append(row: MetricsRow): void {
    if (!this.failed) this.out.write(`${JSON.stringify(row)}\n`);
  }

  close(): Promise<void> {
    if (this.failed) return Promise.resolve();
    return new Promise((r) => {
      this.out.once("error", () => r());
      this.out.end(r);
    });
  }
}

/** Reads a metrics log; lines that do not parse as rows (a torn last line) are skipped. */
export function readMetricsLog(path: string): MetricsRow[] {
  const rows: MetricsRow[] = [];
  for (const text of readFileSync(path, "utf8").split("\n")) {
    if (!text) continue;
    try {
      const r = JSON.parse(text) as MetricsRow;
      if (typeof r.iteration === "number" && typeof r.t === "number") rows.push(r);
    } catch {
      // A torn line after a crash.
    }
  }
  return rows;
}
