/**
 * The metrics log: one JSONL file per run under the data directory,
 * `<data-dir>/metrics/<runId>.jsonl`, a row per applied iteration at most every 250 ms (and every
 * row with a test accuracy), appended across restarts.
 * It is what `seedswarm plot` draws and what the dashboard's `/history` serves.
 */
import { createWriteStream, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
/**
 * Appends rows to a run's metrics log. A failed write (a full disk) stops the log, reported once
 * through `onError`: losing plot rows must never stop training.
 */
export class MetricsLog {
    path;
    out;
    failed = false;
    constructor(path, onError) {
        this.path = path;
        mkdirSync(join(path, ".."), { recursive: true });
        // Opened here, synchronously: an unwritable data dir fails at start, not at the first row.
        this.out = createWriteStream("", { fd: openSync(path, "a") });
        this.out.on("error", (err) => {
            if (!this.failed)
                onError(err);
            this.failed = true;
        });
    }
    append(row) {
        if (!this.failed)
            this.out.write(`${JSON.stringify(row)}\n`);
    }
    close() {
        if (this.failed)
            return Promise.resolve();
        return new Promise((r) => {
            this.out.once("error", () => r());
            this.out.end(r);
        });
    }
}
/** Reads a metrics log; lines that do not parse as rows (a torn last line) are skipped. */
export function readMetricsLog(path) {
    const rows = [];
    for (const text of readFileSync(path, "utf8").split("\n")) {
        if (!text)
            continue;
        try {
            const r = JSON.parse(text);
            if (typeof r.iteration === "number" && typeof r.t === "number")
                rows.push(r);
        }
        catch {
            // A torn line after a crash.
        }
    }
    return rows;
}
//# sourceMappingURL=metrics-log.js.map