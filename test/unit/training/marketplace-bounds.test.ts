/**
 * Marketplace losses a peer may claim (issue 15): non-finite, negative and absurd losses are
 * invalid at validation, and V2's float32 statistics cannot overflow, so a crafted payload is
 * either rejected or harmless (training goes on, weights stay finite).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localAuthors } from "../../../node/local/local-trainer.js";
import { encodeContribution } from "../../../protocol/codec.js";
import {
  decodeV2,
  encodeV1,
  encodeV2,
  MAX_PATH_LOSS,
  v1PayloadProblem,
  v2PayloadProblem,
} from "../../../protocol/marketplace-payload.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { checkSignature } from "../../../protocol/signing.js";
import { toVerdict, validateContribution } from "../../../protocol/validation.js";
import type { Contribution } from "../../../training/algorithms/algorithm.js";
import { Marketplace } from "../../../training/algorithms/marketplace.js";
import { useBackend } from "../../../training/engine.js";
import { floatWeights } from "../../../training/params.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
import { signedContribution, testKeys } from "../../helpers/chain-keys.js";

/** A V2 payload with the given float32 base and step and one code per path. */
function v2(base: number, step: number, codes: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(8 + codes.length);
  const view = new DataView(out.buffer);
  view.setFloat32(0, base, true);
  view.setFloat32(4, step, true);
  out.set(Array.from(codes), 8);
  return out;
}

describe("Marketplace: losses a payload may claim", () => {
  it("V1: a non-finite, negative or absurd (> 2^32) loss is invalid; 0 .. 2^32 is valid", () => {
    for (const loss of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, -1e-30, 2 ** 33, 1e20, 3.4e38])
      assert.ok(v1PayloadProblem(encodeV1(loss, [1, 0]), 2, 4), `loss ${loss}`);
    assert.match(v1PayloadProblem(encodeV1(1e20, [1, 0]), 2, 4) ?? "", /above the highest loss a path may claim/);
    for (const loss of [0, 2.3, MAX_PATH_LOSS]) assert.equal(v1PayloadProblem(encodeV1(loss, [1, 0]), 2, 4), null);
  });

  it("V2: a payload whose highest code decodes above 2^32 is invalid, overflowing or not", () => {
    const codes = [0, 1, 255, 7];
    assert.equal(v2PayloadProblem(v2(0, Math.fround(MAX_PATH_LOSS / 256), codes), 4), null);
    assert.match(v2PayloadProblem(v2(0, Math.fround(1e20 / 255), codes), 4) ?? "", /highest loss .* above/);
    assert.match(v2PayloadProblem(v2(0, 3e38, codes), 4) ?? "", /highest loss Infinity/);
    assert.match(v2PayloadProblem(v2(1e20, 0, codes), 4) ?? "", /highest loss .* above/);
    assert.match(v2PayloadProblem(v2(Number.NaN, 1, codes), 4) ?? "", /base loss NaN/);
    assert.match(v2PayloadProblem(v2(1, Number.POSITIVE_INFINITY, codes), 4) ?? "", /loss step Infinity/);
  });

  it("V2 encoding: an absurd loss takes the worst code like a non-finite one; 2^32 itself stays valid", () => {
    const p = encodeV2([1, 2, 1e20, 1.5]);
    assert.equal(v2PayloadProblem(p, 4), null);
    assert.equal(p[8 + 2], 255);
    const d = decodeV2(p);
    assert.deepEqual([d[0], d[1], d[2]], [1, 2, 2]);
    assert.ok(Math.abs(d[3] - 1.5) <= 0.5 / 255 + 1e-7);
    for (const losses of [[0, MAX_PATH_LOSS], [0.1, MAX_PATH_LOSS, 7], [MAX_PATH_LOSS, MAX_PATH_LOSS]])
      assert.equal(v2PayloadProblem(encodeV2(losses), losses.length), null, `${losses}`);
  });

  it("gossip validation rejects a V2 contribution claiming a loss of 1e20", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-marketplace"]));
    const paths = run.algorithm.maxPayloadBytes - 8;
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
    const verdict = (payload: Uint8Array) =>
      toVerdict(() => validateContribution(encodeContribution(signedContribution(a, run.runId, 3, payload).m), ctx)).verdict;
    const losses = Array.from({ length: paths }, (_, j) => 2 + j / paths);
    assert.equal(verdict(encodeV2(losses)), "accept");
    losses[1] = 1e20; // an honest encoder codes it 255: still valid
    assert.equal(verdict(encodeV2(losses)), "accept");
    assert.equal(verdict(v2(0, Math.fround(1e20 / 255), new Uint8Array(paths).fill(3, 0, 1).fill(255, 1))), "reject");
  });
});

describe("Marketplace V2: overflow-safe statistics", () => {
  it("z-scores of losses up to float32's largest stay finite; in range they are unchanged", () => {
    const f = Math.fround;
    const scoresOf = (ls: number[][]) => Marketplace.scores(ls.map((l) => Float32Array.from(l)));
    for (const big of [1e20, 3.4e38, MAX_PATH_LOSS]) {
      const s = scoresOf([[1, 2, 3], [2.5, big]]);
      assert.ok(s, `no scores with a loss of ${big}`);
      for (const z of s.flatMap((a) => [...a])) assert.ok(Number.isFinite(z), `score ${z} with ${big}`);
      assert.ok(s[1][1] < 0 && s[0][0] > 0, "the absurd loss scores worst");
    }
    // A power-of-two rescaling is invisible to z-scores: 2^64 times the losses, the same scores.
    const small = [[1.25, 2, 3.5], [2.5, 0.75]];
    assert.deepEqual(scoresOf(small.map((l) => l.map((x) => f(x * 2 ** 64)))), scoresOf(small));
    assert.equal(scoresOf([[1, Number.POSITIVE_INFINITY]]), null);
  });

  it("a valid payload crafted for the worst spread is harmless: training continues, weights finite", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-marketplace"]));
    const r = initialReplica(run);
    const authors = localAuthors(3);
    const paths = run.algorithm.maxPayloadBytes - 8;
    const codes = Uint8Array.from({ length: paths }, (_, j) => (j % 2 === 0 ? 0 : 255));
    const hostile = v2(0, Math.fround(MAX_PATH_LOSS / 256), codes);
    assert.equal(run.algorithm.payloadProblem(hostile, 0), null);
    for (let t = 0; t < 4; t++) {
      const before = floatWeights(r.weights).slice();
      const cs: Contribution[] = authors.slice(0, 2).map((author) => ({ author, payload: run.algorithm.contribute(r, author) }));
      cs.push({ author: authors[2], payload: hostile });
      r.applyIteration(run.algorithm, cs);
      const w = floatWeights(r.weights);
      assert.ok(w.every(Number.isFinite), `iteration ${t}: a weight is not finite`);
      assert.ok(w.some((x, i) => x !== before[i]), `iteration ${t}: training stopped`);
    }
    // The payload of the issue (a path at 1e20) never reaches apply: it is refused there too.
    const w = floatWeights(r.weights).slice();
    assert.throws(() => run.algorithm.apply(w, r.iteration, [{ author: authors[2], payload: v2(0, Math.fround(1e20 / 255), codes) }]), /highest loss/);
    r.dispose();
  });
});
