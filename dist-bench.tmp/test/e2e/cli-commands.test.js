/**
 * init, id, export and eval as real processes on a real (tiny) run, and the failure conventions
 * (message, exit code, nothing written) for the checks that need a real process: a port in use,
 * an unusable data directory.
 */
import assert from "node:assert/strict";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "./cli-process.js";
import * as tf from "@tensorflow/tfjs";
import { loadCheckpoint } from "../../node/store/checkpoint.js";
import { evaluateCheckpoint } from "../../node/offline/model-export.js";
import { runIdOf } from "../../protocol/run-spec.js";
import { useBackend } from "../../training/engine.js";
import { fileLoadHandler } from "../../node/offline/layers-files.js";
import { toTensors } from "../../training/params.js";
import { openRun } from "../../training/run-context.js";
const dirs = [];
after(async () => {
    for (const d of dirs)
        await rm(d, { recursive: true, force: true });
});
const lastJson = (out) => JSON.parse(out.trim().split("\n").pop() ?? "");
async function tempDir() {
    const d = await mkdtemp(join(tmpdir(), "seedswarm-cmd-"));
    dirs.push(d);
    return d;
}
describe("init, train --spec, export, eval, id (real processes, tiny run)", () => {
    let work;
    let specFile;
    let runId;
    let trained;
    before(async () => {
        work = await tempDir();
        specFile = join(work, "run.json");
        const init = await runCli(["init", "--preset", "tiny-spsa", "--iterations", "60"], { cwd: work });
        assert.equal(init.code, 0, init.stderr);
        const r = lastJson(init.stdout);
        runId = r.run;
        assert.equal(r.file, "run.json");
        const train = await runCli([
            "train", "--spec", specFile, "--data-dir", join(work, "data"), "--backend", "wasm", "--log-level", "warn",
        ]);
        assert.equal(train.code, 0, train.stderr);
        trained = lastJson(train.stdout);
    });
    it("init writes the preset as a RunSpec whose runId the run then has; refuses to overwrite without --force", async () => {
        const spec = JSON.parse(readFileSync(specFile, "utf8"));
        assert.equal(spec.name, "tiny-spsa");
        assert.equal(spec.iterations, 60);
        assert.equal(runIdOf(spec), runId);
        assert.equal(trained.run, runId, "train --spec run.json trains the run init printed");
        const before = readFileSync(specFile, "utf8");
        const [again, underFile] = await Promise.all([
            runCli(["init", "--preset", "mnist-mlp-spsa"], { cwd: work }),
            runCli(["init", "-o", join(specFile, "x.json")]),
        ]);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /✖ run spec file run\.json exists \(--force overwrites it\) \[FILE_EXISTS\]/);
        assert.equal(readFileSync(specFile, "utf8"), before, "left untouched");
        assert.equal(underFile.code, 1);
        assert.match(underFile.stderr, /✖ directory of run spec file .*run\.json: is not a directory \[DIR_UNUSABLE\]/);
        const forced = await runCli(["init", "--preset", "mnist-mlp-spsa", "-o", join(work, "new", "run.json"), "--force"]);
        assert.equal(forced.code, 0, forced.stderr);
        assert.equal(JSON.parse(readFileSync(join(work, "new", "run.json"), "utf8")).name, "mnist-mlp-spsa");
    });
    it("export writes a layers model that tf.loadLayersModel loads and that predicts what the checkpoint does", async () => {
        const out = join(work, "model");
        const data = join(work, "data");
        const exp = await runCli(["export", "--preset", "tiny-spsa", "--iterations", "60", "--data-dir", data, "-o", out]);
        assert.equal(exp.code, 0, exp.stderr);
        const r = lastJson(exp.stdout);
        assert.equal(r.run, runId);
        assert.equal(r.iteration, 60);
        assert.equal(r.checksum, trained.checksum);
        assert.deepEqual(readdirSync(out).sort(), ["model.json", "seedswarm.json", "weights.bin"]);
        await useBackend("wasm");
        const cp = await loadCheckpoint(join(data, "runs", runId.slice(0, 16), "checkpoint.ssck"));
        const run = await openRun(cp.spec);
        const loaded = await tf.loadLayersModel(fileLoadHandler(join(out, "model.json")));
        const n = 256;
        const x = tf.tensor4d(run.dataset.test.x.subarray(0, n * 16), [n, 16, 1, 1]);
        const weights = toTensors(run.model.layout, cp.weights);
        const ours = tf.tidy(() => tf.softmax(run.model.forward(weights, x)).arraySync());
        const theirs = tf.tidy(() => loaded.predict(x).arraySync());
        let maxDiff = 0;
        for (let i = 0; i < n; i++) {
            for (let j = 0; j < 4; j++)
                maxDiff = Math.max(maxDiff, Math.abs(ours[i][j] - theirs[i][j]));
        }
        assert.ok(maxDiff < 1e-5, `probabilities differ by ${maxDiff}`);
        const argmax = (rows) => rows.map((p) => p.indexOf(Math.max(...p)));
        assert.deepEqual(argmax(theirs), argmax(ours));
        assert.ok(new Set(argmax(ours)).size > 1, "a trained model does not answer one class");
        tf.dispose([x, ...weights]);
        loaded.dispose();
        const checkpoint = join(data, "runs", runId.slice(0, 16), "checkpoint.ssck");
        const other = join(work, "other");
        mkdirSync(other);
        writeFileSync(join(other, "notes.txt"), "mine");
        const [again, refuse] = await Promise.all([
            runCli(["export", "--checkpoint", checkpoint, "-o", out]),
            runCli(["export", "--checkpoint", checkpoint, "-o", other, "--force"]),
        ]);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /export directory .*model exists \(--force replaces it\)/);
        assert.equal(refuse.code, 1);
        assert.match(refuse.stderr, /holds other files/);
        assert.deepEqual(readdirSync(other), ["notes.txt"], "--force never deletes what is not an export");
    });
    it("eval gives the same test accuracy for the checkpoint, its export and the end of training", async () => {
        const data = join(work, "data");
        const [cp, ex] = await Promise.all([
            runCli(["eval", "--preset", "tiny-spsa", "--iterations", "60", "--data-dir", data, "--backend", "wasm"]),
            runCli(["eval", "--model", join(work, "model"), "--limit", "200", "--backend", "wasm"]),
        ]);
        assert.equal(cp.code, 0, cp.stderr);
        const a = lastJson(cp.stdout);
        assert.equal(a.run, runId);
        assert.equal(a.iteration, 60);
        assert.equal(a.examples, 256);
        assert.equal(a.accuracy, trained.testAccuracy);
        assert.ok(a.accuracy > 0.7, `accuracy ${a.accuracy}`);
        assert.equal(ex.code, 0, ex.stderr);
        const b = lastJson(ex.stdout);
        assert.equal(b.run, runId, "the export records its run");
        assert.equal(b.iteration, 60);
        assert.equal(b.examples, 200);
        // The same figures on the first 200 examples, from the checkpoint in-process.
        await useBackend("wasm");
        const ours = await evaluateCheckpoint(join(data, "runs", runId.slice(0, 16), "checkpoint.ssck"), 200);
        assert.equal(b.accuracy, ours.accuracy);
        assert.ok(Math.abs(b.loss - ours.loss) < 1e-4, `loss ${b.loss} vs ${ours.loss}`);
    });
    it("id shows nothing until --create, then the same peer id every time", async () => {
        const d = join(work, "node-a");
        const none = await runCli(["id", "--data-dir", d]);
        assert.equal(none.code, 1);
        assert.match(none.stderr, /no identity in .*node-a.*--create makes one/);
        assert.equal(existsSync(d), false, "id without --create writes nothing");
        const made = await runCli(["id", "--create", "--data-dir", d]);
        assert.equal(made.code, 0, made.stderr);
        const m = lastJson(made.stdout);
        assert.match(m.peerId, /^12D3KooW/);
        assert.equal(m.created, true);
        assert.equal(statSync(join(d, "identity.key")).mode & 0o777, 0o600);
        const shown = lastJson((await runCli(["id"], { env: { SEEDSWARM_DATA_DIR: d } })).stdout);
        assert.equal(shown.peerId, m.peerId);
        assert.equal(shown.created, false);
    });
});
describe("failures of a real process: one ✖ line, an exit code, nothing written", () => {
    let server;
    let port;
    before(async () => {
        server = createServer();
        await new Promise((r) => server.listen(0, "127.0.0.1", r));
        port = server.address().port;
    });
    after(() => server.close());
    it("a port in use: `port N is in use`, exit 1, no data dir", async () => {
        const d = join(await tempDir(), "data");
        const r = await runCli(["node", "--preset", "tiny-spsa", "--no-mdns", "--listen", `/ip4/127.0.0.1/tcp/${port}`, "--data-dir", d]);
        assert.equal(r.code, 1);
        assert.match(r.stderr, new RegExp(`✖ port ${port} is in use \\(listen address /ip4/127.0.0.1/tcp/${port}\\) \\[PORT_IN_USE\\]`));
        assert.equal(existsSync(d), false);
    });
    it("usage errors exit 2, from a flag or a variable", async () => {
        const [flag, env] = await Promise.all([
            runCli(["node", "--listen", "/ip4/127.0.0.1/tcp/x"]),
            runCli(["node"], { env: { SEEDSWARM_LISTEN: "/ip4/127.0.0.1/tcp/x" } }),
        ]);
        assert.equal(flag.code, 2);
        assert.match(flag.stderr, /^✖ option '--listen <multiaddr>' argument '\/ip4\/127\.0\.0\.1\/tcp\/x' is invalid/);
        assert.equal(env.code, 2);
        assert.match(env.stderr, /^✖ environment variable SEEDSWARM_LISTEN: not a multiaddr/);
    });
    it("an unusable data dir: under a file, or not writable; exit 1 and nothing created", async () => {
        const base = await tempDir();
        const file = join(base, "file");
        writeFileSync(file, "x");
        const under = await runCli(["node", "--preset", "tiny-spsa", "--no-mdns", "--data-dir", join(file, "data")]);
        assert.equal(under.code, 1);
        assert.match(under.stderr, /✖ data dir .*file\/data: .*file is not a directory \[DIR_UNUSABLE\]/);
        // Permissions do not bind root: run the CLI as `nobody` there.
        const asRoot = process.getuid?.() === 0;
        const locked = join(base, "locked");
        mkdirSync(locked);
        chmodSync(locked, 0o555);
        if (asRoot)
            chmodSync(base, 0o755);
        const opts = asRoot ? { uid: 65534 } : {};
        const unreadable = join(base, "unreadable");
        mkdirSync(unreadable);
        if (asRoot)
            chownSync(unreadable, 0, 0);
        chmodSync(unreadable, 0o300);
        const [ro, nr] = await Promise.all([
            runCli(["node", "--preset", "tiny-spsa", "--no-mdns", "--data-dir", join(locked, "data")], opts),
            runCli(["train", "--preset", "tiny-spsa", "--data-dir", unreadable], opts),
        ]);
        assert.equal(ro.code, 1, ro.stderr);
        assert.match(ro.stderr, /✖ data dir .*locked\/data: cannot create it in .*locked: permission denied \(EACCES\)/);
        assert.equal(nr.code, 1, nr.stderr);
        assert.match(nr.stderr, /✖ data dir .*unreadable: cannot read and write it: permission denied/);
        assert.deepEqual(readdirSync(locked), []);
    });
});
//# sourceMappingURL=cli-commands.test.js.map