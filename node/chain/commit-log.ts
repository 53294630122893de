/**
 * `<run dir>/commits.jsonl`: one line per applied commit (authors, join timestamps, payloads, the
 * chain hashes, and the signed bytes as they were applied), enough to replay the run in one process, to resume past the last checkpoint and
 * to serve the chain after a restart. A later line for an iteration supersedes an earlier one (a
 * fork switch). Read back, every commit is checked again like a received one: the file is ours,
 * but a commit we serve must carry its signatures.
 *
 * Durability: each line is written with one write(2) as it is applied, so a killed process loses
 * nothing the kernel took; `sync()` (at every checkpoint) fsyncs, so a power cut loses at most
 * what came after the last checkpoint. A crash mid-write leaves a torn last line, which `read()`
 * cuts off. A failed write (a full disk) is logged once and the log stops growing until the next
 * successful checkpoint reopens it: resuming starts at that checkpoint, so the gap is harmless.
 *
 * Size: `compact(keepFrom)` (after a checkpoint) drops the lines before `keepFrom` once there are
 * at least `minDrop` of them, rewriting the file atomically (temp file, fsync, rename), so the log
 * holds what the two checkpoints and the served chain need, not the whole run.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { fromHex, toHex } from "../../protocol/bytes.js";
import type { Logger } from "../ground/index.js";
import { type ChainedCommit, chained } from "./commit.js";
import { commitFromBytes } from "./commit-wire.js";

/** A commit as the log holds it: its signed bytes as applied, and their hash (the next commit's prevHash). */
export type LoggedCommit = ChainedCommit;

interface Line {
  iteration: number;
  hash: string;
  /** The signed wire bytes; the other fields are for people reading the file. */
  encoded?: string;
}

/**
 * A line back to a commit, checked like a received one (signatures, canonical bytes) and against
 * its own iteration and hash; null for a torn, unsigned (older format) or altered line.
 */
function parseLine(text: string): LoggedCommit | null {
  try {
    const l = JSON.parse(text) as Line;
    if (typeof l.iteration !== "number" || typeof l.hash !== "string" || typeof l.encoded !== "string") return null;
    const c = chained(commitFromBytes(fromHex(l.encoded)));
    if (c.commit.iteration !== l.iteration || toHex(c.hash) !== l.hash) return null;
    return c;
  } catch {
    return null;
  }
}

