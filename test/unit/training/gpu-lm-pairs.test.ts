/**
 * SPSA contributions of a causal language model with the pairs measured on a WebGPU device
 * (lavapipe) through the worker: the same bytes as the host's tfjs passes (within one code where a
 * loss difference sits on a rounding edge), and --lm-forward webgpu's refusals.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHfCheckpoint } from "../../../node/store/hf-checkpoint.js";
import { readLanguageRunSource } from "../../../node/store/language-run-source.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { Spsa } from "../../../training/algorithms/spsa.js";
import { useBackend } from "../../../training/engine.js";
import { GpuLmPairs } from "../../../training/gpu/lm-pairs.js";
import { openLanguageRun } from "../../../training/language-run.js";
import { LmForwardError } from "../../../training/lm-forward.js";
import { Replica } from "../../../training/replica.js";
import { causalLmTask } from "../../../training/tasks/causal-lm.js";
import { LM_FIXTURES } from "../../helpers/lm-fixtures.js";
import { webGpuProblem } from "../../helpers/vulkan.js";

const problem = await webGpuProblem();

describe("low-rank SPSA pairs of a language model on a WebGPU device", { skip: problem ?? false }, () => {
  it("gives the bytes the host's passes give (gpt2-tiny, 6 pairs of 3 sequences, rank 2)", async () => {
    await useBackend("cpu");
    const ck = await readHfCheckpoint(`${LM_FIXTURES}gpt2-tiny`);
    const V = ck.config.vocabSize;
    const sequences = Array.from({ length: 20 }, (_, i) => Array.from({ length: 6 + (i % 7) }, (_, t) => (i * 97 + t * 31 + 5) % V));
    const spec = parseRunSpec({
      ...PRESETS["lm-demo-email"],
      algorithm: { ...PRESETS["lm-demo-email"].algorithm, perturbations: 6, batchSize: 3, eps: 0.02, perturbation: { kind: "lowrank", rank: 2 } },
    });
    const runId = runIdOf(spec);
    const task = causalLmTask(ck.model, sequences);
    const pairs = new GpuLmPairs(ck.model, sequences, 2);
    try {
      assert.match(pairs.description, /^webgpu \(llvmpipe/);
      const host = new Spsa(runId, spec, ck.model, task);
      const device = new Spsa(runId, spec, ck.model, task, { pairs });
      const author = { id: "author-a", joinedAt: 1 };
      for (const iteration of [0, 7]) {
        const replica = new Replica(runId, ck.model, ck.weights.slice(), iteration);
        const want = new Int8Array(host.contribute(replica, author).buffer);
        const got = new Int8Array(device.contribute(replica, author).buffer);
        assert.equal(got.length, 6);
        assert.ok(want.some((b) => b !== 0), "the host's bytes are not all zero");
        for (let j = 0; j < 6; j++) assert.ok(Math.abs(got[j] - want[j]) <= 1, `iteration ${iteration}, byte ${j}: device ${got[j]}, host ${want[j]}`);
        assert.ok(Math.abs(device.lastLoss - host.lastLoss) < 1e-4 * host.lastLoss, `mean loss ${device.lastLoss} vs ${host.lastLoss}`);
        // An auditor on the host accepts the device's contribution.
        assert.equal(host.audit(replica, author, new Uint8Array(got.buffer)), null);
        replica.dispose();
      }
      // One replica through applied iterations: the device takes the weights again when they
      // change (the replica's state key), never measures a stale copy.
      const replica = new Replica(runId, ck.model, ck.weights.slice(), 0);
      const strong = new Spsa(runId, parseRunSpec({ ...spec, algorithm: { ...spec.algorithm, schedule: { lr: 0.5, warmup: 0, minFactor: 1 } } }), ck.model, task);
      let last = Number.NaN;
      for (let i = 0; i < 3; i++) {
        const got = device.contribute(replica, author);
        host.contribute(replica, author);
        assert.ok(Math.abs(device.lastLoss - host.lastLoss) < 1e-4 * host.lastLoss, `after ${i} updates: device ${device.lastLoss}, host ${host.lastLoss}`);
        assert.ok(!(Math.abs(host.lastLoss - last) < 1e-3), `the update moved the loss (${last} -> ${host.lastLoss})`);
        last = host.lastLoss;
        replica.applyIteration(strong, [{ author, payload: got }]);
      }
      replica.dispose();
      // A worker that died outside a request: the next call says so at once (no 10-minute wait).
      (pairs as unknown as { worker: { emit(e: string, err: Error): void } }).worker.emit("error", new Error("lost its device"));
      assert.throws(() => pairs.losses(ck.weights, [], 3, 0.02, 2), /worker died: lost its device/);
    } finally {
      await pairs.close();
    }
  });

  it("--lm-forward webgpu: a tiny-lm run (Llama) contributes through the device the bytes tfjs gives; what it cannot measure is refused by name", async () => {
    await useBackend("cpu");
    const source = await readLanguageRunSource(`${LM_FIXTURES}llama-tiny`, `${LM_FIXTURES}tiny-text/text.jsonl`);
    const lowrank = parseRunSpec({ ...PRESETS["tiny-lm"], algorithm: { ...PRESETS["tiny-lm"].algorithm, perturbation: { kind: "lowrank", rank: 1 } } });
    const webgpu = { forward: "webgpu", threads: 1 } as const;
    {
      assert.throws(
        () => openLanguageRun(parseRunSpec(PRESETS["tiny-lm"]), source, webgpu),
        (e: unknown) => e instanceof LmForwardError && e.code === "LM_FORWARD_UNSUPPORTED" && /--lm-forward webgpu: .*perturbation must be lowrank/.test(e.message),
      );
      const device = openLanguageRun(lowrank, source, webgpu);
      assert.match(device.forward?.engine ?? "", /^webgpu \(llvmpipe/);
      const host = openLanguageRun(lowrank, source, { forward: "tfjs", threads: 1 });
      assert.match(host.forward?.engine ?? "", /^tfjs \(cpu\)/);
      const author = { id: "author-b", joinedAt: 2 };
      const replica = host.initialReplica() as Replica;
      const want = new Int8Array(host.algorithm.contribute(replica, author).buffer);
      const got = new Int8Array(device.algorithm.contribute(replica, author).buffer);
      assert.ok(want.some((b) => b !== 0), "the host's bytes are not all zero");
      want.forEach((b, j) => assert.ok(Math.abs(got[j] - b) <= 1, `byte ${j}: device ${got[j]}, host ${b}`));
      replica.dispose();
    }
  });
});
