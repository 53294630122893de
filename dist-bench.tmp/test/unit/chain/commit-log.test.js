import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pino } from "pino";
import { chained } from "../../../node/chain/commit.js";
import { CommitLogFile } from "../../../node/chain/commit-log.js";
import { signedCommit, testKeys } from "../../helpers/chain-keys.js";
const RUN = "cd".repeat(32);
const [a, b] = await testKeys(2);
/** A real signed commit (the log checks signatures on reading back). */
const commit = (iteration, rank = 0) => chained(signedCommit(a, { runId: RUN, iteration, prevHash: new Uint8Array(32).fill(iteration), checksum: new Uint8Array(32).fill(100 + iteration), rank }, [
    { key: a, payload: Uint8Array.of(iteration, 1) },
    { key: b, payload: Uint8Array.of(iteration, 2) },
]));
/** A logger that keeps its lines, to assert what the log file reported. */
function recordingLogger() {
    const lines = [];
    const log = pino({ level: "info" }, { write: (s) => void lines.push(JSON.parse(s)) });
    return { log, lines };
}
describe("commit log file", () => {
    const dirs = [];
    const fresh = async () => {
        const dir = await mkdtemp(join(tmpdir(), "commit-log-"));
        dirs.push(dir);
        const rec = recordingLogger();
        return { file: new CommitLogFile(join(dir, "commits.jsonl"), rec.log), lines: rec.lines };
    };
    after(async () => {
        for (const d of dirs)
            await rm(d, { recursive: true, force: true });
    });
    it("reads back what was appended, with the logged hashes, in iteration order", async () => {
        const { file } = await fresh();
        for (const i of [0, 1, 2, 3])
            file.append(commit(i));
        assert.equal(await file.sync(), true);
        await file.close();
        const read = file.read();
        assert.deepEqual(read.map((c) => c.commit.iteration), [0, 1, 2, 3]);
        // The exact signed bytes come back (and pass the checks again), with their hash.
        assert.deepEqual(read[1].encoded, commit(1).encoded);
        assert.deepEqual(read[1].commit, commit(1).commit);
        assert.deepEqual(read[1].hash, commit(1).hash);
    });
    it("a later line for an iteration supersedes an earlier one (a fork switch)", async () => {
        const { file } = await fresh();
        file.append(commit(0));
        file.append(commit(1, 2));
        file.append(commit(1, 0));
        await file.close();
        assert.deepEqual(file.read().map((c) => [c.commit.iteration, c.commit.rank]), [
            [0, 0],
            [1, 0],
        ]);
    });
    it("a torn last record is cut off the file with a log line; appends continue after the good lines", async () => {
        const { file, lines } = await fresh();
        assert.deepEqual(file.read(), []);
        assert.equal(existsSync(file.path), false, "reading does not create the file");
        file.append(commit(0));
        await file.close();
        const good = statSync(file.path).size;
        appendFileSync(file.path, '{"iteration":1,"prevHash":"ab');
        assert.deepEqual(file.read().map((c) => c.commit.iteration), [0]);
        assert.equal(statSync(file.path).size, good, "the torn bytes are gone from the file");
        const torn = lines.find((l) => l.msg === "commit log: torn last record truncated");
        assert.ok(torn, "the truncation is logged");
        assert.equal(torn.bytes, 29);
        file.append(commit(1));
        await file.close();
        assert.deepEqual(file.read().map((c) => c.commit.iteration), [0, 1]);
        assert.equal(readFileSync(file.path, "utf8").split("\n").length, 3, "two whole lines and the final newline");
    });
    it("a whole last line that does not parse (zeros after a power cut) is torn too; a bad middle line is skipped and counted", async () => {
        const { file, lines } = await fresh();
        file.append(commit(0));
        await file.close();
        appendFileSync(file.path, "garbage\n");
        file.append(commit(1));
        await file.close();
        appendFileSync(file.path, `${"\u0000".repeat(40)}\n`);
        assert.deepEqual(file.read().map((c) => c.commit.iteration), [0, 1]);
        assert.ok(lines.some((l) => l.msg === "commit log: torn last record truncated" && l.bytes === 41));
        assert.ok(lines.some((l) => l.msg === "commit log: unreadable lines skipped" && l.lines === 1));
    });
    it("skips a line whose signed bytes were altered", async () => {
        const { file } = await fresh();
        file.append(commit(0));
        file.append(commit(1));
        await file.close();
        const [l0, l1] = readFileSync(file.path, "utf8").trim().split("\n");
        const line = JSON.parse(l1);
        // Flip one byte near the end (inside the proposer's signature); a good line follows it.
        const at = line.encoded.length - 4;
        const bad = { ...line, encoded: line.encoded.slice(0, at) + (line.encoded[at] === "0" ? "1" : "0") + line.encoded.slice(at + 1) };
        writeFileSync(file.path, `${l0}\n${JSON.stringify(bad)}\n${l0}\n`);
        assert.deepEqual(file.read().map((c) => c.commit.iteration), [0]);
    });
    it("compact drops the lines before keepFrom once there are minDrop of them, atomically; appends go on after it", async () => {
        const { file, lines } = await fresh();
        for (let i = 0; i < 10; i++)
            file.append(commit(i));
        assert.equal(await file.compact(3, 4), 0, "3 droppable lines < minDrop 4: left alone");
        assert.equal(await file.compact(6, 4), 6);
        assert.ok(lines.some((l) => l.msg === "commit log compacted" && l.dropped === 6));
        file.append(commit(10));
        await file.close();
        assert.deepEqual(file.read().map((c) => c.commit.iteration), [6, 7, 8, 9, 10]);
        assert.equal(existsSync(`${file.path}.tmp-${process.pid}-0`), false, "no temp file left");
        // Read back, the file knows where it starts: nothing more to drop below 6.
        assert.equal(await file.compact(8, 4), 0);
        assert.equal(await file.compact(10, 4), 4);
        await file.close();
        assert.deepEqual(file.read().map((c) => c.commit.iteration), [10]);
    });
});
//# sourceMappingURL=commit-log.test.js.map