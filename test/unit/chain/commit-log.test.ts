import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { chained, type ChainedCommit } from "../../../node/chain/commit.js";
import { CommitLogFile } from "../../../node/chain/commit-log.js";
import { signedCommit, testKeys } from "../../helpers/chain-keys.js";

const RUN = "cd".repeat(32);
const [a, b] = await testKeys(2);
const commit = (iteration: number, rank = 0): ChainedCommit =>
  chained(
    signedCommit(
      a,
      { runId: RUN, iteration, prevHash: new Uint8Array(32).fill(iteration), checksum: new Uint8Array(32).fill(100 + iteration), rank },
      [
        { key: a, payload: Uint8Array.of(iteration, 1) },
        { key: b, payload: Uint8Array.of(iteration, 2) },
      ],
    ),
  );

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
    const made = [0, 1, 2, 3].map((i) => commit(i));
    for (const c of made) log.append(c);
    await log.close();
    const read = log.read(3);
    assert.deepEqual(
      read.map((c) => c.commit.iteration),
      [0, 1, 2],
    );
    // The exact signed bytes come back (and pass the checks again).
    assert.deepEqual(read[1].encoded, made[1].encoded);
    assert.deepEqual(read[1].commit, made[1].commit);
  });

  it("a later line for an iteration supersedes an earlier one (a fork switch)", async () => {
    const log = await fresh();
    log.append(commit(0));
    log.append(commit(1, 2));
    log.append(commit(1, 0));
    await log.close();
    assert.deepEqual(
      log.read(10).map((c) => [c.commit.iteration, c.commit.rank]),
      [
        [0, 0],
        [1, 0],
      ],
    );
  });

  it("skips a line whose signed bytes were altered", async () => {
    const log = await fresh();
    log.append(commit(0));
    await log.close();
    const line = JSON.parse(readFileSync(log.path, "utf8").trim()) as { iteration: number; encoded: string };
    // Flip one byte near the end (inside the proposer's signature).
    const hex = line.encoded;
    const at = hex.length - 4;
    const bad = { ...line, iteration: 1, encoded: hex.slice(0, at) + (hex[at] === "0" ? "1" : "0") + hex.slice(at + 1) };
    appendFileSync(log.path, `${JSON.stringify(bad)}\n`);
    assert.deepEqual(
      log.read(10).map((c) => c.commit.iteration),
      [0],
    );
  });

  it("skips a torn last line; a missing file reads as empty and is not created by reading", async () => {
    const log = await fresh();
    assert.deepEqual(log.read(10), []);
    assert.equal(existsSync(log.path), false);
    log.append(commit(0));
    await log.close();
    appendFileSync(log.path, '{"iteration":1,"prevHash":"ab');
    assert.deepEqual(
      log.read(10).map((c) => c.commit.iteration),
      [0],
    );
  });
});
