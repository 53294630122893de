/**
 * `seedswarm demo` as a real process (one pretraining step, to stay quick): it writes a Hugging
 * Face directory that seedswarm loads back with the hash it printed, the two data files and
 * RunSpecs whose hashes name exactly those bytes, a tokenizer in which the label words are one
 * token each; a second call refuses to overwrite without --force.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { readHfCheckpoint, readTokenizer } from "../../node/store/hf-checkpoint.js";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { textDataset } from "../../training/data/text-dataset.js";
import { runCli } from "./cli-process.js";
const work = mkdtempSync(join(tmpdir(), "seedswarm-demo-"));
after(() => rmSync(work, { recursive: true, force: true }));
describe("seedswarm demo (real process)", () => {
    it("writes a loadable checkpoint, data files and RunSpecs whose hashes match; refuses to overwrite", async () => {
        const out = join(work, "demo");
        const r = await runCli(["demo", "-o", out, "--steps", "1", "--log-level", "warn"]);
        assert.equal(r.code, 0, r.stderr);
        const res = JSON.parse(r.stdout.trim().split("\n").pop() ?? "");
        const ck = await readHfCheckpoint(res.modelDir);
        assert.equal(ck.checksum, res.weightsHash);
        assert.equal(ck.config.architecture, "gpt2");
        assert.equal(ck.model.layout.size, res.params);
        assert.ok(res.pretrain.startLoss > 7 && res.pretrain.heldOutLoss < res.pretrain.startLoss, JSON.stringify(res.pretrain));
        assert.deepEqual(res.tasks.map((t) => t.name), ["lm-demo-spam", "lm-demo-email"]);
        const tok = await readTokenizer(res.modelDir, ck.config);
        for (const t of res.tasks) {
            const spec = parseRunSpec(JSON.parse(readFileSync(t.spec, "utf8")));
            assert.equal(runIdOf(spec), t.runId);
            assert.equal(spec.model.kind === "transformer" && spec.model.weightsHash, res.weightsHash);
            const bytes = readFileSync(t.dataFile);
            assert.equal(spec.dataset.kind === "text" && spec.dataset.contentHash, createHash("sha256").update(bytes).digest("hex"));
            // Only the hashes differ from the preset: the algorithm is the preset's.
            assert.deepEqual(spec.algorithm, PRESETS[t.name].algorithm);
            const data = textDataset(bytes, "jsonl", t.dataFile);
            if (t.name === "lm-demo-spam") {
                assert.deepEqual(data.labels, ["ham", "spam"]);
                assert.ok(data.train.length + data.test.length === 6046);
                for (const w of [" ham", " spam"])
                    assert.equal(tok.encode(w).length, 1, w);
            }
            else {
                assert.deepEqual(data.labels, []);
                assert.ok(data.train.length > 3000);
            }
        }
        const again = await runCli(["demo", "-o", out, "--steps", "1"]);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /already holds a demo model \(--force to overwrite\)/);
    });
});
//# sourceMappingURL=cli-demo.test.js.map