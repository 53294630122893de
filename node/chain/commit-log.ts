/**
 * `<run dir>/commits.jsonl`: one line per applied commit (authors, join timestamps, payloads, the
 * chain hashes, and the signed bytes as they were applied), enough to replay the run in one
 * process and to serve the chain after a restart. A later line for an iteration supersedes an
 * earlier one (a fork switch). Read back, every commit is checked again like a received one: the
 * file is ours, but a commit we serve must carry its signatures.
 */
import { createWriteStream, existsSync, readFileSync, type WriteStream } from "node:fs";
import { fromHex, toHex } from "../../protocol/bytes.js";
import { CHAIN_KEEP, type ChainedCommit, type EncodedCommit } from "./commit.js";
import { commitFromBytes } from "./commit-wire.js";

export class CommitLogFile {
  private out?: WriteStream;

  constructor(readonly path: string) {}

  /** Appends an applied commit (opening the file on first use). */
  append(c: ChainedCommit): void {
    const { commit } = c;
    const line = JSON.stringify({
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
      encoded: toHex(c.encoded),
    });
    this.out ??= createWriteStream(this.path, { flags: "a" });
    this.out.write(`${line}\n`);
  }

  /**
   * The commits for iterations before `head`, the last word for each, in order. Lines without
   * signed bytes (written before commits were signed) or that fail the checks are skipped.
   */
  read(head: number): EncodedCommit[] {
    if (!existsSync(this.path)) return [];
    const byIteration = new Map<number, EncodedCommit>();
    for (const text of readFileSync(this.path, "utf8").split("\n")) {
      if (!text) continue;
      try {
        const l = JSON.parse(text) as { iteration: number; encoded?: string };
        if (l.iteration >= head || l.encoded === undefined) continue;
        const c = commitFromBytes(fromHex(l.encoded));
        if (c.commit.iteration === l.iteration) byIteration.set(l.iteration, c);
      } catch {
        // A torn last line after a crash, or an unsigned line: skip it.
      }
    }
    return [...byIteration.values()].sort((a, b) => a.commit.iteration - b.commit.iteration).slice(-CHAIN_KEEP);
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    return new Promise<void>((r) => (this.out ? this.out.end(r) : r()));
  }
}
