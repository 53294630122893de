/**
 * Resuming from disk with a real tiny-spsa run: a checkpoint, then the commit log replayed past
 * it with every check (chain, logged hash, proposer's checksum) made as it is read.
 */
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { pino } from "pino";
import { chained, type Commit, ZERO_HASH } from "../../../node/chain/commit.js";
import { CommitLogFile } from "../../../node/chain/commit-log.js";
import { commitToBytes } from "../../../node/chain/commit-wire.js";
import { saveCheckpoint } from "../../../node/store/checkpoint.js";
import { resumeFromDisk } from "../../../node/store/resume.js";
import { fromHex, toHex } from "../../../protocol/bytes.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { initialReplica, openRun, type RunContext } from "../../../training/run-context.js";

const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const silent = pino({ level: "silent" });
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A 12-commit chain of two authors, the checksum after each iteration, the checkpoint after 5. */
interface Fixture {
  run: RunContext;
  commits: { commit: Commit; hash: Uint8Array }[];
  sums: string[];
}

let fx: Fixture;
before(async () => {
  await useBackend("wasm");
  const run = await openRun(spec);
  const authors = await Promise.all(
    [1, 2].map(async (i) => ({ id: peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString(), joinedAt: i })),
  );
  const replica = initialReplica(run);
  const commits: Fixture["commits"] = [];
  const sums = [replica.checksum()];
  let prevHash: Uint8Array = ZERO_HASH;
  for (let t = 0; t < 12; t++) {
    const entries = authors.map((author, a) => ({
      author,
      payload: Uint8Array.from({ length: run.algorithm.maxPayloadBytes }, (_, k) => ((t * 7 + a * 3 + k) % 40) + 1),
    }));
    replica.applyIteration(run.algorithm, entries);
    const commit: Commit = { iteration: t, prevHash, entries, checksum: fromHex(replica.checksum()), rank: 0 };
    const { hash } = chained({ commit, encoded: commitToBytes(run.runId, commit) });
    commits.push({ commit, hash });
    sums.push(replica.checksum());
    prevHash = hash;
  }
  replica.dispose();
  fx = { run, commits, sums };
});

/** A data dir with the checkpoint after `checkpointAt` iterations (null: none) and the log of `logged`. */
async function disk(checkpointAt: number | null, logged: Fixture["commits"]) {
  const dir = await mkdtemp(join(tmpdir(), "resume-"));
  dirs.push(dir);
  const checkpointPath = join(dir, "checkpoint.ssck");
  if (checkpointAt !== null) {
    const r = initialReplica(fx.run);
    for (const c of fx.commits.slice(0, checkpointAt)) r.applyIteration(fx.run.algorithm, c.commit.entries);
    const last = fx.commits[checkpointAt - 1];
    await saveCheckpoint(checkpointPath, spec, checkpointAt, r.weights, {
      hash: toHex(last.hash),
      authors: last.commit.entries.map((e) => e.author.id),
      joinedAt: 1,
    });
    r.dispose();
  }
  const commitLog = new CommitLogFile(join(dir, "commits.jsonl"), silent);
  for (const c of logged) commitLog.append(c.commit, c.hash);
  await commitLog.close();
  const resume = async () => {
    const replica = initialReplica(fx.run);
    const resumed = await resumeFromDisk({ checkpointPath, tempDirs: [dir], commitLog, run: fx.run, replica, log: silent });
    const state = { iteration: replica.iteration, checksum: replica.checksum() };
    replica.dispose();
    return { resumed, ...state };
  };
  return { dir, commitLog, resume };
}

