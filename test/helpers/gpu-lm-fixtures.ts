/**
 * The device pass against transformers' next-token losses of the fixture checkpoints
 * (test/fixtures/lm), position by position and per case's mean, on whatever adapter: the unit test
 * runs it on lavapipe, `gpu_lm_fixture_max_rel_err` on any GPU.
 */
import { readHfCheckpoint } from "../../node/store/hf-checkpoint.js";
import { GpuLmForward } from "../../training/gpu/lm-forward.js";
import { type Tile, TILES } from "../../training/gpu/lm-matmul-wgsl.js";
import type { WebGpu } from "../../training/gpu/webgpu.js";
import { tokenBatch } from "../../training/models/transformer.js";
import { seedFrom } from "../../training/rng/seeds.js";
import { LM_FIXTURE_MODELS, LM_FIXTURES, referenceCases } from "./lm-fixtures.js";

export interface FixtureRun {
  readonly model: string;
  readonly tile: Tile;
  /** Largest relative error of a per-position loss over the model's cases. */
  readonly worst: number;
  /** Largest relative error of a case's mean loss. */
  readonly worstMean: number;
  readonly positions: number;
}

/** Every (model, tiling) given, by default all three fixtures with every tiling. */
export async function fixtureErrors(
  gpu: WebGpu,
  runs: readonly (readonly [string, Tile])[] = LM_FIXTURE_MODELS.flatMap((m) => TILES.map((t) => [m, t] as const)),
): Promise<FixtureRun[]> {
  const out: FixtureRun[] = [];
  for (const [model, tile] of runs) {
    const ck = await readHfCheckpoint(`${LM_FIXTURES}${model}`);
    const lm = new GpuLmForward(gpu, ck.config, ck.model.layout, 1, tile);
    lm.upload(ck.weights);
    let worst = 0;
    let worstMean = 0;
    let positions = 0;
    for (const c of referenceCases(model)) {
      const T = c.input_ids[0].length;
      const r = await lm.losses(tokenBatch(c.input_ids, T), [{ seed: seedFrom("unused", []), sign: 1 }], 0, { nll: true });
      const nll = r.nll as Float32Array;
      c.next_token_nll.forEach((seq, b) =>
        seq.forEach((want, t) => {
          worst = Math.max(worst, Math.abs(nll[b * T + t] - want) / Math.abs(want));
          positions++;
        }),
      );
      worstMean = Math.max(worstMean, Math.abs(r.loss[0] - c.mean_loss) / c.mean_loss);
    }
    lm.destroy();
    out.push({ model, tile, worst, worstMean, positions });
  }
  return out;
}
