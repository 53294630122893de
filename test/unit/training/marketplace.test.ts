import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localAuthors, localIteration } from "../../../node/local/local-trainer.js";
import { MAX_PAYLOAD_BYTES } from "../../../protocol/limits.js";
import {
  decodeV1,
  decodeV2,
  encodeV1,
  encodeV2,
  v1PayloadProblem,
  v2PayloadProblem,
} from "../../../protocol/marketplace-payload.js";
import { encodeContribution } from "../../../protocol/codec.js";
import { PRESETS } from "../../../protocol/presets.js";
import {
  algorithmOf,
  imageModelOf,
  parseRunSpec,
  type RunSpec,
  runIdOf,
} from "../../../protocol/run-spec.js";
import { RunSpecError } from "../../../protocol/spec-fields.js";
import { checkSignature } from "../../../protocol/signing.js";
import { toVerdict, validateContribution } from "../../../protocol/validation.js";
import { signedContribution, testKeys } from "../../helpers/chain-keys.js";
import type { Contribution } from "../../../training/algorithms/algorithm.js";
import { Marketplace } from "../../../training/algorithms/marketplace.js";
import { basePathIndex, planPaths } from "../../../training/algorithms/marketplace-paths.js";
import { sampleBatch } from "../../../training/data/dataset.js";
import { useBackend } from "../../../training/engine.js";
import { batchTensors, evaluate, lossOn } from "../../../training/evaluate.js";
import { floatWeights, toTensors } from "../../../training/params.js";
import { fillUniform24 } from "../../../training/rng/noise.js";
import { Purpose, seedFrom, sharedBatchSeed, streamOf, vendorSeed } from "../../../training/rng/seeds.js";
import { lrAt } from "../../../training/schedule.js";
import { initialReplica, openRun } from "../../../training/run-context.js";

const tiny = PRESETS["tiny-marketplace"];

function withAlgorithm(base: RunSpec, algorithm: Record<string, unknown>): RunSpec {
  return parseRunSpec({ ...base, algorithm: { ...base.algorithm, ...algorithm } });
}

/** A small CNN run on synthetic 28x28 data: 3 specs, 2 vendors, upstream sampling of 1. */
const cnnSpec = parseRunSpec({
  version: 1,
  name: "tiny-cnn-marketplace",
  model: { kind: "cnn", inputShape: [28, 28, 1], classes: 10 },
  dataset: { kind: "synthetic", features: 784, classes: 10, trainSize: 64, testSize: 16, seed: 3 },
  algorithm: {
    kind: "marketplace",
    version: 1,
    vendors: 3,
    specs: [2, 2, 1],
    batchSize: 4,
    probeScale: 1,
    schedule: { lr: 0.05, warmup: 0, minFactor: 1 },
    upstreamSampling: 2,
  },
  seed: 2,
  iterations: 10,
  roundTimeoutMs: 1000,
});

/** Loss of plain weights on the iteration's shared batch, as one ordinary forward pass. */
async function sharedBatchLoss(spec: RunSpec, weights: Float32Array, iteration: number): Promise<number> {
  const run = await openRun(spec);
  const shape = imageModelOf(spec).inputShape;
  const batch = sampleBatch(
    run.dataset.train,
    shape[0] * shape[1] * shape[2],
    sharedBatchSeed(run.runId, iteration),
    (spec.algorithm as { batchSize: number }).batchSize,
  );
  const { x, y } = batchTensors(batch, shape);
  const w = toTensors(run.model.layout, weights);
  const loss = lossOn(run.model, w, x, y);
  w.forEach((t) => t.dispose());
  x.dispose();
  y.dispose();
  return loss;
}

