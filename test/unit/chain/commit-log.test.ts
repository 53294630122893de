import assert from "node:assert/strict";
import { appendFileSync, existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { Commit } from "../../../node/chain/commit.js";
import { CommitLogFile } from "../../../node/chain/commit-log.js";

const commit = (iteration: number, rank = 0): Commit => ({
  iteration,
  prevHash: new Uint8Array(32).fill(iteration),
  checksum: new Uint8Array(32).fill(100 + iteration),
  rank,
  entries: [
    { author: { id: "peer-a", joinedAt: 5 }, payload: Uint8Array.of(iteration, 1) },
    { author: { id: "peer-b", joinedAt: 6 }, payload: Uint8Array.of(iteration, 2) },
  ],
});
const hash = (i: number) => new Uint8Array(32).fill(200 + i);

describe("commit log file", () => {
  const dirs: string[] = [];
  const fresh = async () => {
    const dir = await mkdtemp(join(tmpdir(), "commit-log-"));
    dirs.push(dir);
    return new CommitLogFile(join(dir, "commits.jsonl"));
  };
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("reads back what was appended, before the head only, in iteration order", async () => {
    const log = await fresh();
    for (const i of [0, 1, 2, 3]) log.append(commit(i), hash(i));
    await log.close();
    const read = log.read(3);
    assert.deepEqual(
      read.map((c) => c.iteration),
      [0, 1, 2],
    );
    assert.deepEqual(read[1], commit(1));
  });

  it("a later line for an iteration supersedes an earlier one (a fork switch)", async () => {
    const log = await fresh();
    log.append(commit(0), hash(0));
    log.append(commit(1, 2), hash(1));
    log.append(commit(1, 0), hash(9));
    await log.close();
    assert.deepEqual(
      log.read(10).map((c) => [c.iteration, c.rank]),
      [
        [0, 0],
        [1, 0],
      ],
    );
  });

  it("skips a torn last line; a missing file reads as empty and is not created by reading", async () => {
    const log = await fresh();
    assert.deepEqual(log.read(10), []);
    assert.equal(existsSync(log.path), false);
    log.append(commit(0), hash(0));
    await log.close();
    appendFileSync(log.path, '{"iteration":1,"prevHash":"ab');
    assert.deepEqual(
      log.read(10).map((c) => c.iteration),
      [0],
    );
  });
});
