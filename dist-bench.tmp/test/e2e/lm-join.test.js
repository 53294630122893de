/**
 * Joining and leaving a transformer swarm with real `seedswarm node` processes (tiny-lm): a node
 * whose --model-dir holds only config.json and tokenizer.json takes the initial state from a peer
 * snapshot (at iteration 0, verified against the spec's weightsHash); it is stopped (SIGTERM,
 * checkpoint) and restarted, and resumes exactly; a fourth node, also without weights, joins
 * mid-run from an anchored snapshot plus the commits after it. All four end bit-identical. A lone
 * node without weights fails with a typed error and writes nothing.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadCheckpoint } from "../../node/store/checkpoint.js";
import { readLanguageRunSource } from "../../node/store/language-run-source.js";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec } from "../../protocol/run-spec.js";
import { useBackend } from "../../training/engine.js";
import { openLanguageRun } from "../../training/language-run.js";
import { cleanup, Node, tempDir } from "./node-process.js";
const MODEL_DIR = "test/fixtures/lm/llama-tiny";
const DATA_FILE = "test/fixtures/lm/tiny-text/text.jsonl";
const ITERATIONS = 36;
const CHECK_EVERY = 4;
/** A model dir with config.json and tokenizer.json, no weights. */
let bare = "";
before(async () => {
    bare = await mkdtemp(join(tmpdir(), "lm-bare-"));
    for (const f of ["config.json", "tokenizer.json"])
        await copyFile(join(MODEL_DIR, f), join(bare, f));
});
after(async () => {
    await cleanup();
    await rm(bare, { recursive: true, force: true });
});
const args = (modelDir) => [
    "--preset", "tiny-lm", "--iterations", String(ITERATIONS), "--check-every", String(CHECK_EVERY),
    "--model-dir", modelDir, "--data-file", DATA_FILE,
];
const bytesOf = (w) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);
const adopted = (l) => l.msg === "initial state adopted from a peer snapshot";
/** A log line of `n`, failing at once (with its stderr) if the process exits first. */
const until = (n, pred, what) => Promise.race([
    n.waitFor(pred, 40_000, what),
    n.exit.then((e) => Promise.reject(new Error(`${what}: the node exited first (${e.code}): ${n.stderr}`))),
]);
const at = (n, t, what) => until(n, (l) => l.msg === "applied" && (l.iteration ?? 0) >= t, what);
// A node without weights waits this long for peers (and retries the snapshot): a loaded machine
// may take seconds to connect and exchange subscriptions.
const BARE_WAIT = ["--join-wait", "20000"];
describe("transformer swarm: join without weights, stop and resume (real node processes)", () => {
    it(`tiny-lm, ${ITERATIONS} iterations: a weightless starter stopped and restarted, a weightless late joiner; all bit-identical`, async (t) => {
        const first = new Node(await tempDir(), [...args(MODEL_DIR), "--join-wait", "20000", "--min-peers", "2"]);
        const addr = await first.address();
        const second = new Node(await tempDir(), [...args(MODEL_DIR), "--bootstrap", addr]);
        const bareDir = await tempDir();
        const third = new Node(bareDir, [...args(bare), ...BARE_WAIT, "--bootstrap", addr]);
        // The weightless starter takes the state at 0, vouched for by the spec's weightsHash alone.
        const start = await until(third, adopted, "third adopted a snapshot");
        assert.equal(start.iteration, 0);
        assert.equal(start.anchored, false);
        // Stop it mid-run (SIGTERM: checkpoint) while a fourth node without weights starts late.
        // At CHECK_EVERY the holders have a snapshot past 0: the late joiner's is anchored by a commit.
        await at(first, CHECK_EVERY, "first at the first snapshot period");
        third.child.kill("SIGTERM");
        const late = new Node(await tempDir(), [...args(bare), ...BARE_WAIT, "--bootstrap", addr]);
        assert.equal((await third.exit).code, 0, third.stderr);
        const stoppedAt = third.result();
        const again = new Node(bareDir, [...args(bare), ...BARE_WAIT, "--bootstrap", addr]);
        const resumed = await until(again, (l) => l.msg === "resumed from checkpoint", "restart resumed");
        assert.equal(resumed.iteration, stoppedAt.iteration, "resumes at the iteration it stopped at");
        assert.equal(resumed.checksum, stoppedAt.checksum);
        assert.equal(resumed.checksum, first.applied(stoppedAt.iteration)?.checksum, "the swarm's state at that iteration");
        assert.ok(!again.lines.some(adopted), "a restart resumes from its checkpoint, not from peers");
        const joined = await until(late, adopted, "late joiner adopted a snapshot");
        assert.ok((joined.iteration ?? 0) >= CHECK_EVERY && joined.iteration % CHECK_EVERY === 0, `snapshot at ${joined.iteration}`);
        assert.equal(joined.anchored, true, "vouched for by a verified commit");
        const nodes = [first, second, again, late];
        const exits = await Promise.all(nodes.map((n) => n.exit));
        for (const [i, e] of exits.entries())
            assert.equal(e.code, 0, `node ${i}: ${nodes[i].stderr}`);
        const results = nodes.map((n) => n.result());
        assert.deepEqual(new Set(results.map((r) => r.iteration)), new Set([ITERATIONS]));
        assert.equal(new Set(results.map((r) => r.checksum)).size, 1, "all four end bit-identical");
        assert.equal(results[2].peerId, stoppedAt.peerId, "same identity after the restart");
        // The late joiner trained after catching up: some commit carries its contribution.
        assert.ok(first.commits().some((c) => c.entries.some((e) => e.author === results[3].peerId)), "late joiner's contributions included");
        const checkpoints = await Promise.all(nodes.map(async (n) => {
            const runs = join(n.dataDir, "runs");
            return loadCheckpoint(join(runs, readdirSync(runs)[0], "checkpoint.ssck"));
        }));
        for (const cp of checkpoints)
            assert.deepEqual(bytesOf(cp.weights), bytesOf(checkpoints[0].weights), "same checkpoint bytes");
        await useBackend("wasm");
        const spec = parseRunSpec({ ...PRESETS["tiny-lm"], iterations: ITERATIONS });
        const run = openLanguageRun(spec, await readLanguageRunSource(MODEL_DIR, DATA_FILE));
        const replica = run.initialReplica();
        assert.ok(replica);
        const beforeLoss = run.heldOut(replica.backend.tensors).loss;
        replica.reset(checkpoints[3].weights, checkpoints[3].iteration);
        const afterLoss = run.heldOut(replica.backend.tensors).loss;
        replica.dispose();
        t.diagnostic(`held-out next-token loss ${beforeLoss.toFixed(4)} -> ${afterLoss.toFixed(4)}; stopped at ${stoppedAt.iteration}, late joiner's snapshot at ${joined.iteration}`);
        assert.ok(afterLoss < beforeLoss - 0.3, `held-out loss ${beforeLoss} -> ${afterLoss}`);
    });
    it("a lone node without weights and no peers: ✖ typed error, exit 1, no checkpoint or commit log", async () => {
        const dir = await tempDir();
        const lone = new Node(dir, [...args(bare), "--join-wait", "500"]);
        const { code } = await lone.exit;
        assert.equal(code, 1);
        assert.match(lone.stderr, /✖ .*holds no weights.*no peer of the run was found.*\[STATE_NO_PEERS\]/);
        const runs = join(dir, "runs");
        const files = existsSync(runs) ? readdirSync(runs, { recursive: true }).map(String) : [];
        assert.ok(!files.some((f) => f.includes("checkpoint") || f.includes("commits")), `nothing written: ${files.join(", ")}`);
    });
});
//# sourceMappingURL=lm-join.test.js.map