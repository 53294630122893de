import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { removeStaleTemps, writeFileAtomic } from "../../../node/store/atomic-file.js";
const dirs = [];
after(async () => {
    for (const d of dirs)
        await rm(d, { recursive: true, force: true });
});
describe("atomic files", () => {
    it("replaces a file, keeping the replaced one when asked", async () => {
        const dir = await mkdtemp(join(tmpdir(), "atomic-"));
        dirs.push(dir);
        const path = join(dir, "f");
        await writeFileAtomic(path, Buffer.from("one"), { previous: `${path}.prev` });
        assert.ok(!existsSync(`${path}.prev`), "nothing to keep the first time");
        await writeFileAtomic(path, [Buffer.from("tw"), () => Buffer.from("o")], { previous: `${path}.prev` });
        assert.equal(await readFile(path, "utf8"), "two");
        assert.equal(await readFile(`${path}.prev`, "utf8"), "one");
        assert.deepEqual(readdirSync(dir).sort(), ["f", "f.prev"], "no temp file left");
        // The last file moved aside (corrupt): the next write keeps the previous one, never deletes it.
        await rm(path);
        await writeFileAtomic(path, Buffer.from("three"), { previous: `${path}.prev` });
        assert.equal(await readFile(`${path}.prev`, "utf8"), "one");
    });
    it("stale temp files of dead writers and of this pid go; a live process's and other files stay", async () => {
        const dir = await mkdtemp(join(tmpdir(), "atomic-"));
        dirs.push(dir);
        const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
        assert.ok(dead);
        const names = {
            dead: `checkpoint.ssck.tmp-${dead}-1`,
            ours: `checkpoint.ssck.tmp-${process.pid}-7`,
            live: `checkpoint.ssck.tmp-${process.ppid}-2`,
            other: "checkpoint.ssck",
            lookalike: "notes.tmp-abc",
        };
        for (const n of Object.values(names))
            await writeFile(join(dir, n), "x");
        const removed = await removeStaleTemps(dir);
        assert.deepEqual(removed.sort(), [names.dead, names.ours].sort());
        assert.deepEqual(readdirSync(dir).sort(), [names.live, names.other, names.lookalike].sort());
        assert.deepEqual(await removeStaleTemps(join(dir, "missing")), [], "a missing folder has nothing stale");
    });
});
//# sourceMappingURL=atomic-file.test.js.map