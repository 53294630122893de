/**
 * Language-model benchmarks (issue 13): the GPT-2-small-shaped forward on wasm (random weights,
 * batch 16 x 64, the next-token loss SPSA measures), the memory it takes, and the largest logit
 * error against transformers' outputs on the fixtures (wasm).
 */
import { cpus, loadavg } from "node:os";
import * as tf from "@tensorflow/tfjs";
import { readHfCheckpoint } from "../node/store/hf-checkpoint.js";
import { LM_FIXTURE_MODELS, LM_FIXTURES, referenceErrors } from "../test/helpers/lm-fixtures.js";
import { useBackend } from "../training/engine.js";
import { parseHfConfig } from "../training/hf/config.js";
import { initWeights } from "../training/models/model.js";
import { buildTransformer, type LanguageModel, type TokenBatch, tokenBatch } from "../training/models/transformer.js";
import { meanNextTokenLoss } from "../training/next-token-loss.js";
import { toTensors } from "../training/params.js";
import { fillUniform24 } from "../training/rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../training/rng/seeds.js";
import { fmt, type Section } from "./report.js";

/** GPT-2 small (124M): the config.json transformers writes for "gpt2", less what the forward ignores. */
const GPT2_SMALL = { model_type: "gpt2", vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12 };
export const BATCH = 16;
export const LENGTH = 64;
/** Timed forwards after one warm-up: each takes seconds on 2 cores. */
const REPS = 2;

const mib = (bytes: number) => bytes / 2 ** 20;

/** The GPT-2-small-shaped model of the language-model benchmarks, its random weights (seed 1) and layout. */
export function gpt2Small(): { model: LanguageModel; weights: Float32Array } {
  const model = buildTransformer(parseHfConfig(GPT2_SMALL));
  return { model, weights: initWeights(model.layout, 1) };
}

/** The benchmarks' batch: BATCH x LENGTH token ids drawn uniformly from GPT-2's vocabulary. */
export function benchBatch(): TokenBatch {
  const u = new Float32Array(BATCH * LENGTH);
  fillUniform24(streamOf(seedFrom("seedswarm/bench/lm", [1]), Purpose.Init, 0), u);
  return tokenBatch(Array.from({ length: BATCH }, (_, b) => Array.from(u.subarray(b * LENGTH, (b + 1) * LENGTH), (x) => Math.floor(x * 50257))));
}

export async function lmSection(): Promise<Section> {
  await useBackend("wasm");
  const rssStart = process.memoryUsage().rss;
  const { model, weights } = gpt2Small();
  const params = model.layout.size;
  const tensors = toTensors(model.layout, weights);
  const batch = benchBatch();
  meanNextTokenLoss(model, tensors, batch);
  const times: number[] = [];
  let cpuMs = 0;
  let peakRss = process.memoryUsage().rss;
  for (let i = 0; i < REPS; i++) {
    const t = performance.now();
    const cpu = process.cpuUsage();
    meanNextTokenLoss(model, tensors, batch);
    const used = process.cpuUsage(cpu);
    cpuMs += (used.user + used.system) / 1000 / REPS;
    times.push(performance.now() - t);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  const forwardMs = times.reduce((a, b) => a + b, 0) / times.length;
  tf.dispose(tensors);

  let maxLogitErr = 0;
  let maxLossErr = 0;
  const rows: string[] = [];
  for (const name of LM_FIXTURE_MODELS) {
    const e = referenceErrors(name, await readHfCheckpoint(`${LM_FIXTURES}${name}`));
    maxLogitErr = Math.max(maxLogitErr, e.logitErr);
    maxLossErr = Math.max(maxLossErr, e.lossErr);
    rows.push(`| ${name} | ${e.logitErr.toExponential(2)} | ${e.lossErr.toExponential(2)} |`);
  }
  const tokensPerS = (BATCH * LENGTH * 1000) / forwardMs;
  return {
    id: "lm",
    title: "Language models: GPT-2-small forward on wasm, error against transformers",
    command: "npm run bench -- --only lm",
    markdown: `One forward pass of a GPT-2-small-shaped model (${(params / 1e6).toFixed(1)}M parameters, random weights) on the wasm
backend at batch ${BATCH} x ${LENGTH} tokens, computing the mean next-token loss (what an SPSA perturbation measures:
every block, then the vocabulary projection of the ${BATCH * (LENGTH - 1)} predicted positions); mean of ${REPS} after one warm-up.
tfjs-wasm runs on one thread, so the process CPU time per forward (${fmt(cpuMs / 1000)} s) is what the wall time
(${fmt(forwardMs / 1000)} s) would be on an idle core; the two differ by how much the machine was shared (load average
${fmt(loadavg()[0])} on ${cpus().length} cores at the end of this run).
Process RSS grows by the canonical Float32Array (${fmt(mib(weights.byteLength))} MiB), the backend's copy of the
weights, XNNPACK's packed copy of every weight matrix (kept by the wasm backend) and one pass's activations:
${fmt(mib(peakRss - rssStart))} MiB in all here.

Error of the forward pass against Hugging Face transformers 5.17 on the fixtures (test/fixtures/lm), wasm backend:

| fixture | max abs logit error | max relative loss error |
|---|---|---|
${rows.join("\n")}`,
    figures: {
      lm_forward_tokens_per_s_wasm: tokensPerS,
      lm_forward_ms_124m_wasm: forwardMs,
      lm_forward_cpu_ms_124m_wasm: cpuMs,
      lm_forward_rss_growth_mib_124m: mib(peakRss - rssStart),
      lm_hf_max_logit_err: maxLogitErr,
      lm_hf_max_loss_rel_err: maxLossErr,
    },
  };
}