describe("Marketplace RunSpec", () => {
  it("accepts the presets and names the bad field otherwise", () => {
    for (const name of ["tiny-marketplace", "mnist-mlp-marketplace-v1", "mnist-mlp-marketplace-v2", "mnist-cnn-marketplace-v1", "mnist-cnn-marketplace-v2"] as const)
      assert.equal(parseRunSpec(PRESETS[name]).algorithm.kind, "marketplace");
    const bad = (algorithm: Record<string, unknown>, re: RegExp) =>
      assert.throws(
        () => withAlgorithm(tiny, algorithm),
        (e: unknown) => e instanceof RunSpecError && e.code === "RUNSPEC_INVALID" && re.test(e.message),
      );
    bad({ version: 3 }, /algorithm.version must be 1 or 2/);
    bad({ specs: [1] }, /algorithm.specs .* summing to the model's 2 layers/);
    bad({ specs: [0, 2] }, /algorithm.specs/);
    bad({ vendors: 1 }, /algorithm.vendors must be an integer in 2..256/);
    bad({ vendors: 64 }, new RegExp(`do not fit the ${MAX_PAYLOAD_BYTES}-byte payload limit`));
    bad({ jitter: 1 }, /algorithm.jitter is not a known field/);
    // 64 vendors fit V1 (a path is 4 + 2 bytes) and V2 with upstream sampling.
    assert.equal(withAlgorithm(tiny, { vendors: 64, version: 1 }).algorithm.kind, "marketplace");
    assert.equal(withAlgorithm(tiny, { vendors: 64, upstreamSampling: 60 }).algorithm.kind, "marketplace");
  });

  it("upstreamSampling 0 means all: the same run as leaving it out", () => {
    assert.equal(runIdOf(withAlgorithm(tiny, { upstreamSampling: 0 })), runIdOf(parseRunSpec(tiny)));
  });
});

describe("Marketplace payloads", () => {
  it("V1 round-trips loss and path; problems are named", () => {
    const p = encodeV1(0.123456789, [3, 0, 7]);
    assert.equal(p.length, 7);
    const d = decodeV1(p);
    assert.equal(d.loss, Math.fround(0.123456789));
    assert.deepEqual([...d.path], [3, 0, 7]);
    assert.equal(v1PayloadProblem(p, 3, 8), null);
    assert.match(v1PayloadProblem(p, 3, 7) ?? "", /vendor 7 at spec 2 is not below 7/);
    assert.match(v1PayloadProblem(p, 2, 8) ?? "", /7 bytes, the run needs 6/);
    assert.match(v1PayloadProblem(encodeV1(Number.NaN, [0]), 1, 2) ?? "", /not a finite/);
  });

  it("V2 quantizes losses to 8 bits over their range; non-finite losses get the worst code", () => {
    const losses = [2.3, 2.25, 2.41, 2.3001, Number.NaN, 2.2];
    const p = encodeV2(losses);
    assert.equal(p.length, 8 + losses.length);
    assert.equal(v2PayloadProblem(p, losses.length), null);
    const d = decodeV2(p);
    const step = (2.41 - 2.2) / 255;
    for (const [j, l] of losses.entries())
      if (Number.isFinite(l)) assert.ok(Math.abs(d[j] - l) <= step / 2 + 1e-6, `${l} -> ${d[j]}`);
    assert.equal(p[8 + 4], 255);
    assert.equal(d[5], Math.fround(2.2));
    assert.deepEqual([...decodeV2(encodeV2([1, 1, 1]))], [1, 1, 1]);
    const neg = p.slice();
    new DataView(neg.buffer).setFloat32(4, -1, true);
    assert.match(v2PayloadProblem(neg, losses.length) ?? "", /step -1/);
    assert.match(v2PayloadProblem(p, 5) ?? "", /14 bytes, the run needs 13/);
  });
});

describe("Marketplace payloads on the wire", () => {
  it("gossip validation asks the algorithm: any byte may be fine, an impossible loss is rejected", async () => {
    await useBackend("wasm");
    const spec = withAlgorithm(tiny, { version: 1 });
    const run = await openRun(spec);
    const ctx = {
      runId: run.runId,
      head: 3,
      window: 2,
      maxPayloadBytes: run.algorithm.maxPayloadBytes,
      payloadProblem: (p: Uint8Array, t: number) => run.algorithm.payloadProblem(p, t),
      seen: () => "new" as const,
      checkSignature,
    };
    const [a] = await testKeys(1);
    const msg = (payload: Uint8Array) => encodeContribution(signedContribution(a, run.runId, 3, payload).m);
    assert.equal(toVerdict(() => validateContribution(msg(encodeV1(64.25, [1, 3])), ctx)).verdict, "accept");
    // Loss 1.0 is float32 bytes 00 00 80 3f: 0x80 is invalid only in SPSA's one-byte gradients.
    assert.equal(toVerdict(() => validateContribution(msg(Uint8Array.of(0, 0, 0x80, 0x3f, 1, 1)), ctx)).verdict, "accept");
    assert.equal(toVerdict(() => validateContribution(msg(encodeV1(-1, [1, 3])), ctx)).verdict, "reject");
    assert.equal(toVerdict(() => validateContribution(msg(encodeV1(1, [4, 0])), ctx)).verdict, "reject");
  });
});

describe("Marketplace path plan", () => {
  it("without sampling: M^N distinct paths, vendor-major, base path first", () => {
    const a = withAlgorithm(PRESETS["mnist-cnn-marketplace-v1"], { vendors: 3 }).algorithm;
    assert.equal(a.kind, "marketplace");
    if (a.kind !== "marketplace") return;
    const plan = planPaths(a);
    assert.deepEqual(plan.products, [3, 9, 27]);
    const keys = new Set<string>();
    for (let j = 0; j < 27; j++) keys.add(plan.paths.subarray(3 * j, 3 * j + 3).join(","));
    assert.equal(keys.size, 27);
    // product 5 of spec 2 = vendor 0 on upstream 5 = (vendor 1 on spec-0 product 2)
    assert.deepEqual([...plan.paths.subarray(3 * 5, 3 * 5 + 3)], [2, 1, 0]);
    assert.equal(basePathIndex(plan), 0);
  });

  it("with sampling: each vendor takes its seeded subset, and paths follow it", () => {
    assert.equal(cnnSpec.algorithm.kind, "marketplace");
    if (cnnSpec.algorithm.kind !== "marketplace") return;
    const seed = seedFrom("t", [1]);
    const plan = planPaths(cnnSpec.algorithm, seed);
    assert.deepEqual(plan.products, [3, 6, 6]);
    assert.deepEqual(planPaths(cnnSpec.algorithm, seed), plan, "deterministic");
    assert.notDeepEqual(planPaths(cnnSpec.algorithm, seedFrom("t", [2])).inputs, plan.inputs);
    for (let s = 1; s < 3; s++)
      for (let v = 0; v < 3; v++) {
        const take = plan.inputs[s][v];
        assert.equal(take.length, 2);
        assert.ok(take[0] < take[1] && take[1] < plan.products[s - 1]);
      }
    // Last spec: path of product v*2+j is the path of spec-1 product inputs[2][v][j], then v.
    const prev = planPaths({ ...cnnSpec.algorithm, specs: [2, 3] }, seed); // same spec-1 products
    for (let v = 0; v < 3; v++)
      for (let j = 0; j < 2; j++) {
        const p = plan.paths.subarray(3 * (2 * v + j), 3 * (2 * v + j) + 3);
        assert.equal(p[2], v);
        assert.deepEqual([...p.subarray(0, 2)], [...prev.paths.subarray(2 * plan.inputs[2][v][j], 2 * plan.inputs[2][v][j] + 2)]);
      }
  });
});

describe("Marketplace algorithm", () => {
  it("path bookkeeping: each path's deltas, evaluated alone, reproduce its loss (MLP, and CNN with sampling)", async () => {
    await useBackend("wasm");
    for (const spec of [withAlgorithm(tiny, { version: 1 }), cnnSpec]) {
      const run = await openRun(spec);
      const alg = run.algorithm as Marketplace;
      const r = initialReplica(run);
      const [author] = localAuthors(1);
      localIteration(run, r, [author]); // iteration 1: weights and vendors are not the initial ones
      const payload = alg.contribute(r, author);
      const e = alg.lastEvaluation;
      assert.ok(e);
      const { loss, path } = decodeV1(payload);
      assert.equal(loss, Math.min(...e.losses), "V1 sends the lowest loss");
      const n = e.plan.specs;
      for (let j = 0; j < e.losses.length; j++) {
        // A V1 payload for path j moves the weights to exactly that path's vendors.
        const w = floatWeights(r.weights).slice();
        alg.apply(w, r.iteration, [{ author, payload: encodeV1(e.losses[j], e.plan.paths.subarray(j * n, j * n + n)) }]);
        const alone = await sharedBatchLoss(spec, w, r.iteration);
        assert.ok(Math.abs(alone - e.losses[j]) <= 1e-5 * Math.max(1, alone), `${spec.name} path ${j}: ${alone} vs ${e.losses[j]}`);
        if (e.plan.paths.subarray(j * n, j * n + n).join() === path.join()) assert.ok(Math.abs(alone - loss) <= 1e-5 * Math.max(1, alone));
      }
      r.dispose();
    }
  });

  it("every author measures on the same batch: their base paths have the same loss", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(tiny));
    const alg = run.algorithm as Marketplace;
    const r = initialReplica(run);
    const [a, b] = localAuthors(2);
    const la = alg.evaluatePaths(r, a);
    const lb = alg.evaluatePaths(r, b);
    assert.equal(la.losses[basePathIndex(la.plan)], lb.losses[basePathIndex(lb.plan)]);
    assert.notDeepEqual([...la.losses], [...lb.losses], "but their own vendors");
    r.dispose();
  });

  it("V2 direction equals a straightforward float64 reference (two authors)", async () => {
    await useBackend("wasm");
    const spec = parseRunSpec(tiny);
    const run = await openRun(spec);
    const alg = run.algorithm as Marketplace;
    const r = initialReplica(run);
    const authors = localAuthors(2);
    const cs: Contribution[] = authors.map((author) => ({ author, payload: alg.contribute(r, author) }));
    const t = r.iteration;
    const w = r.weights.slice();
    alg.apply(w, t, cs);

    // Reference: every path's full delta vector times its z-score, summed, per spec normalized.
    const losses = cs.flatMap((c) => [...decodeV2(c.payload)]);
    const mean = losses.reduce((s, l) => s + l, 0) / losses.length;
    const std = Math.sqrt(losses.reduce((s, l) => s + (l - mean) ** 2, 0) / (losses.length - 1));
    const lr = lrAt(algorithmOf(spec, "marketplace").schedule, t, spec.iterations);
    const layout = run.model.layout;
    const ranges = [
      [0, layout.tensors[2].offset],
      [layout.tensors[2].offset, layout.size],
    ];
    const expected = Float64Array.from(r.weights);
    for (const [s, [start, end]] of ranges.entries()) {
      const d = new Float64Array(end - start);
      let j = 0;
      for (const c of cs) {
        const plan = alg.planFor(t, c.author);
        for (let p = 0; p < plan.paths.length / 2; p++, j++) {
          const v = plan.paths[2 * p + s];
          if (v === 0) continue; // vendor 0: no delta
          const score = -(losses[j] - mean) / std;
          const seed = vendorSeed(run.runId, t, c.author, s, v);
          for (const ti of [2 * s, 2 * s + 1]) {
            const tl = layout.tensors[ti];
            const u = new Float32Array(tl.size);
            fillUniform24(streamOf(seed, Purpose.Vendor, ti), u);
            for (let i = 0; i < tl.size; i++) d[tl.offset - start + i] += score * (2 * u[i] - 1);
          }
        }
      }
      const norm = Math.sqrt(d.reduce((acc, x) => acc + x * x, 0));
      for (let i = 0; i < d.length; i++) expected[start + i] += (lr * d[i]) / norm;
    }
    let maxErr = 0;
    let moved = 0;
    for (let i = 0; i < w.length; i++) {
      maxErr = Math.max(maxErr, Math.abs(w[i] - expected[i]));
      moved = Math.max(moved, Math.abs(w[i] - r.weights[i]));
    }
    assert.ok(moved > 1e-3, `the update moved the weights (max ${moved})`);
    assert.ok(maxErr < 1e-5, `max |apply - reference| = ${maxErr}`);
    r.dispose();
  });

  it("apply is deterministic and order-free; V1 ties go to the earlier author; bad payloads throw", async () => {
    await useBackend("wasm");
    for (const version of [1, 2]) {
      const run = await openRun(withAlgorithm(tiny, { version }));
      const a = initialReplica(run);
      const b = initialReplica(run);
      const authors = localAuthors(3);
      const cs = authors.map((author) => ({ author, payload: run.algorithm.contribute(a, author) }));
      a.applyIteration(run.algorithm, cs);
      b.applyIteration(run.algorithm, [cs[2], cs[0], cs[1]]);
      assert.equal(a.checksum(), b.checksum());
      assert.throws(() => run.algorithm.apply(a.weights.slice(), 1, [{ author: authors[0], payload: new Uint8Array(3) }]), /needs/);
      a.dispose();
      b.dispose();
    }
    const run = await openRun(withAlgorithm(tiny, { version: 1 }));
    const [x, y] = localAuthors(2);
    const w0 = initialReplica(run).weights;
    const apply = (cs: Contribution[]) => {
      const w = w0.slice();
      run.algorithm.apply(w, 0, cs);
      return w;
    };
    const tie = [
      { author: x, payload: encodeV1(0.5, [1, 0]) },
      { author: y, payload: encodeV1(0.5, [2, 3]) },
    ];
    assert.deepEqual(apply(tie), apply([tie[0]]));
    assert.notDeepEqual(apply(tie), apply([tie[1]]));
    assert.deepEqual(apply([{ author: x, payload: encodeV1(0.1, [0, 0]) }]), w0, "base path: no change");
  });

  it("V1 and V2 lower the loss of the tiny problem, more authors exploring more vendors", async () => {
    await useBackend("wasm");
    for (const version of [1, 2]) {
      // V1's jitter is lr * probeScale: a bigger probe than V2's.
      const run = await openRun(withAlgorithm(tiny, version === 1 ? { version, probeScale: 1 } : {}));
      const r = initialReplica(run);
      const before = evaluate(run.model, r.backend.tensors, run.dataset.train).loss;
      while (r.iteration < 60) localIteration(run, r, localAuthors(2));
      const after = evaluate(run.model, r.backend.tensors, run.dataset.train).loss;
      assert.ok(after < 0.75 * before, `V${version}: loss ${before} -> ${after}`);
      r.dispose();
    }
  });
});