export class CommitLogFile {
  private fd: number | null = null;
  /** Bytes of whole lines this object knows the file to hold (after read() and its own appends). */
  private size = 0;
  /** Set by a failed write: the file's length before it, where the reopened log cuts what it tore. */
  private tornAt: number | null = null;
  private failed = false;
  /** The first iteration the file holds (null: unknown or empty), for compact(). */
  private oldest: number | null = null;
  /** The fsync under way, if any (close waits for it: its fd must stay open). */
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly log: Logger,
  ) {}

  /** Appends an applied commit (opening the file on first use). Never throws: a failure is logged and stops the log. */
  append(c: ChainedCommit): void {
    if (this.failed) return;
    const { commit } = c;
    const line = Buffer.from(
      `${JSON.stringify({
        iteration: commit.iteration,
        hash: toHex(c.hash),
        prevHash: toHex(commit.prevHash),
        checksum: toHex(commit.checksum),
        rank: commit.rank,
        proposer: commit.proposer,
        entries: commit.entries.map((e) => ({
          author: e.author.id,
          joinedAt: e.author.joinedAt,
          payload: toHex(e.payload),
        })),
        // For readers of the file; the resume reads `encoded`.
        ...(commit.exclusions?.length ? { exclusions: commit.exclusions } : {}),
        encoded: toHex(c.encoded),
      })}\n`,
    );
    try {
      this.fd ??= this.openForAppend();
      const n = writeSync(this.fd, line);
      if (n !== line.length) throw Object.assign(new Error(`short write: ${n} of ${line.length} bytes`), { code: "ENOSPC" });
      this.size += n;
      this.oldest ??= commit.iteration;
    } catch (err) {
      this.fail(err, commit.iteration);
    }
  }

  /**
   * Makes what was appended durable (fsync, on libuv's thread pool: a slow disk must not stall the
   * rounds). False when the log is stopped or the sync failed.
   */
  async sync(): Promise<boolean> {
    if (this.failed) return false;
    const fd = this.fd;
    if (fd === null) return true;
    this.syncing = new Promise<void>((resolve) => fsync(fd, (err) => {
      if (err && this.fd === fd) this.fail(err, null);
      resolve();
    }));
    await this.syncing;
    return !this.failed;
  }

  /** After a checkpoint that a resume can start from: a log stopped by a failed write starts again. */
  reopenIfStopped(): void {
    if (!this.failed) return;
    this.failed = false;
    this.log.info({ path: this.path }, "commit log reopened after a checkpoint");
  }

  /**
   * The commits the file holds, the last word for each iteration, in iteration order. A torn last
   * record (a crash mid-write: no newline, or a line that does not parse, at the end) is cut off
   * the file, with a log line; unreadable lines further up are skipped and counted.
   */
  read(): LoggedCommit[] {
    if (!existsSync(this.path)) return [];
    const bytes = readFileSync(this.path);
    const byIteration = new Map<number, LoggedCommit>();
    let start = 0;
    // End of the last line that parsed: everything after it is the torn tail.
    let good = 0;
    const bad: number[] = [];
    while (start < bytes.length) {
      const nl = bytes.indexOf(0x0a, start);
      const end = nl < 0 ? bytes.length : nl + 1;
      const parsed = nl < 0 ? null : parseLine(bytes.toString("utf8", start, nl));
      if (parsed) {
        byIteration.set(parsed.commit.iteration, parsed);
        good = end;
      } else if (end - start > 1) bad.push(start);
      start = end;
    }
    // Unreadable lines before the last good one: a bad sector or a hand edit, not a crash.
    const skipped = bad.filter((at) => at < good).length;
    if (good < bytes.length) {
      truncateSync(this.path, good);
      this.log.warn({ path: this.path, bytes: bytes.length - good, keptBytes: good }, "commit log: torn last record truncated");
    }
    if (skipped > 0) this.log.warn({ path: this.path, lines: skipped }, "commit log: unreadable lines skipped");
    this.size = good;
    this.oldest = byIteration.size > 0 ? Math.min(...byIteration.keys()) : null;
    return [...byIteration.values()].sort((a, b) => a.commit.iteration - b.commit.iteration);
  }

  /**
   * Drops the lines for iterations before `keepFrom` once there are at least `minDrop` of them
   * (so the file is rewritten rarely): a temp file beside it, fsynced, renamed over it. Synchronous,
   * so no append interleaves. Returns how many lines it dropped; a failure is logged and keeps the
   * whole log.
   */
  async compact(keepFrom: number, minDrop: number): Promise<number> {
    if (this.failed || this.oldest === null || keepFrom - this.oldest < minDrop) return 0;
    await this.sync();
    await this.syncing;
    if (this.failed || !existsSync(this.path)) return 0;
    // The temp name store/atomic-file.ts's stale-temp cleanup knows (its counter never gives 0).
    const tmp = `${this.path}.tmp-${process.pid}-0`;
    try {
      // Whole lines only: the size this object knows (a torn tail is never carried over).
      const bytes = readFileSync(this.path).subarray(0, this.size);
      const kept: Buffer[] = [];
      let dropped = 0;
      let oldest: number | null = null;
      for (let start = 0; start < bytes.length; ) {
        const nl = bytes.indexOf(0x0a, start);
        const end = nl < 0 ? bytes.length : nl + 1;
        // Lines start with {"iteration":N, (append writes that key first); others are kept as they are.
        const m = /^\{"iteration":(\d+),/.exec(bytes.toString("utf8", start, Math.min(end, start + 40)));
        const it = m ? Number(m[1]) : null;
        if (it !== null && it < keepFrom) dropped++;
        else {
          kept.push(bytes.subarray(start, end));
          if (it !== null) oldest = Math.min(oldest ?? it, it);
        }
        start = end;
      }
      const body = Buffer.concat(kept);
      const fd = openSync(tmp, "w");
      try {
        writeSync(fd, body);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (this.fd !== null) closeSync(this.fd);
      this.fd = null;
      renameSync(tmp, this.path);
      const dir = openSync(dirname(this.path), "r");
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
      this.size = body.length;
      this.oldest = oldest;
      this.log.info({ path: this.path, dropped, keptFrom: keepFrom }, "commit log compacted");
      return dropped;
    } catch (err) {
      rmSync(tmp, { force: true });
      this.log.warn({ path: this.path, err }, "commit log compaction failed; keeping the whole log");
      return 0;
    }
  }

  /** Makes the file durable and closes it. */
  async close(): Promise<void> {
    await this.sync();
    await this.syncing;
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  private openForAppend(): number {
    const fd = openSync(this.path, "a");
    // Reopened after a failed write: the line it left half-written is cut before appending after it.
    if (this.tornAt !== null) ftruncateSync(fd, this.tornAt);
    this.tornAt = null;
    this.size = fstatSync(fd).size;
    return fd;
  }

  private fail(err: unknown, iteration: number | null): void {
    this.failed = true;
    // Only an open file has a known length; a file that never opened has nothing torn.
    if (this.fd !== null) this.tornAt = this.size;
    const code = (err as NodeJS.ErrnoException).code;
    this.log.error(
      { path: this.path, iteration, errno: code ?? null, err },
      code === "ENOSPC" ? "commit log write failed: disk full; not logging until the next checkpoint" : "commit log write failed; not logging until the next checkpoint",
    );
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // Already unusable.
      }
      this.fd = null;
    }
  }
}
