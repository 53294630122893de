import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "./cli-process.js";
const dirs = [];
after(async () => {
    for (const d of dirs)
        await rm(d, { recursive: true, force: true });
});
describe("seedswarm train (real process)", () => {
    it("trains the tiny preset, prints accuracy and checksum, and resumes as already done", async () => {
        const dir = await mkdtemp(join(tmpdir(), "seedswarm-cli-"));
        dirs.push(dir);
        const args = [
            "train",
            "--preset",
            "tiny-spsa",
            "--authors",
            "2",
            "--eval-every",
            "50",
            "--data-dir",
            dir,
            "--backend",
            "wasm",
        ];
        const first = await runCli(args);
        assert.equal(first.code, 0, first.stderr);
        const lines = first.stdout.trim().split("\n");
        const logs = lines.slice(0, -1).map((l) => JSON.parse(l));
        assert.ok(logs.some((l) => l.msg === "backend in use" && l.backend === "wasm"), "logs the backend");
        assert.ok(logs.some((l) => l.msg === "progress" && typeof l.testAccuracy === "number"), "logs progress with accuracy");
        const result = JSON.parse(lines[lines.length - 1]);
        assert.equal(result.iteration, 200);
        assert.ok(result.testAccuracy > 0.85, `accuracy ${result.testAccuracy}`);
        assert.match(result.checksum, /^[0-9a-f]{64}$/);
        const again = await runCli(args);
        assert.equal(again.code, 0, again.stderr);
        const res2 = JSON.parse(again.stdout.trim().split("\n").pop() ?? "");
        assert.equal(res2.checksum, result.checksum);
    });
    it("SIGINT stops after the current iteration with a checkpoint and exit 0; the rerun resumes", async () => {
        const dir = await mkdtemp(join(tmpdir(), "seedswarm-cli-"));
        dirs.push(dir);
        const args = [
            "train",
            "--preset",
            "tiny-spsa",
            "--iterations",
            "100000",
            "--eval-every",
            "50",
            "--data-dir",
            dir,
            "--backend",
            "wasm",
        ];
        let sent = false;
        const run = await runCli(args, {
            onLine: (line, kill) => {
                if (!sent && JSON.parse(line).msg === "progress") {
                    sent = true;
                    kill("SIGINT");
                }
            },
        });
        assert.equal(run.code, 0, run.stderr);
        const logs = run.stdout
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l));
        const stop = logs.find((l) => l.msg === "stopped early; checkpoint written");
        assert.ok(stop, "reports the early stop");
        assert.ok(stop.iteration >= 50 && stop.iteration < 100000);
        assert.ok(existsSync(stop.checkpoint));
        const resumed = await runCli([...args, "--stop-at", String(stop.iteration + 5)]);
        assert.equal(resumed.code, 0, resumed.stderr);
        const rlogs = resumed.stdout
            .trim()
            .split("\n")
            .slice(0, -1)
            .map((l) => JSON.parse(l));
        assert.equal(rlogs.find((l) => l.msg === "resumed from checkpoint")?.iteration, stop.iteration);
        assert.equal(JSON.parse(resumed.stdout.trim().split("\n").pop() ?? "").iteration, stop.iteration + 5);
    });
    it("rejects bad input with a clear message and a non-zero exit, writing nothing", async () => {
        const dir = join(tmpdir(), `seedswarm-never-${process.pid}`);
        const bad = await runCli(["train", "--preset", "nope", "--data-dir", dir]);
        assert.notEqual(bad.code, 0);
        assert.match(bad.stderr, /nope/);
        const badInt = await runCli(["train", "--authors", "zero", "--data-dir", dir]);
        assert.notEqual(badInt.code, 0);
        assert.match(badInt.stderr, /--authors/);
        const missing = await runCli(["train", "--spec", "/nonexistent/spec.json", "--data-dir", dir]);
        assert.equal(missing.code, 1);
        assert.match(missing.stderr, /✖ cannot read run spec \/nonexistent\/spec.json: ENOENT/);
        const backend = await runCli([
            "train",
            "--preset",
            "tiny-spsa",
            "--backend",
            "tensorflow-gpu",
            "--data-dir",
            dir,
        ]);
        assert.equal(backend.code, 1);
        assert.match(backend.stderr, /✖ backend "tensorflow-gpu" is not available.*@tensorflow\/tfjs-node-gpu/);
        assert.equal(existsSync(dir), false, "nothing written for failed commands");
    });
});
//# sourceMappingURL=cli-train.test.js.map