import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { FullRankPairs } from "../../../training/algorithms/fullrank-forward.js";
import { Spsa } from "../../../training/algorithms/spsa.js";
import { perturbJs } from "../../../training/algorithms/spsa-update.js";
import { sampleBatch } from "../../../training/data/dataset.js";
import { useBackend } from "../../../training/engine.js";
import { batchTensors, lossOn } from "../../../training/evaluate.js";
import { imageClassificationTask } from "../../../training/tasks/image-classification.js";
import { buildModel, initWeights } from "../../../training/models/model.js";
import { toTensors } from "../../../training/params.js";
import { Replica } from "../../../training/replica.js";
import { localAuthors } from "../../../node/local/local-trainer.js";
import { seedFrom } from "../../../training/rng/seeds.js";
import { openRun } from "../../../training/run-context.js";

/** tiny-spsa with two hidden layers, so a deeper layer's stacked weights are exercised twice. */
const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], model: { ...PRESETS["tiny-spsa"].model, hidden: [8, 6] } });

describe("full-rank pairs in batched passes", () => {
  it("gives every pair the loss of its materialised perturbed weights, in one group or many", async () => {
    await useBackend("wasm");
    const run = await openRun(spec);
    const model = buildModel(run.model.spec);
    const w = initWeights(model.layout, 3);
    const seeds = [0, 1, 2, 3, 4].map((j) => seedFrom("test/fullrank/pairs", [j]));
    const eps = Math.fround(0.05);
    const want = seeds.map((seed) => {
      const { x, y } = batchTensors(sampleBatch(run.dataset.train, 16, seed, 16), model.spec.inputShape);
      const loss = ([1, -1] as const).map((sign) => {
        const p = new Float32Array(w.length);
        perturbJs(p, w, model.layout, seed, eps, sign);
        const t = toTensors(model.layout, p);
        const l = lossOn(model, t, x, y);
        tf.dispose(t);
        return l;
      });
      tf.dispose([x, y]);
      return loss;
    });
    // A pair stacks its first layer once (16*8 + 8 = 136 floats) and the deeper 82 twice: 300
    // floats, so 700 floats make groups of 2, 2 and 1.
    for (const source of [new FullRankPairs(model, run.dataset.train), new FullRankPairs(model, run.dataset.train, 700)]) {
      const { plus, minus } = source.losses(w, seeds, 16, eps);
      assert.equal(plus.length, seeds.length);
      assert.equal(minus.length, seeds.length);
      seeds.forEach((_, j) => {
        for (const [got, exp] of [[plus[j], want[j][0]], [minus[j], want[j][1]]]) {
          assert.ok(Math.abs(got - exp) < 1e-5 * Math.max(1, exp), `pair ${j}: ${got} vs ${exp}`);
        }
      });
      assert.ok(plus.some((l, j) => l !== minus[j]), "the two signs measure different weights");
    }
  });

  it("makes the same contribution bytes as the materialised path", async () => {
    await useBackend("wasm");
    const mlp = parseRunSpec(PRESETS["tiny-spsa"]);
    const run = await openRun(mlp);
    const model = buildModel(run.model.spec);
    const runId = runIdOf(mlp);
    const batched = new Spsa(runId, mlp, model, imageClassificationTask(model, run.dataset.train), { pairs: new FullRankPairs(model, run.dataset.train) });
    const one = new Spsa(runId, mlp, model, imageClassificationTask(model, run.dataset.train));
    const replica = new Replica(runId, model, initWeights(model.layout, 1), 0);
    let differ = 0;
    for (const author of localAuthors(4)) {
      const a = batched.contribute(replica, author);
      const b = one.contribute(replica, author);
      // A byte may move by one code where a loss difference sits on a rounding boundary.
      a.forEach((x, j) => {
        const d = Math.abs(((x << 24) >> 24) - ((b[j] << 24) >> 24));
        assert.ok(d <= 1, `byte ${j}: ${x} vs ${b[j]}`);
        if (d) differ++;
      });
      assert.equal(one.audit(replica, author, a), null, "the batched bytes pass the materialised audit");
    }
    assert.ok(differ <= 2, `${differ} of 32 bytes differ by a code`);
    replica.dispose();
  });
});
