/**
 * A language-model swarm whose nodes measure with different engines, as real processes: one node
 * measures its contributions on onnxruntime's CPU provider (--lm-forward onnx), two with tfjs on
 * wasm. Low-rank tiny-lm (a tiny Llama checkpoint): all three end bit-identical, the onnx node's
 * contributions are in every chain, the tfjs nodes audit it by recomputation and accept its
 * bytes, and each node says which engine measured and why.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { cleanup, startSwarm } from "./node-process.js";

after(cleanup);

const MODEL_DIR = "test/fixtures/lm/llama-tiny";
const DATA_FILE = "test/fixtures/lm/tiny-text/text.jsonl";
const ITERATIONS = 16;

describe("language-model swarm with one node on the onnx engine", () => {
  it(`3 nodes (onnx, tfjs wasm, tfjs wasm), tiny-lm-lowrank, ${ITERATIONS} iterations: identical, audited, the onnx node in the chain`, async () => {
    // Audits may take all of a tfjs node's spare CPU, so the onnx node's entries are recomputed.
    const args = ["--preset", "tiny-lm-lowrank", "--iterations", String(ITERATIONS), "--model-dir", MODEL_DIR, "--data-file", DATA_FILE, "--audit-budget", "1", "--backend", "wasm"];
    const env: Record<string, string>[] = [{ SEEDSWARM_LM_FORWARD: "onnx", SEEDSWARM_THREADS: "1" }, { SEEDSWARM_LM_FORWARD: "tfjs" }, { SEEDSWARM_LM_FORWARD: "tfjs" }];
    const nodes = await startSwarm(3, args, env);
    const exits = await Promise.all(nodes.map((n) => n.exit));
    for (const [i, e] of exits.entries()) assert.equal(e.code, 0, `node ${i}: ${nodes[i].stderr}`);
    const results = nodes.map((n) => n.result());
    assert.deepEqual(new Set(results.map((r) => r.iteration)), new Set([ITERATIONS]));
    assert.equal(new Set(results.map((r) => r.checksum)).size, 1, "all three end bit-identical");
    const engine = (i: number) => nodes[i].lines.find((l) => l.msg === "contributions' forward passes");
    assert.match(String(engine(0)?.engine), /^onnxruntime cpu \(1 thread, rank 1;/);
    assert.match(String(engine(0)?.reason), /--lm-forward onnx/);
    for (const i of [1, 2]) assert.match(String(engine(i)?.engine), /^tfjs \(wasm\)/);
    const onnxId = results[0].peerId;
    for (const i of [1, 2]) {
      const commits = nodes[i].commits();
      const byOnnx = commits.filter((c) => c.entries.some((e) => e.author === onnxId)).length;
      assert.ok(byOnnx >= ITERATIONS / 2, `node ${i}: the onnx node authored entries in ${byOnnx} of ${commits.length} commits`);
      assert.ok(commits.every((c) => !(c.exclusions ?? []).some((x) => x.author === onnxId)), `node ${i}: the onnx node was never excluded`);
    }
    // The tfjs nodes recomputed contributions (the onnx node's among them) and found no fraud.
    const summaries = [1, 2].map((i) => nodes[i].lines.find((l) => l.msg === "audit summary"));
    for (const s of summaries) assert.equal(s?.frauds, 0, `no fraud found: ${JSON.stringify(s)}`);
    const audited = summaries.reduce((a, s) => a + Number(s?.audited ?? 0), 0);
    assert.ok(audited >= 4, `the tfjs nodes audited ${audited} contributions`);
    for (const i of [1, 2]) {
      assert.equal(nodes[i].lines.filter((l) => l.msg === "contribution does not recompute" && l.author === onnxId).length, 0, `node ${i} never doubted the onnx node's bytes`);
    }
  });
});
