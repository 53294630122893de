/**
 * Issue 42, first slice: the GPT-2-small-shaped forward (random weights, 16 x 64 tokens, the mean
 * next-token loss SPSA measures) on onnxruntime's CPU provider (training/onnx) with 1 and 2
 * threads, and on tfjs-wasm in the same process, one after the other.
 */
import { cpus, loadavg } from "node:os";
import * as tf from "@tensorflow/tfjs";
import { perturbLowRankJs } from "../training/algorithms/lowrank.js";
import { useBackend } from "../training/engine.js";
import { meanNextTokenLoss } from "../training/next-token-loss.js";
import { OnnxTransformer } from "../training/onnx/index.js";
import { toTensors } from "../training/params.js";
import { seedFrom } from "../training/rng/seeds.js";
import { BATCH, benchBatch, gpt2Small, LENGTH } from "./lm.js";
import { fmt, median, type Section } from "./report.js";

/** Timed onnx forwards per configuration, after one warm-up. */
const REPS = 5;
/** tfjs-wasm takes ~30 s a forward here: one warm-up and two timed, as the lm section does. */
const WASM_REPS = 2;
/** Perturbations of the perturbed pass: 8 antithetic pairs, one sequence each. */
const PERTURBATIONS = BATCH;
const EPS = 1e-3;

const gib = (bytes: number) => bytes / 2 ** 30;

