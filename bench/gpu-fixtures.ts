/**
 * The check behind `gpu_lm_fixture_max_rel_err`: the device pass on this adapter, every tiling,
 * against transformers' next-token losses of the three fixture checkpoints (test/fixtures/lm),
 * position by position. The unit test does the same on lavapipe; this runs it on any GPU.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readHfCheckpoint } from "../node/store/hf-checkpoint.js";
import { GpuLmForward } from "../training/gpu/lm-forward.js";
import { TILES } from "../training/gpu/lm-matmul-wgsl.js";
import type { WebGpu } from "../training/gpu/webgpu.js";
import { tokenBatch } from "../training/models/transformer.js";
import { seedFrom } from "../training/rng/seeds.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/lm/", import.meta.url));

/** Largest relative error of a per-position loss, over fixtures x tilings x cases, and how many were compared. */
export async function fixtureErrors(gpu: WebGpu): Promise<{ worst: number; positions: number; runs: number }> {
  let worst = 0;
  let positions = 0;
  let runs = 0;
  for (const name of ["gpt2-tiny", "opt-tiny", "llama-tiny"]) {
    const ck = await readHfCheckpoint(`${FIXTURES}${name}`);
    const cases = (JSON.parse(readFileSync(`${FIXTURES}${name}/reference.json`, "utf8")) as { cases: { input_ids: number[][]; next_token_nll: number[][] }[] }).cases;
    for (const tile of TILES) {
      const lm = new GpuLmForward(gpu, ck.config, ck.model.layout, 1, tile);
      lm.upload(ck.weights);
      for (const c of cases) {
        const T = c.input_ids[0].length;
        const nll = (await lm.losses(tokenBatch(c.input_ids, T), [{ seed: seedFrom("bench/fixtures", []), sign: 1 }], 0, { nll: true })).nll as Float32Array;
        c.next_token_nll.forEach((seq, b) =>
          seq.forEach((want, t) => {
            worst = Math.max(worst, Math.abs(nll[b * T + t] - want) / Math.abs(want));
            positions++;
          }),
        );
      }
      lm.destroy();
      runs++;
    }
  }
  return { worst, positions, runs };
}
