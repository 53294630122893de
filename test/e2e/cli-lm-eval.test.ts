/**
 * `seedswarm eval --model-dir` as a real process: per-position next-token losses of token ids
 * equal transformers' reference on both engines (onnx, tfjs), a text file's mean loss and perplexity agree with the losses of
 * its token ids, the directory also comes from the SEEDSWARM_MODEL_DIR layer, and misuse fails
 * with the usage exit code.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { checkpointPath } from "../../node/store/data-dir.js";
import { LM_FIXTURES } from "../helpers/lm-fixtures.js";
import { runCli } from "./cli-process.js";

const work = mkdtempSync(join(tmpdir(), "seedswarm-lm-eval-"));
after(() => rmSync(work, { recursive: true, force: true }));

const json = (out: string) => JSON.parse(out.trim().split("\n").pop() ?? "");

describe("seedswarm eval --model-dir (real processes)", () => {
  it("--token-ids prints each sequence's next-token losses, within 1e-5 of transformers, on onnx (auto) and on tfjs, naming the engine and its speed", async () => {
    const cases = (JSON.parse(readFileSync(`${LM_FIXTURES}opt-tiny/reference.json`, "utf8")) as {
      cases: { input_ids: number[][]; next_token_nll: number[][] }[];
    }).cases;
    const ids = cases.flatMap((c) => c.input_ids);
    const want = cases.flatMap((c) => c.next_token_nll);
    const file = join(work, "ids.json");
    writeFileSync(file, JSON.stringify(ids));
    const args = ["eval", "--model-dir", `${LM_FIXTURES}opt-tiny`, "--token-ids", file, "--backend", "wasm", "--batch-size", "3"];
    const runs = await Promise.all([runCli([...args, "--threads", "1"]), runCli([...args, "--lm-forward", "tfjs"])]);
    for (const [r, engine] of [
      [runs[0], /^onnxruntime cpu \(1 thread\)$/],
      [runs[1], /^tfjs \(wasm\)$/],
    ] as const) {
      assert.equal(r.code, 0, r.stderr);
      const out = json(r.stdout);
      assert.equal(out.architecture, "opt");
      assert.match(out.checksum, /^[0-9a-f]{64}$/);
      assert.match(out.engine, engine);
      assert.ok(out.tokensPerSecond > 0, `tokens per second: ${out.tokensPerSecond}`);
      assert.equal(out.losses.length, ids.length);
      out.losses.forEach((seq: number[], b: number) => {
        assert.equal(seq.length, want[b].length);
        seq.forEach((l, t) => assert.ok(Math.abs(l - want[b][t]) <= 1e-5 * want[b][t], `${out.engine}, sequence ${b} position ${t}: ${l} vs ${want[b][t]}`));
      });
    }
  });

  it("--text-file prints the mean loss and perplexity of the text's tokens (model dir from SEEDSWARM_MODEL_DIR)", async () => {
    const ref = JSON.parse(readFileSync(`${LM_FIXTURES}llama-tiny/tokenizer-reference.json`, "utf8")) as { text: string; ids: number[] }[];
    const sample = ref[3];
    const text = join(work, "sample.txt");
    const ids = join(work, "sample-ids.json");
    writeFileSync(text, sample.text);
    writeFileSync(ids, JSON.stringify([sample.ids]));
    const env = { SEEDSWARM_MODEL_DIR: `${LM_FIXTURES}llama-tiny` };
    const [t, i] = await Promise.all([
      runCli(["eval", "--text-file", text, "--backend", "cpu"], { env }),
      runCli(["eval", "--token-ids", ids, "--backend", "cpu"], { env }),
    ]);
    assert.equal(t.code, 0, t.stderr);
    assert.equal(i.code, 0, i.stderr);
    const scored = json(t.stdout);
    const losses = json(i.stdout).losses[0] as number[];
    assert.equal(scored.tokens, sample.ids.length - 1);
    assert.equal(scored.windows, 1);
    const mean = losses.reduce((a, b) => a + b, 0) / losses.length;
    assert.ok(Math.abs(scored.loss - mean) <= 1e-6 * mean, `${scored.loss} vs ${mean}`);
    assert.ok(Math.abs(scored.perplexity - Math.exp(scored.loss)) <= 1e-9 * scored.perplexity);
  });

  it("--checkpoint scores a transformer run's checkpoint as its export scores; another model's checkpoint is refused", async () => {
    const dataDir = join(work, "data");
    const source = ["--model-dir", `${LM_FIXTURES}llama-tiny`, "--data-file", "test/fixtures/lm/tiny-text/text.jsonl"];
    const trained = await runCli(["train", "--preset", "tiny-lm", "--iterations", "3", "--data-dir", dataDir, "--backend", "wasm", ...source, "--log-level", "warn"]);
    assert.equal(trained.code, 0, trained.stderr);
    const cp = checkpointPath(dataDir, json(trained.stdout).run);
    const exported = join(work, "tiny-lm-hf");
    const ex = await runCli(["export", "--preset", "tiny-lm", "--iterations", "3", "--data-dir", dataDir, "--model-dir", `${LM_FIXTURES}llama-tiny`, "-o", exported]);
    assert.equal(ex.code, 0, ex.stderr);
    const text = "test/fixtures/lm/tiny-text/text.jsonl";
    const [fromCp, fromExport, base] = await Promise.all([
      runCli(["eval", "--model-dir", `${LM_FIXTURES}llama-tiny`, "--checkpoint", cp, "--text-file", text, "--backend", "wasm"]),
      runCli(["eval", "--model-dir", exported, "--text-file", text, "--backend", "wasm"]),
      runCli(["eval", "--model-dir", `${LM_FIXTURES}llama-tiny`, "--text-file", text, "--backend", "wasm"]),
    ]);
    for (const r of [fromCp, fromExport, base]) assert.equal(r.code, 0, r.stderr);
    const [a, b, c] = [json(fromCp.stdout), json(fromExport.stdout), json(base.stdout)];
    assert.equal(a.checksum, json(trained.stdout).checksum);
    assert.equal(a.checksum, b.checksum);
    assert.equal(a.loss, b.loss);
    assert.notEqual(a.loss, c.loss, "the checkpoint's weights, not the directory's, were scored");
    const wrong = await runCli(["eval", "--model-dir", `${LM_FIXTURES}gpt2-tiny`, "--checkpoint", cp, "--text-file", text, "--backend", "wasm"]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /is a checkpoint of run tiny-lm \(llama, .*not of the gpt2 model.*LM_EVAL_INPUT/);
  });

  it("misuse exits 2 naming the problem; an id outside the vocabulary exits 1 naming the sequence", async () => {
    const noDir = await runCli(["eval", "--token-ids", join(work, "ids.json")]);
    assert.equal(noDir.code, 2);
    assert.match(noDir.stderr, /need --model-dir/);
    const both = await runCli(["eval", "--model-dir", `${LM_FIXTURES}gpt2-tiny`, "--token-ids", "a.json", "--text-file", "b.txt"]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /exactly one of --text-file or --token-ids/);
    const badIds = join(work, "bad-ids.json");
    writeFileSync(badIds, JSON.stringify([[1, 2, 5000]]));
    const outOfVocab = await runCli(["eval", "--model-dir", `${LM_FIXTURES}gpt2-tiny`, "--token-ids", badIds, "--backend", "cpu"]);
    assert.equal(outOfVocab.code, 1);
    assert.match(outOfVocab.stderr, /sequence 0 holds 5000, not an id below 1024.*LM_EVAL_INPUT/);
    const tooManyThreads = await runCli(["eval", "--model-dir", `${LM_FIXTURES}gpt2-tiny`, "--token-ids", badIds, "--threads", "100000"]);
    assert.equal(tooManyThreads.code, 2);
    assert.match(tooManyThreads.stderr, /--threads <n>' argument '100000' is invalid\. expected an integer from 1 to \d+/);
  });
});
