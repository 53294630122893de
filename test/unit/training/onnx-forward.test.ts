/**
 * The transformer forward on onnxruntime's CPU provider (training/onnx) against Hugging Face
 * transformers' own outputs (test/fixtures/lm), against the tfjs-wasm forward on padded batches
 * and on weights changed after the session was built, and its perturbed pass against the
 * materialised low-rank perturbations (lowrank.ts) on tfjs-wasm.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { readHfCheckpoint } from "../../../node/store/hf-checkpoint.js";
import { useBackend } from "../../../training/engine.js";
import { type TokenBatch, tokenBatch } from "../../../training/models/transformer.js";
import { meanNextTokenLoss } from "../../../training/next-token-loss.js";
import { type LowRankPerturbation, perturbLowRankJs } from "../../../training/algorithms/lowrank.js";
import {
  OnnxGraphError,
  OnnxSessionError,
  OnnxTransformer,
  type WeightPlacement,
} from "../../../training/onnx/index.js";
import { seedFrom } from "../../../training/rng/seeds.js";
import { toTensors } from "../../../training/params.js";
import {
  type FixtureOutputs,
  LM_FIXTURE_MODELS,
  LM_FIXTURES,
  lossesAndLogits,
  referenceCases,
  referenceErrorsOf,
} from "../../helpers/lm-fixtures.js";

const relErr = (got: number, want: number) => Math.abs(got - want) / Math.max(Math.abs(want), 1e-12);

async function outputsOf(m: OnnxTransformer, batch: TokenBatch): Promise<FixtureOutputs> {
  return { losses: await m.nextTokenLosses(batch), logits: await m.logits(batch) };
}

/** Left padding: the sequences aligned to the end of `length` positions, pad id 5 first. */
function leftPadded(seqs: readonly (readonly number[])[], length: number): TokenBatch {
  const batch = tokenBatch(seqs.map((s) => [...new Array<number>(length - s.length).fill(5), ...s]));
  seqs.forEach((s, b) => batch.mask.fill(0, b * length, b * length + length - s.length));
  return batch;
}

/** Losses within 1e-5 relative and logits of real positions within 1e-5 absolute (`start`: where sequence b begins). */
function assertSame(got: FixtureOutputs, want: FixtureOutputs, seqs: readonly (readonly number[])[], V: number, T: number, start: (b: number) => number) {
  seqs.forEach((s, b) => {
    assert.equal(got.losses[b].length, want.losses[b].length, `sequence ${b}: number of losses`);
    got.losses[b].forEach((l, t) => assert.ok(relErr(l, want.losses[b][t]) <= 1e-5, `sequence ${b} position ${t}: ${l} vs ${want.losses[b][t]}`));
    for (let t = 0; t < s.length; t++) {
      for (let v = 0; v < V; v++) {
        const g = got.logits[(b * T + start(b) + t) * V + v];
        const w = want.logits[(b * T + start(b) + t) * V + v];
        assert.ok(Math.abs(g - w) <= 1e-5, `sequence ${b} position ${t} logit ${v}: ${g} vs ${w}`);
      }
    }
  });
}

describe("onnx transformer forward = transformers 5.17", () => {
  for (const name of LM_FIXTURE_MODELS) {
    for (const placement of ["inputs", "initializers"] as WeightPlacement[]) {
      it(`${name}, weights as ${placement}: probe and last logits within 1e-4, next-token losses within 1e-5 relative`, async (t) => {
        const ck = await readHfCheckpoint(`${LM_FIXTURES}${name}`);
        const m = await OnnxTransformer.create(ck.config, ck.weights, { threads: 1, placement, logits: true });
        try {
          const { logitErr, lossErr, lengthsMatch } = await referenceErrorsOf(name, ck.config.vocabSize, (b) => outputsOf(m, b));
          t.diagnostic(`${name} onnx ${placement}: max |logit err| ${logitErr.toExponential(2)}, max rel loss err ${lossErr.toExponential(2)}`);
          assert.ok(lengthsMatch, "as many losses per sequence as the reference");
          assert.ok(logitErr <= 1e-4, `max logit error ${logitErr}`);
          assert.ok(lossErr <= 1e-5, `max relative loss error ${lossErr}`);
        } finally {
          await m.release();
        }
      });
    }
  }
});

describe("onnx transformer forward = the tfjs-wasm forward", () => {
  for (const name of LM_FIXTURE_MODELS) {
    it(`${name}: right- and left-padded batches, 2 threads`, async () => {
      await useBackend("wasm");
      const ck = await readHfCheckpoint(`${LM_FIXTURES}${name}`);
      const V = ck.config.vocabSize;
      const ids = referenceCases(name)[0].input_ids;
      const seqs = [ids[0], ids[1].slice(0, 11), ids[2].slice(0, 4)];
      const right = tokenBatch(seqs, 16, 7);
      const left = leftPadded(seqs, 16);
      const m = await OnnxTransformer.create(ck.config, ck.weights, { threads: 2, logits: true });
      const weights = toTensors(ck.model.layout, ck.weights);
      try {
        assertSame(await outputsOf(m, right), lossesAndLogits(ck, weights, right), seqs, V, 16, () => 0);
        assertSame(await outputsOf(m, left), lossesAndLogits(ck, weights, left), seqs, V, 16, (b) => 16 - seqs[b].length);
        // And each padded sequence computes what it computes alone.
        for (const [b, s] of seqs.entries()) {
          const alone = await m.nextTokenLosses(tokenBatch([s]));
          assert.deepEqual(Array.from((await m.nextTokenLosses(right))[b], (x) => x.toFixed(5)), Array.from(alone[0], (x) => x.toFixed(5)));
        }
      } finally {
        tf.dispose(weights);
        await m.release();
      }
    });
  }

  it("gpt2-tiny: new weights given to a built session are the weights the next call reads", async () => {
    await useBackend("wasm");
    const ck = await readHfCheckpoint(`${LM_FIXTURES}gpt2-tiny`);
    const batch = tokenBatch(referenceCases("gpt2-tiny")[0].input_ids);
    const m = await OnnxTransformer.create(ck.config, ck.weights, { threads: 1 });
    const moved = Float32Array.from(ck.weights, (w, i) => w * (1 + 0.25 * Math.sin(i)));
    const before = (await m.meanNextTokenLoss(batch)).loss;
    m.setWeights(moved);
    const after = (await m.meanNextTokenLoss(batch)).loss;
    const weights = toTensors(ck.model.layout, moved);
    try {
      const want = meanNextTokenLoss(ck.model, weights, batch).loss;
      assert.ok(Math.abs(after - before) > 1e-3, `the loss moved: ${before} -> ${after}`);
      assert.ok(relErr(after, want) <= 1e-5, `onnx ${after} vs wasm ${want}`);
    } finally {
      tf.dispose(weights);
      await m.release();
    }
  });
});