describe("resuming from disk", () => {
  it("a checkpoint at 5 and a log to 12: resumes at 12 with the chain's checksum, serving all 12 commits", async () => {
    const { resume } = await disk(5, fx.commits);
    const { resumed, iteration, checksum } = await resume();
    assert.equal(resumed.source, "checkpoint");
    assert.equal(resumed.baseIteration, 5);
    assert.equal(resumed.replayed, 7);
    assert.equal(resumed.replayStop, null);
    assert.equal(iteration, 12);
    assert.equal(checksum, fx.sums[12]);
    assert.deepEqual(resumed.chain.hash, fx.commits[11].hash);
    assert.deepEqual(resumed.commits.map((c) => c.commit.iteration), [...Array(12).keys()]);
  });

  it("no checkpoint: the log replays from the initial state", async () => {
    const { resume } = await disk(null, fx.commits.slice(0, 9));
    const { resumed, iteration, checksum } = await resume();
    assert.equal(resumed.source, "initial state");
    assert.equal(iteration, 9);
    assert.equal(checksum, fx.sums[9]);
  });

  it("a logged commit whose checksum is not what applying it gives ends the replay before it, state intact", async () => {
    const tampered = fx.commits.map((c) => ({ ...c }));
    tampered[8] = { ...tampered[8], commit: { ...tampered[8].commit, checksum: new Uint8Array(32).fill(9) } };
    // Its hash is the one its (tampered) bytes have, so only the checksum check can catch it.
    tampered[8].hash = chained({ commit: tampered[8].commit, encoded: commitToBytes(fx.run.runId, tampered[8].commit) }).hash;
    const { resume } = await disk(5, tampered);
    const { resumed, iteration, checksum } = await resume();
    assert.equal(iteration, 8);
    assert.equal(checksum, fx.sums[8]);
    assert.match(resumed.replayStop ?? "", /checksum after applying/);
    assert.deepEqual(resumed.chain.hash, fx.commits[7].hash);
  });

  it("a commit from another chain, or one whose bytes do not hash to the logged hash, ends the replay", async () => {
    const forked = [...fx.commits.slice(0, 10), { ...fx.commits[10], commit: { ...fx.commits[10].commit, prevHash: new Uint8Array(32).fill(1) } }];
    const a = await (await disk(5, forked)).resume();
    assert.equal(a.iteration, 10);
    assert.equal(a.resumed.replayStop, "commit does not chain onto the state");

    const edited = [...fx.commits.slice(0, 7), { ...fx.commits[7], hash: new Uint8Array(32).fill(2) }];
    const b = await (await disk(5, edited)).resume();
    assert.equal(b.iteration, 7);
    assert.equal(b.resumed.replayStop, "commit bytes do not hash to the logged hash");
    assert.equal(b.checksum, fx.sums[7]);
  });

  it("a torn last record and a corrupt checkpoint: previous checkpoint + the whole lines of the log", async () => {
    const { dir, resume } = await disk(5, fx.commits.slice(0, 10));
    // The checkpoint after 5 becomes the previous one; the last one (after 9) is corrupted.
    const r = initialReplica(fx.run);
    for (const c of fx.commits.slice(0, 9)) r.applyIteration(fx.run.algorithm, c.commit.entries);
    const cpPath = join(dir, "checkpoint.ssck");
    await saveCheckpoint(cpPath, spec, 9, r.weights, { hash: toHex(fx.commits[8].hash), authors: [], joinedAt: 1 });
    r.dispose();
    const bytes = readFileSync(cpPath);
    bytes[bytes.length - 3] ^= 0x10;
    writeFileSync(cpPath, bytes);
    appendFileSync(join(dir, "commits.jsonl"), '{"iteration":10,"hash":"00');
    writeFileSync(join(dir, `checkpoint.ssck.tmp-${process.pid}-99`), "half a checkpoint");
    const { resumed, iteration, checksum } = await resume();
    assert.equal(resumed.source, "previous checkpoint");
    assert.equal(resumed.baseIteration, 5);
    assert.equal(iteration, 10);
    assert.equal(checksum, fx.sums[10]);
    assert.ok(!readFileSync(join(dir, "commits.jsonl"), "utf8").includes('"hash":"00'), "torn record cut");
    assert.ok(!existsSync(join(dir, `checkpoint.ssck.tmp-${process.pid}-99`)), "stale temp file removed");
  });
});
