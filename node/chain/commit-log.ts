/**
 * `<run dir>/commits.jsonl`: one line per applied commit (authors, join timestamps, payloads, the
 * chain hashes), enough to replay the run in one process and to serve the chain after a restart.
 * A later line for an iteration supersedes an earlier one (a fork switch).
 */
import { createWriteStream, existsSync, readFileSync, type WriteStream } from "node:fs";
import { fromHex, toHex } from "../../protocol/bytes.js";
import { CHAIN_KEEP, type Commit } from "./commit.js";

export class CommitLogFile {
  private out?: WriteStream;

  constructor(readonly path: string) {}

  /** Appends an applied commit (opening the file on first use). */
  append(commit: Commit, hash: Uint8Array): void {
    const line = JSON.stringify({
      iteration: commit.iteration,
      hash: toHex(hash),
      prevHash: toHex(commit.prevHash),
      checksum: toHex(commit.checksum),
      rank: commit.rank,
      entries: commit.entries.map((e) => ({
        author: e.author.id,
        joinedAt: e.author.joinedAt,
        payload: toHex(e.payload),
      })),
    });
    this.out ??= createWriteStream(this.path, { flags: "a" });
    this.out.write(`${line}\n`);
  }

  /** The commits for iterations before `head`, the last word for each, in order. */
  read(head: number): Commit[] {
    if (!existsSync(this.path)) return [];
    const byIteration = new Map<number, Commit>();
    for (const text of readFileSync(this.path, "utf8").split("\n")) {
      if (!text) continue;
      try {
        const l = JSON.parse(text) as {
          iteration: number;
          prevHash?: string;
          checksum: string;
          rank: number;
          entries: { author: string; joinedAt: number; payload: string }[];
        };
        if (l.iteration >= head || l.prevHash === undefined) continue;
        byIteration.set(l.iteration, {
          iteration: l.iteration,
          prevHash: fromHex(l.prevHash),
          checksum: fromHex(l.checksum),
          rank: l.rank,
          entries: l.entries.map((e) => ({
            author: { id: e.author, joinedAt: e.joinedAt },
            payload: fromHex(e.payload),
          })),
        });
      } catch {
        // A torn last line after a crash: skip it.
      }
    }
    return [...byIteration.values()].sort((a, b) => a.iteration - b.iteration).slice(-CHAIN_KEEP);
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    return new Promise<void>((r) => (this.out ? this.out.end(r) : r()));
  }
}