describe("onnx perturbed pass = materialised low-rank perturbations on tfjs-wasm", () => {
  for (const name of LM_FIXTURE_MODELS) {
    for (const rank of [1, 3]) {
      it(`${name}, rank ${rank}: 3 perturbations (an antithetic pair and another seed) in one call, padded groups`, async () => {
        await useBackend("wasm");
        const ck = await readHfCheckpoint(`${LM_FIXTURES}${name}`);
        const ids = referenceCases(name)[0].input_ids;
        // Group p: sequences 2p, 2p+1; lengths differ so groups pad differently.
        const seqs = [ids[0], ids[1].slice(0, 11), ids[2].slice(0, 4), ids[1], ids[2], ids[0].slice(0, 9)];
        const perturbations: LowRankPerturbation[] = [
          { seed: seedFrom("onnx-test", [1]), sign: 1 },
          { seed: seedFrom("onnx-test", [1]), sign: -1 },
          { seed: seedFrom("onnx-test", [2]), sign: 1 },
        ];
        const eps = 0.05;
        const m = await OnnxTransformer.create(ck.config, ck.weights, { threads: 1, perturbation: { rank } });
        try {
          const got = await m.perturbedLosses(tokenBatch(seqs), perturbations, eps);
          const moved = new Float32Array(ck.weights.length);
          for (const [p, q] of perturbations.entries()) {
            perturbLowRankJs(moved, ck.weights, ck.model.layout, q.seed, eps, rank, q.sign);
            const weights = toTensors(ck.model.layout, moved);
            const group = tokenBatch(seqs.slice(2 * p, 2 * p + 2));
            const want = meanNextTokenLoss(ck.model, weights, group).loss;
            tf.dispose(weights);
            const base = toTensors(ck.model.layout, ck.weights);
            const unmoved = meanNextTokenLoss(ck.model, base, group).loss;
            tf.dispose(base);
            assert.ok(relErr(got[p], want) <= 1e-5, `perturbation ${p}: onnx ${got[p]} vs materialised ${want}`);
            assert.ok(Math.abs(want - unmoved) > 1e-3, `perturbation ${p} moves the loss: ${unmoved} -> ${want}`);
          }
        } finally {
          await m.release();
        }
      });
    }
  }
});

describe("onnx transformer: refusals", () => {
  it("fixed initializers refuse new weights; a wrong weight count and zero threads are refused", async () => {
    const ck = await readHfCheckpoint(`${LM_FIXTURES}gpt2-tiny`);
    const fixed = await OnnxTransformer.create(ck.config, ck.weights, { threads: 1, placement: "initializers" });
    try {
      assert.throws(() => fixed.setWeights(ck.weights), (e: unknown) => e instanceof OnnxGraphError && e.code === "ONNX_WEIGHTS");
    } finally {
      await fixed.release();
    }
    await assert.rejects(
      OnnxTransformer.create(ck.config, ck.weights.subarray(1), { threads: 1, placement: "initializers" }),
      (e: unknown) => e instanceof OnnxGraphError && e.code === "ONNX_WEIGHTS",
    );
    await assert.rejects(
      OnnxTransformer.create(ck.config, ck.weights, { threads: 0 }),
      (e: unknown) => e instanceof OnnxSessionError && e.code === "ONNX_SESSION_FAILED",
    );
    const perturbed = await OnnxTransformer.create(ck.config, ck.weights, { threads: 1, perturbation: { rank: 1 } });
    const plain = await OnnxTransformer.create(ck.config, ck.weights, { threads: 1 });
    const batch = tokenBatch(referenceCases("gpt2-tiny")[0].input_ids);
    const one = [{ seed: seedFrom("onnx-test", [1]), sign: 1 as const }];
    try {
      await assert.rejects(perturbed.nextTokenLosses(batch), (e: unknown) => e instanceof OnnxGraphError && e.code === "ONNX_UNSUPPORTED");
      await assert.rejects(plain.perturbedLosses(batch, one, 0.1), (e: unknown) => e instanceof OnnxGraphError && e.code === "ONNX_UNSUPPORTED");
      // 3 sequences do not split into 2 groups.
      await assert.rejects(perturbed.perturbedLosses(batch, [...one, ...one], 0.1), RangeError);
    } finally {
      await perturbed.release();
      await plain.release();
    }
  });
});
