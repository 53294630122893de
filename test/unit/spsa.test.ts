import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localAuthors, localIteration } from "../../node/local-trainer.js";
import { PRESETS } from "../../protocol/presets.js";
import { algorithmOf, parseRunSpec } from "../../protocol/run-spec.js";
import type { Contribution } from "../../training/algorithms/algorithm.js";
import type { Spsa } from "../../training/algorithms/spsa.js";
import { useBackend } from "../../training/engine.js";
import { evaluate } from "../../training/evaluate.js";
import { initialReplica, openRun } from "../../training/run-context.js";

const spec = parseRunSpec(PRESETS["tiny-spsa"]);

describe("SPSA with one-byte gradients", () => {
  it("lowers the loss on synthetic data in a few seconds", async () => {
    await useBackend("wasm");
    const run = await openRun(spec);
    const replica = initialReplica(run);
    const before = evaluate(run.model, replica.backend.tensors, run.dataset.train);
    const authors = localAuthors(2);
    const t0 = performance.now();
    while (replica.iteration < 150) localIteration(run, replica, authors);
    const after = evaluate(run.model, replica.backend.tensors, run.dataset.train);
    const test = evaluate(run.model, replica.backend.tensors, run.dataset.test);
    assert.ok(after.loss < 0.6 * before.loss, `loss ${before.loss} -> ${after.loss}`);
    assert.ok(test.accuracy > 0.8, `test accuracy ${test.accuracy}`);
    assert.ok(performance.now() - t0 < 60_000);
    replica.dispose();
  });

  it("apply is order-independent of input order, and rejects malformed payloads", async () => {
    await useBackend("wasm");
    const run = await openRun(spec);
    const a = initialReplica(run);
    const b = initialReplica(run);
    const authors = localAuthors(3);
    const cs: Contribution[] = authors.map((author) => ({
      author,
      payload: run.algorithm.contribute(a, author),
    }));
    a.applyIteration(run.algorithm, cs);
    b.applyIteration(run.algorithm, [cs[2], cs[0], cs[1]]);
    assert.equal(a.checksum(), b.checksum());
    const spsa = run.algorithm as Spsa;
    assert.match(spsa.payloadProblem(new Uint8Array(3)) ?? "", /3 bytes, the run needs 8/);
    assert.match(spsa.payloadProblem(new Uint8Array(8).fill(0x80)) ?? "", /-128/);
    const w = a.weights.slice();
    assert.throws(
      () => run.algorithm.apply(w, 1, [{ author: authors[0], payload: new Uint8Array(2) }]),
      /needs 8/,
    );
    assert.throws(
      () => a.applyIteration(run.algorithm, [cs[0], cs[0]]),
      /two contributions from author/,
    );
    a.dispose();
    b.dispose();
  });

  it("a zero byte leaves the weights unchanged; a non-zero one moves every weight by lr*g/m", async () => {
    await useBackend("wasm");
    const run = await openRun(spec);
    const r = initialReplica(run);
    const [author] = localAuthors(1);
    const w0 = r.weights.slice();
    run.algorithm.apply(r.weights, 0, [{ author, payload: new Uint8Array(8) }]);
    assert.deepEqual(r.weights, w0);
    const payload = new Uint8Array(8);
    payload[0] = 88; // dequantizes to exactly 1
    run.algorithm.apply(r.weights, 0, [{ author, payload }]);
    const step = Math.fround(Math.fround(-algorithmOf(spec, "spsa").schedule.lr) / 8);
    let moved = 0;
    for (let i = 0; i < w0.length; i++) {
      const d = Math.abs(r.weights[i] - w0[i]);
      if (d > 0) moved += 1;
      assert.ok(Math.abs(d - Math.abs(step)) < 1e-6, `weight ${i} moved by ${d}`);
    }
    assert.equal(moved, w0.length);
    r.dispose();
  });
});
