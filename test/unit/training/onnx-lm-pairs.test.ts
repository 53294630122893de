/**
 * SPSA contributions of a causal language model with the pairs measured on onnxruntime's CPU
 * provider through its worker (training/onnx/lm-pairs.ts): the bytes tfjs's passes give (within
 * one code where a loss difference sits on a rounding edge) on all three architectures, accepted
 * by an auditor on tfjs; the weights taken again when the replica's state changes; and
 * --lm-forward's choice and refusals.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHfCheckpoint } from "../../../node/store/hf-checkpoint.js";
import { readLanguageRunSource } from "../../../node/store/language-run-source.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { Spsa } from "../../../training/algorithms/spsa.js";
import { useBackend } from "../../../training/engine.js";
import { openLanguageRun } from "../../../training/language-run.js";
import { LmForwardError } from "../../../training/lm-forward.js";
import { OnnxLmPairs } from "../../../training/onnx/index.js";
import { Replica } from "../../../training/replica.js";
import { causalLmTask } from "../../../training/tasks/causal-lm.js";
import { LM_FIXTURES } from "../../helpers/lm-fixtures.js";

describe("low-rank SPSA pairs of a language model on onnxruntime (CPU)", () => {
  for (const [name, rank] of [
    ["gpt2-tiny", 2],
    ["opt-tiny", 1],
    ["llama-tiny", 3],
  ] as const) {
    it(`${name}, rank ${rank}: the bytes tfjs gives, an auditor on tfjs accepts them, new weights after an update`, async () => {
      await useBackend("cpu");
      const ck = await readHfCheckpoint(`${LM_FIXTURES}${name}`);
      const V = ck.config.vocabSize;
      // Ragged windows, so groups are padded to one length.
      const sequences = Array.from({ length: 20 }, (_, i) => Array.from({ length: 6 + (i % 7) }, (_, t) => (i * 97 + t * 31 + 5) % V));
      const spec = parseRunSpec({
        ...PRESETS["lm-demo-email"],
        algorithm: { ...PRESETS["lm-demo-email"].algorithm, perturbations: 6, batchSize: 3, eps: 0.02, perturbation: { kind: "lowrank", rank } },
      });
      const runId = runIdOf(spec);
      const task = causalLmTask(ck.model, sequences);
      const pairs = new OnnxLmPairs(ck.model, sequences, rank, 2);
      try {
        assert.match(pairs.description, new RegExp(`^onnxruntime cpu \\(2 threads, rank ${rank}; graph \\d+ KiB`));
        const host = new Spsa(runId, spec, ck.model, task);
        const onnx = new Spsa(runId, spec, ck.model, task, { pairs });
        const author = { id: "author-a", joinedAt: 1 };
        let differ = 0;
        for (const iteration of [0, 7]) {
          const replica = new Replica(runId, ck.model, ck.weights.slice(), iteration);
          const want = new Int8Array(host.contribute(replica, author).buffer);
          const got = new Int8Array(onnx.contribute(replica, author).buffer);
          assert.equal(got.length, 6);
          assert.ok(want.some((b) => b !== 0), "tfjs's bytes are not all zero");
          for (let j = 0; j < 6; j++) {
            assert.ok(Math.abs(got[j] - want[j]) <= 1, `iteration ${iteration}, byte ${j}: onnx ${got[j]}, tfjs ${want[j]}`);
            if (got[j] !== want[j]) differ++;
          }
          assert.ok(Math.abs(onnx.lastLoss - host.lastLoss) < 1e-4 * host.lastLoss, `mean loss ${onnx.lastLoss} vs ${host.lastLoss}`);
          assert.equal(host.audit(replica, author, new Uint8Array(got.buffer)), null, "an auditor on tfjs accepts the onnx bytes");
          assert.equal(onnx.audit(replica, author, new Uint8Array(want.buffer)), null, "an auditor on onnx accepts the tfjs bytes");
          replica.dispose();
        }
        assert.ok(differ <= 2, `${differ} of 12 bytes differ by one code`);
        // One replica through applied iterations: the worker takes the weights again when they
        // change (the replica's state key), never measures a stale copy.
        const replica = new Replica(runId, ck.model, ck.weights.slice(), 0);
        const strong = new Spsa(runId, parseRunSpec({ ...spec, algorithm: { ...spec.algorithm, schedule: { lr: 0.5, warmup: 0, minFactor: 1 } } }), ck.model, task);
        let last = Number.NaN;
        for (let i = 0; i < 3; i++) {
          const got = onnx.contribute(replica, author);
          host.contribute(replica, author);
          assert.ok(Math.abs(onnx.lastLoss - host.lastLoss) < 1e-4 * host.lastLoss, `after ${i} updates: onnx ${onnx.lastLoss}, tfjs ${host.lastLoss}`);
          assert.ok(!(Math.abs(host.lastLoss - last) < 1e-3), `the update moved the loss (${last} -> ${host.lastLoss})`);
          last = host.lastLoss;
          replica.applyIteration(strong, [{ author, payload: got }]);
        }
        replica.dispose();
        assert.throws(() => pairs.losses(ck.weights, [], 3, 0.02, rank + 1), /built for rank/);
        // A worker that died outside a request: the next call says so at once (no 15-minute wait).
        (pairs as unknown as { worker: { emit(e: string, err: Error): void } }).worker.emit("error", new Error("out of memory"));
        assert.throws(() => pairs.losses(ck.weights, [], 3, 0.02, rank), /worker died: out of memory/);
      } finally {
        await pairs.close();
      }
    });
  }

  it("--lm-forward: auto takes onnx for low-rank causal-lm runs and tfjs otherwise (saying why); onnx refuses what it cannot measure", async () => {
    await useBackend("cpu");
    const source = await readLanguageRunSource(`${LM_FIXTURES}llama-tiny`, `${LM_FIXTURES}tiny-text/text.jsonl`);
    const fullRank = parseRunSpec(PRESETS["tiny-lm"]);
    const lowrank = parseRunSpec(PRESETS["tiny-lm-lowrank"]);
    const auto = openLanguageRun(lowrank, source, { forward: "auto", threads: 1 });
    assert.match(auto.forward?.engine ?? "", /^onnxruntime cpu \(1 thread, rank 1;/);
    assert.match(auto.forward?.reason ?? "", /^auto: low-rank pairs of a causal-lm run/);
    const tfjs = openLanguageRun(fullRank, source, { forward: "auto", threads: 1 });
    assert.equal(tfjs.forward?.engine, "tfjs (cpu)");
    assert.match(tfjs.forward?.reason ?? "", /auto: the onnx engine does not serve this run \(.*perturbation must be lowrank\)/);
    assert.throws(
      () => openLanguageRun(fullRank, source, { forward: "onnx", threads: 1 }),
      (e: unknown) => e instanceof LmForwardError && e.code === "LM_FORWARD_UNSUPPORTED" && /^--lm-forward onnx: .*perturbation must be lowrank/.test(e.message),
    );
    // The two engines' contributions to one replica: within one code, each accepted by the other's auditor.
    const replica = auto.initialReplica() as Replica;
    const onTfjs = openLanguageRun(lowrank, source, { forward: "tfjs", threads: 1 });
    const author = { id: "author-b", joinedAt: 2 };
    const want = new Int8Array(onTfjs.algorithm.contribute(replica, author).buffer);
    const got = new Int8Array(auto.algorithm.contribute(replica, author).buffer);
    assert.ok(want.some((b) => b !== 0), "tfjs's bytes are not all zero");
    want.forEach((b, j) => assert.ok(Math.abs(got[j] - b) <= 1, `byte ${j}: onnx ${got[j]}, tfjs ${b}`));
    assert.equal(onTfjs.algorithm.audit(replica, author, new Uint8Array(got.buffer)), null);
    replica.dispose();
  });
});
