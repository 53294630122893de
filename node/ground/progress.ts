/**
 * Progress of long work (snapshot download, catching up, training) as one status line at the
 * bottom of a terminal, redrawn in place; pretty log lines print above it. Only when stdout is a
 * TTY: otherwise every call here does nothing and the JSON logs are the record.
 * The line is process-wide state, like stdout itself, hence a module rather than an object.
 */
import { writeSync } from "node:fs";
import { Writable } from "node:stream";

const enabled = process.stdout.isTTY === true;
const CLEAR = "\r\x1b[2K";
let line = "";
let lastDraw = 0;

function draw(): void {
  if (line) writeSync(1, CLEAR + line.slice(0, Math.max(20, (process.stdout.columns || 120) - 1)));
}

/**
 * Shows `task done/total [bar] detail`; throttled to 10 redraws a second, except the last step.
 * @param total 0 when unknown: no bar, just the count.
 */
export function reportProgress(task: string, done: number, total: number, detail = ""): void {
  if (!enabled) return;
  const now = Date.now();
  if (now - lastDraw < 100 && done < total) return;
  lastDraw = now;
  let bar = "";
  if (total > 0) {
    const width = 24;
    const filled = Math.round((width * Math.min(done, total)) / total);
    bar = ` [${"#".repeat(filled)}${".".repeat(width - filled)}] ${((100 * done) / total).toFixed(0)}%`;
  }
  line = `${task} ${done}${total > 0 ? `/${total}` : ""}${bar}${detail ? `  ${detail}` : ""}`;
  draw();
}

/** Removes the status line (work finished, or the process is leaving). */
export function clearProgress(): void {
  if (!enabled || !line) return;
  line = "";
  writeSync(1, CLEAR);
}

/** A stdout stream for pretty logs that keeps the status line below the log lines. */
export function progressAwareStdout(): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      writeSync(1, line ? CLEAR + chunk.toString() : chunk.toString());
      draw();
      cb();
    },
  });
}
