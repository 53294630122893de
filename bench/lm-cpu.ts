/**
 * Issue 42, first slice: the GPT-2-small-shaped forward (random weights, 16 x 64 tokens, the mean
 * next-token loss SPSA measures) on onnxruntime's CPU provider (training/onnx) with 1 and 2
 * threads, and on tfjs-wasm in the same process, one after the other.
 */
import { cpus, loadavg } from "node:os";
import * as tf from "@tensorflow/tfjs";
import { useBackend } from "../training/engine.js";
import { meanNextTokenLoss } from "../training/next-token-loss.js";
import { OnnxTransformer } from "../training/onnx/index.js";
import { toTensors } from "../training/params.js";
import { BATCH, benchBatch, gpt2Small, LENGTH } from "./lm.js";
import { fmt, median, type Section } from "./report.js";

/** Timed onnx forwards per thread count, after one warm-up; the two sessions alternate so both see the same load. */
const REPS = 5;
/** tfjs-wasm takes ~30 s a forward here: one warm-up and two timed, as the lm section does. */
const WASM_REPS = 2;

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

  const one = await OnnxTransformer.create(model.config, weights, { threads: 1 });
  const two = await OnnxTransformer.create(model.config, weights, { threads: 2 });
  const lossOnnx = (await one.meanNextTokenLoss(batch)).loss;
  await two.meanNextTokenLoss(batch);
  const ms1: number[] = [];
  const ms2: number[] = [];
  let cpuMs2 = 0;
  let peakRss = process.memoryUsage().rss;
  for (let i = 0; i < REPS; i++) {
    ms1.push(await timedMs(() => one.meanNextTokenLoss(batch)));
    const cpu = process.cpuUsage();
    ms2.push(await timedMs(() => two.meanNextTokenLoss(batch)));
    const used = process.cpuUsage(cpu);
    cpuMs2 += (used.user + used.system) / 1000 / REPS;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  const build = two.build;
  await one.release();
  await two.release();

  // Weights as constant initializers: prepacked, but a new session for every new set of weights.
  const fixed = await OnnxTransformer.create(model.config, weights, { threads: 1, placement: "initializers" });
  await fixed.meanNextTokenLoss(batch);
  const msFixed: number[] = [];
  for (let i = 0; i < 3; i++) msFixed.push(await timedMs(() => fixed.meanNextTokenLoss(batch)));
  const fixedRss = process.memoryUsage().rss;
  const fixedBuild = fixed.build;
  await fixed.release();

  await useBackend("wasm");
  const tensors = toTensors(model.layout, weights);
  const lossWasm = meanNextTokenLoss(model, tensors, batch).loss;
  const msWasm: number[] = [];
  for (let i = 0; i < WASM_REPS; i++) msWasm.push(await timedMs(async () => meanNextTokenLoss(model, tensors, batch)));
  tf.dispose(tensors);

  const tps = (ms: number[]) => (tokens * 1000) / median(ms);
  const t1 = tps(ms1);
  const t2 = tps(ms2);
  const tWasm = tps(msWasm);
  const tFixed = tps(msFixed);
  const lossDiff = Math.abs(lossOnnx - lossWasm) / Math.abs(lossWasm);
  return {
    id: "lm-cpu",
    title: "Language models at the CPU's speed: GPT-2-small forward on onnxruntime (issue 42)",
    command: "npm run bench -- --only lm-cpu",
    markdown: `The forward of the lm section (GPT-2-small shape, ${(model.layout.size / 1e6).toFixed(1)}M parameters, random weights,
${BATCH} x ${LENGTH} tokens, the mean next-token loss of the ${BATCH * (LENGTH - 1)} predicted positions) on onnxruntime-node 1.30's CPU
provider (\`training/onnx\`: the graph built in TypeScript, weights fed as inputs over the canonical Float32Array), with 1
and 2 intra-op threads, and on tfjs-wasm (one thread) in the same process. Median of ${REPS} forwards after a warm-up
(onnx; the 1- and 2-thread sessions alternate) and of ${WASM_REPS} (wasm).

| engine | ms per forward | tokens/s |
|---|---|---|
| onnxruntime, 1 thread | ${fmt(median(ms1))} | ${fmt(t1)} |
| onnxruntime, 2 threads | ${fmt(median(ms2))} | ${fmt(t2)} |
| onnxruntime, 1 thread, weights as initializers | ${fmt(median(msFixed))} | ${fmt(tFixed)} |
| tfjs-wasm | ${fmt(median(msWasm))} | ${fmt(tWasm)} |

2 threads against 1: ${fmt(t2 / t1)}x; onnxruntime on 2 threads against tfjs-wasm: ${fmt(t2 / tWasm)}x. The machine is shared
(load average ${fmt(load0)} at the start, ${fmt(loadavg()[0])} at the end, on ${cpus().length} cores), so the thread scaling
here says little about an idle machine: the 2-thread session used ${fmt(cpuMs2 / 1000)} s of CPU per forward of
${fmt(median(ms2) / 1000)} s wall, i.e. ${fmt(cpuMs2 / median(ms2))} cores' worth. Mean losses: onnx ${lossOnnx.toFixed(6)}, wasm ${lossWasm.toFixed(6)} (relative difference
${lossDiff.toExponential(2)}).

Building the graph takes ${fmt(build.graphMs)} ms (${fmt(build.modelBytes / 1024)} KiB of ONNX: the weights are not in it) and the
session ${fmt(build.sessionMs)} ms. With the weights as initializers inside the model instead (${fmt(fixedBuild.modelBytes / 2 ** 20)} MiB),
onnxruntime may prepack them; the forward ran at ${fmt(tFixed / t1)}x the 1-thread inputs figure (no clear gain), and the session takes
${fmt((fixedBuild.graphMs + fixedBuild.sessionMs) / 1000)} s to build for every new set of weights and the process held
${fmt(gib(fixedRss))} GiB; so the inputs placement is the default.
RSS: ${fmt(gib(peakRss))} GiB at most while both input-placement sessions ran (${fmt(gib(rssBase))} GiB before them: Node, tfjs and the
canonical weights, ${fmt(gib(weights.byteLength))} GiB); onnxruntime keeps no copy of input weights.

No PyTorch figure: python3-torch is not installed on this machine (an earlier trial, not rerun here, gave ~376
tokens/s for PyTorch + OpenBLAS and ~424 for onnxruntime on 2 threads).`,
    figures: {
      lm_cpu_tokens_per_s_1t: t1,
      lm_cpu_tokens_per_s_2t: t2,
      lm_cpu_thread_scaling: t2 / t1,
      lm_cpu_vs_wasm_ratio: t2 / tWasm,
      lm_cpu_tokens_per_s_wasm: tWasm,
      lm_cpu_tokens_per_s_1t_initializers: tFixed,
      lm_cpu_rss_gib_124m: gib(peakRss),
      lm_cpu_graph_build_ms: build.graphMs,
      lm_cpu_session_build_ms: build.sessionMs,
      lm_cpu_session_build_ms_initializers: fixedBuild.graphMs + fixedBuild.sessionMs,
      lm_cpu_loss_rel_diff_vs_wasm: lossDiff,
    },
  };
}
