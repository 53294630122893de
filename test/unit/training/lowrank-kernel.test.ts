/**
 * The low-rank canonical update with each matrix's product and epilogue in the WebAssembly kernel
 * (spsa-kernels.ts applyMatrix, assembly lowRankBlock) is bit-identical to the JavaScript loops:
 * ragged matrices and vectors, every gradient class, ranks 1 to 3, commits of 1 to 600 bytes
 * (past the float32-exact bound the loops keep the matrix), weights outside and inside the
 * kernels' memory, and a matrix wide enough to be cut into column blocks.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyLowRankJs, exactInFloat32 } from "../../../training/algorithms/lowrank.js";
import { SpsaKernels } from "../../../training/algorithms/spsa-kernels.js";
import { planPasses, planUpdate, type Step } from "../../../training/algorithms/spsa-update.js";
import { layoutOf, type ParamLayout } from "../../../training/params.js";
import { seedFrom } from "../../../training/rng/seeds.js";

const ragged = layoutOf([
  { name: "emb", shape: [97, 24], fanIn: 97, init: "zeros" },
  { name: "w1", shape: [24, 43], fanIn: 24, init: "zeros" },
  { name: "b1", shape: [43], fanIn: 24, init: "zeros" },
  { name: "conv", shape: [3, 3, 5, 7], fanIn: 45, init: "zeros" },
  { name: "w2", shape: [43, 1], fanIn: 43, init: "zeros" },
]);
// K x cols = 600 x 4100 floats is over half the kernel's scratch: B^T goes in column blocks.
const wide = layoutOf([{ name: "wide", shape: [9, 4100], fanIn: 9, init: "zeros" }]);

function weightsOf(layout: ParamLayout, seed: number, into: Float32Array<ArrayBufferLike> = new Float32Array(layout.size)): Float32Array<ArrayBufferLike> {
  let x = seed;
  for (let i = 0; i < into.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    into[i] = ((x >>> 8) / 2 ** 24 - 0.5) * (i % 7 === 0 ? 1e-3 : 1);
  }
  return into;
}

/** m bytes spread over every code (so every class), some zero; or all at +-127. */
function steps(m: number, salt: number, extreme = false): Step[] {
  return Array.from({ length: m }, (_, q) => ({
    seed: seedFrom("test/lowrank-kernel", [salt, q]),
    byte: extreme ? (q % 2 ? -127 : 127) : ((q * 37 + salt * 11) % 255) - 127,
  }));
}

const bitsEqual = (a: Float32Array<ArrayBufferLike>, b: Float32Array<ArrayBufferLike>) => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;

describe("the low-rank canonical update in WebAssembly (exact products)", () => {
  it("bit-identical to the JavaScript loops: every class, ranks 1-3, 1 to 600 bytes, lr 1e-6 to 0.5, weights outside and inside the kernels' memory", () => {
    const outside = new SpsaKernels();
    const inside = new SpsaKernels(ragged.size);
    let fast = 0;
    let total = 0;
    for (const rank of [1, 2, 3]) {
      for (const [m, extreme] of [[1, false], [48, false], [48, true], [200, false], [600, true]] as const) {
        for (const lr of [1e-6, 0.02, 0.5]) {
          const s = steps(m, rank * 1000 + m, extreme);
          const want = weightsOf(ragged, m + rank);
          const got = want.slice();
          const own = weightsOf(ragged, m + rank, inside.arena);
          for (const plans of planPasses(s, m, lr)) {
            applyLowRankJs(want, ragged, plans, rank);
            applyLowRankJs(got, ragged, plans, rank, outside);
            applyLowRankJs(own, ragged, plans, rank, inside);
            total++;
            if (plans.every((p) => exactInFloat32(p, rank))) fast++;
          }
          const what = `rank ${rank}, ${m} bytes${extreme ? " of +-127" : ""}, lr ${lr}`;
          assert.ok(bitsEqual(want, got), `${what}: weights outside the kernels' memory not bit-identical`);
          assert.ok(bitsEqual(want, own), `${what}: weights in the kernels' memory not bit-identical`);
          assert.ok(!bitsEqual(want, weightsOf(ragged, m + rank)), "the update moved the weights");
        }
      }
    }
    // Both paths ran: most passes in the kernel, the large extreme commits past the bound on the loops.
    assert.ok(fast >= 30 && fast < total, `${fast} of ${total} passes in the kernel`);
    // 400 bytes of +-127: 400 steps of 2^15 in class 7, a bound of 13.1M < 2^24 at rank 1; at rank 2 over it.
    const [big] = planUpdate(steps(400, 1, true), 400, 0.02);
    assert.equal(exactInFloat32(big, 1), true);
    assert.equal(exactInFloat32(big, 2), false, "past 2^24 the loops keep the matrix");
  });

  it("a matrix cut into column blocks (600 steps x 4,100 columns) is bit-identical too", () => {
    const kernels = new SpsaKernels();
    const s = steps(600, 7);
    const plans = planPasses(s, 600, 0.02);
    assert.equal(plans.length, 1);
    assert.ok(plans[0].every((p) => exactInFloat32(p, 1)), "the kernel takes this commit");
    const want = weightsOf(wide, 3);
    const got = want.slice();
    applyLowRankJs(want, wide, plans[0], 1);
    applyLowRankJs(got, wide, plans[0], 1, kernels);
    assert.ok(bitsEqual(want, got));
    assert.ok(!bitsEqual(want, weightsOf(wide, 3)));
  });
});
