/**
 * A transformer RunSpec opened from a Hugging Face directory and a text file: hashes checked
 * (typed errors naming both), and the tiny-lm preset's held-out loss falls under one-byte SPSA
 * with two replicas bit-identical.
 */
import assert from "node:assert/strict";
import { copyFile, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { localAuthors, localIteration } from "../../../node/local/local-trainer.js";
import { ExportError, exportTransformerCheckpoint } from "../../../node/offline/model-export.js";
import { saveCheckpoint } from "../../../node/store/checkpoint.js";
import { readHfCheckpoint } from "../../../node/store/hf-checkpoint.js";
import { readLanguageRunSource } from "../../../node/store/language-run-source.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { LanguageRunError, openLanguageRun } from "../../../training/language-run.js";
const MODEL_DIR = "test/fixtures/lm/llama-tiny";
const DATA_FILE = "test/fixtures/lm/tiny-text/text.jsonl";
const ITERATIONS = 12;
describe("transformer runs (openLanguageRun)", () => {
    it("refuses weights or data whose hash is not the spec's, naming both hashes", async () => {
        const spec = parseRunSpec(PRESETS["tiny-lm"]);
        const source = await readLanguageRunSource(MODEL_DIR, DATA_FILE);
        assert.ok(source.weights, "the fixture has weights");
        const weights = source.weights.slice();
        weights[0] += 1;
        assert.throws(() => openLanguageRun(spec, { ...source, weights }), (err) => err instanceof LanguageRunError && err.code === "LM_WEIGHTS_MISMATCH" && err.message.includes(spec.model.kind === "transformer" ? spec.model.weightsHash : "?") && err.message.includes(String(err.context.actual)) && err.context.actual !== err.context.expected);
        const data = new TextEncoder().encode('{"text": "another text"}\n');
        assert.throws(() => openLanguageRun(spec, { ...source, data }), (err) => err instanceof LanguageRunError && err.code === "LM_DATA_MISMATCH" && err.message.includes(String(err.context.expected)));
    });
    it("a model dir with config.json and tokenizer.json only: a run without an initial replica, replicas from given state", async () => {
        const spec = parseRunSpec(PRESETS["tiny-lm"]);
        const dir = await mkdtemp(join(tmpdir(), "lm-noweights-"));
        for (const f of ["config.json", "tokenizer.json"])
            await copyFile(join(MODEL_DIR, f), join(dir, f));
        const source = await readLanguageRunSource(dir, DATA_FILE);
        assert.equal(source.weights, null);
        const run = openLanguageRun(spec, source);
        assert.equal(run.initialReplica(), null);
        const full = await readLanguageRunSource(MODEL_DIR, DATA_FILE);
        assert.ok(full.weights);
        const r = run.replicaAt(full.weights.slice(), 3);
        assert.equal(r.iteration, 3);
        assert.equal(r.checksum(), spec.model.kind === "transformer" ? spec.model.weightsHash : "?");
        r.dispose();
    });
    it("tiny-lm: one-byte SPSA lowers the held-out next-token loss; replicas stay bit-identical", async (t) => {
        await useBackend("wasm");
        const spec = parseRunSpec({ ...PRESETS["tiny-lm"], iterations: ITERATIONS });
        const run = openLanguageRun(spec, await readLanguageRunSource(MODEL_DIR, DATA_FILE));
        const a = run.initialReplica();
        const b = run.initialReplica();
        assert.ok(a && b);
        const before = run.heldOut(a.backend.tensors);
        const authors = localAuthors(3);
        while (a.iteration < ITERATIONS) {
            const cs = authors.map((author) => ({ author, payload: run.algorithm.contribute(a, author) }));
            a.applyIteration(run.algorithm, cs);
            b.applyIteration(run.algorithm, [...cs].reverse());
        }
        const after = run.heldOut(a.backend.tensors);
        t.diagnostic(`held-out loss ${before.loss.toFixed(4)} -> ${after.loss.toFixed(4)} over ${after.examples} tokens, ${ITERATIONS} iterations x 3 authors x 8 bytes`);
        assert.equal(a.checksum(), b.checksum());
        assert.equal(before.accuracy, null);
        assert.ok(after.loss < before.loss - 0.4, `held-out loss ${before.loss} -> ${after.loss}`);
        a.dispose();
        b.dispose();
    });
});
describe("Hugging Face export of a transformer run", () => {
    it("writes config.json + model.safetensors with Hugging Face names that reload with the checkpoint's checksum", async () => {
        await useBackend("wasm");
        const spec = parseRunSpec({ ...PRESETS["tiny-lm"], iterations: 2 });
        const run = openLanguageRun(spec, await readLanguageRunSource(MODEL_DIR, DATA_FILE));
        const replica = run.initialReplica();
        assert.ok(replica);
        localIteration(run.algorithm, replica, localAuthors(1));
        const dir = await mkdtemp(join(tmpdir(), "lm-export-"));
        const cp = await saveCheckpoint(join(dir, "run.ssck"), spec, replica.iteration, replica.weights);
        assert.notEqual(cp.checksum, spec.model.kind === "transformer" ? spec.model.weightsHash : "", "one iteration moved the weights");
        const out = join(dir, "hf");
        const r = await exportTransformerCheckpoint(join(dir, "run.ssck"), out, MODEL_DIR, false);
        assert.equal(r.checksum, cp.checksum);
        const back = await readHfCheckpoint(out);
        assert.equal(back.checksum, cp.checksum);
        const names = Object.keys(JSON.parse(new TextDecoder().decode(await headerOf(join(out, "model.safetensors"))))).filter((n) => n !== "__metadata__");
        assert.deepEqual(names.sort(), back.model.layout.tensors.map((t) => t.name).sort());
        assert.ok(names.includes("model.layers.0.self_attn.q_proj.weight"), names.join(", "));
        assert.equal(JSON.parse(await readFile(join(out, "config.json"), "utf8")).model_type, "llama");
        assert.deepEqual(await readFile(join(out, "tokenizer.json")), await readFile(join(MODEL_DIR, "tokenizer.json")));
        await assert.rejects(exportTransformerCheckpoint(join(dir, "run.ssck"), out, MODEL_DIR, false), (err) => err instanceof ExportError && err.code === "EXPORT_EXISTS");
        await assert.rejects(exportTransformerCheckpoint(join(dir, "run.ssck"), join(dir, "opt"), "test/fixtures/lm/opt-tiny", false), (err) => err instanceof ExportError && err.code === "EXPORT_INVALID" && err.message.includes("opt"));
        replica.dispose();
    });
});
/** The JSON header of a safetensors file. */
async function headerOf(file) {
    const bytes = await readFile(file);
    return bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0)));
}
//# sourceMappingURL=language-run.test.js.map