async function timedMs(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

export async function lmCpuSection(): Promise<Section> {
  const load0 = loadavg()[0];
  const { model, weights } = gpt2Small();
  const batch = benchBatch();
  const tokens = BATCH * LENGTH;
  const rssBase = process.memoryUsage().rss;

  /** Wall ms and process CPU ms of one call. */
  const measure = async (fn: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> => {
    const cpu = process.cpuUsage();
    const ms = await timedMs(fn);
    const used = process.cpuUsage(cpu);
    return { ms, cpuMs: (used.user + used.system) / 1000 };
  };
  const plainTwo = () => two.meanNextTokenLoss(batch);

  // 1 and 2 threads, alternating so both see the same load; RSS of the unperturbed forward.
  const one = await OnnxTransformer.create(model.config, weights, { threads: 1 });
  const two = await OnnxTransformer.create(model.config, weights, { threads: 2 });
  const lossOnnx = (await one.meanNextTokenLoss(batch)).loss;
  await plainTwo();
  const run1: { ms: number; cpuMs: number }[] = [];
  const run2: { ms: number; cpuMs: number }[] = [];
  let peakRss = process.memoryUsage().rss;
  for (let i = 0; i < REPS; i++) {
    run1.push(await measure(() => one.meanNextTokenLoss(batch)));
    run2.push(await measure(plainTwo));
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  const ms1 = run1.map((r) => r.ms);
  const ms2 = run2.map((r) => r.ms);
  const cpuMs1 = median(run1.map((r) => r.cpuMs));
  const cpuMs2 = median(run2.map((r) => r.cpuMs));
  const build = two.build;
  await one.release();

  // The same 1,024 tokens as PERTURBATIONS groups of one sequence, each at its own rank-1 direction,
  // alternating with the unperturbed 2-thread pass.
  const perturbed = await OnnxTransformer.create(model.config, weights, { threads: 2, perturbation: { rank: 1 } });
  const directions = Array.from({ length: PERTURBATIONS }, (_, i) => ({
    seed: seedFrom("seedswarm/bench/lm-cpu", [i >> 1]),
    sign: i % 2 === 0 ? (1 as const) : (-1 as const),
  }));
  await perturbed.perturbedLosses(batch, directions, EPS);
  const msPerturbed: number[] = [];
  const msPlainBeside: number[] = [];
  let perturbedRss = process.memoryUsage().rss;
  for (let i = 0; i < REPS; i++) {
    msPerturbed.push(await timedMs(() => perturbed.perturbedLosses(batch, directions, EPS)));
    perturbedRss = Math.max(perturbedRss, process.memoryUsage().rss);
    msPlainBeside.push(await timedMs(plainTwo));
  }
  const perturbedBuild = perturbed.build;
  await perturbed.release();
  // What the perturbed pass avoids per perturbation: one materialised copy of the weights (the fallback lowrank.ts path).
  const copy = new Float32Array(weights.length);
  const materialiseMs = await timedMs(async () => perturbLowRankJs(copy, weights, model.layout, directions[0].seed, EPS, 1, 1));

  // Weights as constant initializers: a new session for every new set of weights.
  const fixed = await OnnxTransformer.create(model.config, weights, { threads: 1, placement: "initializers" });
  await fixed.meanNextTokenLoss(batch);
  const msFixed: number[] = [];
  for (let i = 0; i < 3; i++) msFixed.push(await timedMs(() => fixed.meanNextTokenLoss(batch)));
  const fixedRss = process.memoryUsage().rss;
  const fixedBuild = fixed.build;
  await fixed.release();

  // tfjs-wasm, each forward followed by a 2-thread onnx forward: the ratio compares neighbours.
  await useBackend("wasm");
  const tensors = toTensors(model.layout, weights);
  const lossWasm = meanNextTokenLoss(model, tensors, batch).loss;
  const runWasm: { ms: number; cpuMs: number }[] = [];
  const msTwoBeside: number[] = [];
  for (let i = 0; i < WASM_REPS; i++) {
    runWasm.push(await measure(async () => meanNextTokenLoss(model, tensors, batch)));
    msTwoBeside.push(await timedMs(plainTwo));
  }
  const msWasm = runWasm.map((r) => r.ms);
  const cpuMsWasm = median(runWasm.map((r) => r.cpuMs));
  tf.dispose(tensors);
  await two.release();

  const tps = (ms: number[]) => (tokens * 1000) / median(ms);
  const t1 = tps(ms1);
  const t2 = tps(ms2);
  const tWasm = tps(msWasm);
  const tFixed = tps(msFixed);
  const tPerturbed = tps(msPerturbed);
  const perturbedRatio = median(msPlainBeside) / median(msPerturbed);
  const wasmRatio = median(msWasm) / median(msTwoBeside);
  const perCpuS = (cpuMs: number) => (tokens * 1000) / cpuMs;
  const lossDiff = Math.abs(lossOnnx - lossWasm) / Math.abs(lossWasm);
  return {
    id: "lm-cpu",
    title: "Language models at the CPU's speed: GPT-2-small forward on onnxruntime (issue 42)",
    command: "npm run bench -- --only lm-cpu",
    markdown: `The forward of the lm section (GPT-2-small shape, ${(model.layout.size / 1e6).toFixed(1)}M parameters, random weights,
${BATCH} x ${LENGTH} tokens, the mean next-token loss of the ${BATCH * (LENGTH - 1)} predicted positions) on onnxruntime-node 1.30's CPU
provider (\`training/onnx\`: the graph built in TypeScript, weights fed as inputs over the canonical Float32Array), with 1
and 2 intra-op threads, and on tfjs-wasm (one thread) in the same process. Medians of ${REPS} forwards after a warm-up
(onnx) and of ${WASM_REPS} (wasm). The machine is shared (load average ${fmt(load0)} at the start, ${fmt(loadavg()[0])} at the end, on
${cpus().length} cores), so every comparison is between neighbouring runs: 1 and 2 threads alternate, the perturbed pass
alternates with the plain 2-thread pass, and each wasm forward is followed by a 2-thread onnx forward.

| engine | ms per forward | tokens/s | tokens per CPU-second |
|---|---|---|---|
| onnxruntime, 1 thread | ${fmt(median(ms1))} | ${fmt(t1)} | ${fmt(perCpuS(cpuMs1))} |
| onnxruntime, 2 threads | ${fmt(median(ms2))} | ${fmt(t2)} | ${fmt(perCpuS(cpuMs2))} |
| onnxruntime, 2 threads, ${PERTURBATIONS} rank-1 perturbations x 1 sequence, one call | ${fmt(median(msPerturbed))} | ${fmt(tPerturbed)} | |
| onnxruntime, 1 thread, weights as initializers | ${fmt(median(msFixed))} | ${fmt(tFixed)} | |
| tfjs-wasm | ${fmt(median(msWasm))} | ${fmt(tWasm)} | ${fmt(perCpuS(cpuMsWasm))} |

2 threads against 1: ${fmt(t2 / t1)}x, the 2-thread session getting ${fmt(cpuMs2 / median(ms2))} cores' worth of CPU per forward
(when other work holds a core it gets about one, and 2 threads run no faster than 1). onnxruntime on 2 threads against tfjs-wasm, neighbouring forwards:
${fmt(wasmRatio)}x. How much the load moved during the run shows in the plain 2-thread pass itself: ${fmt(t2)} tokens/s
beside the 1-thread pass, ${fmt(tps(msPlainBeside))} beside the perturbed pass, ${fmt(tps(msTwoBeside))} beside wasm. Mean losses: onnx ${lossOnnx.toFixed(6)},
wasm ${lossWasm.toFixed(6)} (relative difference ${lossDiff.toExponential(2)}).

The perturbed pass (low-rank directions as graph inputs, rows grouped by perturbation: x W + (x A)(s B^T); host factors
included) runs at ${fmt(perturbedRatio)}x the speed of the plain 2-thread pass beside it; materialising one perturbed copy of
the weights instead (lowrank.ts perturbLowRankJs, what the tfjs forward needs) costs ${fmt(materialiseMs)} ms per
perturbation before its forward. Its graph: ${fmt(perturbedBuild.modelBytes / 1024)} KiB, ${fmt(perturbedBuild.graphMs + perturbedBuild.sessionMs)} ms to build; the process's
RSS reached ${fmt(gib(perturbedRss))} GiB with it (its grouped logits and their deltas are [16, 63, 50257] floats each).

Building the plain graph takes ${fmt(build.graphMs)} ms (${fmt(build.modelBytes / 1024)} KiB of ONNX: the weights are not in it) and its
session ${fmt(build.sessionMs)} ms. With the weights as initializers inside the model instead (${fmt(fixedBuild.modelBytes / 2 ** 20)} MiB) the forward ran
at ${fmt(tFixed / t1)}x the 1-thread inputs figure, but the session takes
${fmt((fixedBuild.graphMs + fixedBuild.sessionMs) / 1000)} s to build for every new set of weights and the process held ${fmt(gib(fixedRss))} GiB;
so the inputs placement is the default.
RSS of the unperturbed forward: ${fmt(gib(peakRss))} GiB at most while the 1- and 2-thread sessions ran (${fmt(gib(rssBase))} GiB before
them: Node, tfjs and the canonical weights, ${fmt(gib(weights.byteLength))} GiB); onnxruntime keeps no copy of input weights.

PyTorch is compared in the lm-engine section (\`npm run bench -- --only lm-engine\`), both figures of each ratio from one run.`,
    figures: {
      lm_cpu_tokens_per_s_1t: t1,
      lm_cpu_tokens_per_s_2t: t2,
      lm_cpu_thread_scaling: t2 / t1,
      lm_cpu_vs_wasm_ratio: wasmRatio,
      lm_cpu_tokens_per_s_wasm: tWasm,
      lm_cpu_tokens_per_cpu_s_1t: perCpuS(cpuMs1),
      lm_cpu_tokens_per_cpu_s_wasm: perCpuS(cpuMsWasm),
      lm_cpu_tokens_per_s_1t_initializers: tFixed,
      lm_cpu_perturbed_tokens_per_s_2t: tPerturbed,
      lm_cpu_perturbed_vs_plain_ratio: perturbedRatio,
      lm_cpu_materialise_ms_124m: materialiseMs,
      lm_cpu_rss_gib_124m: gib(peakRss),
      lm_cpu_perturbed_rss_gib_124m: gib(perturbedRss),
      lm_cpu_graph_build_ms: build.graphMs,
      lm_cpu_session_build_ms: build.sessionMs,
      lm_cpu_session_build_ms_initializers: fixedBuild.graphMs + fixedBuild.sessionMs,
      lm_cpu_loss_rel_diff_vs_wasm: lossDiff,
    },
  };
}
