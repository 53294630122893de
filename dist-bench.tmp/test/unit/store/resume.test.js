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
import { pino } from "pino";
import { chained, ZERO_HASH } from "../../../node/chain/commit.js";
import { CommitLogFile } from "../../../node/chain/commit-log.js";
import { saveCheckpoint } from "../../../node/store/checkpoint.js";
import { resumeFromDisk } from "../../../node/store/resume.js";
import { fromHex, toHex } from "../../../protocol/bytes.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { imageTrainingRun, initialReplica, openRun } from "../../../training/run-context.js";
import { signedCommit, testKeys } from "../../helpers/chain-keys.js";
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const silent = pino({ level: "silent" });
const dirs = [];
after(async () => {
    for (const d of dirs)
        await rm(d, { recursive: true, force: true });
});
/** A commit signed by the fixture's proposer (a lying one too: only applying can catch that). */
const resign = (c, change) => chained(signedCommit(fx.proposer, { runId: fx.run.runId, iteration: c.commit.iteration, prevHash: change.prevHash ?? c.commit.prevHash, checksum: change.checksum ?? c.commit.checksum, rank: 0 }, c.commit.entries.map((e, i) => ({ key: fx.keys[i], payload: e.payload }))));
let fx;
before(async () => {
    await useBackend("wasm");
    const run = await openRun(spec);
    const keys = await testKeys(2);
    const replica = initialReplica(run);
    const commits = [];
    const sums = [replica.checksum()];
    let prevHash = ZERO_HASH;
    for (let t = 0; t < 12; t++) {
        const entries = keys.map((key, a) => ({
            key,
            payload: Uint8Array.from({ length: run.algorithm.maxPayloadBytes }, (_, k) => ((t * 7 + a * 3 + k) % 40) + 1),
        }));
        const fields = { runId: run.runId, iteration: t, prevHash, rank: 0 };
        // Signed once to learn the entries' timestamp order, applied, then signed with the checksum.
        replica.applyIteration(run.algorithm, signedCommit(keys[0], { ...fields, checksum: ZERO_HASH }, entries).commit.entries);
        const c = chained(signedCommit(keys[0], { ...fields, checksum: fromHex(replica.checksum()) }, entries));
        commits.push(c);
        sums.push(replica.checksum());
        prevHash = c.hash;
    }
    replica.dispose();
    fx = { run, commits, sums, proposer: keys[0], keys };
});
/** A data dir with the checkpoint after `checkpointAt` iterations (null: none) and the log of `logged`. */
async function disk(checkpointAt, logged) {
    const dir = await mkdtemp(join(tmpdir(), "resume-"));
    dirs.push(dir);
    const checkpointPath = join(dir, "checkpoint.ssck");
    if (checkpointAt !== null) {
        const r = initialReplica(fx.run);
        for (const c of fx.commits.slice(0, checkpointAt))
            r.applyIteration(fx.run.algorithm, c.commit.entries);
        const last = fx.commits[checkpointAt - 1];
        await saveCheckpoint(checkpointPath, spec, checkpointAt, r.weights, {
            hash: toHex(last.hash),
            authors: last.commit.entries.map((e) => e.author.id),
            joinedAt: 1,
        });
        r.dispose();
    }
    const commitLog = new CommitLogFile(join(dir, "commits.jsonl"), silent);
    for (const c of logged)
        commitLog.append(c);
    await commitLog.close();
    const resume = async () => {
        const replica = initialReplica(fx.run);
        const resumed = await resumeFromDisk({ checkpointPath, tempDirs: [dir], commitLog, run: imageTrainingRun(fx.run), replica, log: silent });
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
    it("no initial state (a node without weight files): none without a checkpoint, the checkpoint's state with one", async () => {
        const resumeBare = (d) => resumeFromDisk({ checkpointPath: join(d.dir, "checkpoint.ssck"), tempDirs: [d.dir], commitLog: d.commitLog, run: imageTrainingRun(fx.run), replica: null, log: silent });
        const none = await resumeBare(await disk(null, fx.commits.slice(0, 9)));
        assert.equal(none.source, "none");
        assert.equal(none.replica, null, "no state to replay the log onto");
        const some = await resumeBare(await disk(5, fx.commits.slice(0, 9)));
        assert.equal(some.source, "checkpoint");
        assert.equal(some.replica?.iteration, 9);
        assert.equal(some.replica?.checksum(), fx.sums[9]);
        some.replica?.dispose();
    });
    it("a logged commit whose checksum is not what applying it gives ends the replay before it, state intact", async () => {
        const tampered = [...fx.commits];
        // Validly signed by its proposer: only the checksum check can catch it.
        tampered[8] = resign(tampered[8], { checksum: new Uint8Array(32).fill(9) });
        const { resume } = await disk(5, tampered);
        const { resumed, iteration, checksum } = await resume();
        assert.equal(iteration, 8);
        assert.equal(checksum, fx.sums[8]);
        assert.match(resumed.replayStop ?? "", /checksum after applying/);
        assert.deepEqual(resumed.chain.hash, fx.commits[7].hash);
    });
    it("a commit from another chain ends the replay; a line whose bytes do not hash to its logged hash is dropped", async () => {
        const forked = [...fx.commits.slice(0, 10), resign(fx.commits[10], { prevHash: new Uint8Array(32).fill(1) })];
        const a = await (await disk(5, forked)).resume();
        assert.equal(a.iteration, 10);
        assert.equal(a.resumed.replayStop, "commit does not chain onto the state");
        const edited = [...fx.commits.slice(0, 7), { ...fx.commits[7], hash: new Uint8Array(32).fill(2) }];
        const b = await (await disk(5, edited)).resume();
        assert.equal(b.iteration, 7);
        // The log drops a line whose bytes do not hash to its logged hash when it reads it.
        assert.equal(b.resumed.replayStop, null);
        assert.equal(b.checksum, fx.sums[7]);
    });
    it("a torn last record and a corrupt checkpoint: previous checkpoint + the whole lines of the log", async () => {
        const { dir, resume } = await disk(5, fx.commits.slice(0, 10));
        // The checkpoint after 5 becomes the previous one; the last one (after 9) is corrupted.
        const r = initialReplica(fx.run);
        for (const c of fx.commits.slice(0, 9))
            r.applyIteration(fx.run.algorithm, c.commit.entries);
        const cpPath = join(dir, "checkpoint.ssck");
        await saveCheckpoint(cpPath, spec, 9, r.weights, { hash: toHex(fx.commits[8].hash), authors: [], joinedAt: 1 });
        r.dispose();
        const bytes = readFileSync(cpPath);
        bytes[bytes.length - 3] ^= 0x10;
        writeFileSync(cpPath, bytes);
        const whole = readFileSync(join(dir, "commits.jsonl"));
        appendFileSync(join(dir, "commits.jsonl"), '{"iteration":10,"hash":"00');
        writeFileSync(join(dir, `checkpoint.ssck.tmp-${process.pid}-99`), "half a checkpoint");
        const { resumed, iteration, checksum } = await resume();
        assert.equal(resumed.source, "previous checkpoint");
        assert.equal(resumed.baseIteration, 5);
        assert.equal(iteration, 10);
        assert.equal(checksum, fx.sums[10]);
        // Exactly the whole lines before the tear (a real hash may well start with 00).
        assert.deepEqual(readFileSync(join(dir, "commits.jsonl")), whole, "torn record cut");
        assert.ok(!existsSync(join(dir, `checkpoint.ssck.tmp-${process.pid}-99`)), "stale temp file removed");
    });
});
//# sourceMappingURL=resume.test.js.map