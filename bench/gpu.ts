/**
 * The gpu section (issue 14): on whatever WebGPU adapter Dawn finds (a real GPU where one is
 * there; here Mesa's lavapipe, selected with VK_DRIVER_FILES when no GPU driver is installed),
 * - gpu_update_bit_identical: weights after 100 canonical updates, WGSL kernel vs JS reference;
 * - gpu_update_ns_per_param_byte: the WGSL update's device time per parameter and gradient byte;
 * - gpu_enqueue_ms_per_forward / gpu_lm_tokens_per_s: CPU time of the Node thread (the thread's
 *   own schedstat, so the driver's threads are not counted) per pass of seedswarm's own WebGPU
 *   GPT-2 forward (perturbations batched), and its tokens per second (gpu-lm.ts); with
 *   gpu_vs_torch_ratio where python3 has torch and a CUDA device;
 * - tfjs_webgpu_enqueue_ms_per_forward / tfjs_webgpu_forward_ms: the same model through tfjs-webgpu;
 * - mixed_backend_swarm_identical: wasm, cpu and webgpu-update node processes, 50 iterations.
 * Runs unchanged on a GPU machine: `npm run bench -- --only gpu`. A software driver's run is its
 * own section with `_software` figure names, so it never overwrites the last GPU's figures.
 */
/// <reference types="@webgpu/types" />
import { existsSync } from "node:fs";
import * as tf from "@tensorflow/tfjs";
import { runMixedSwarm } from "../test/e2e/mixed-swarm.js";
import { fixtureErrors } from "../test/helpers/gpu-lm-fixtures.js";
import { cleanup } from "../test/e2e/node-process.js";
import { compareUpdates } from "../test/helpers/gpu-update-check.js";
import { stepsFor, weightsFor } from "../test/helpers/spsa-inputs.js";
import { planUpdate } from "../training/algorithms/spsa-update.js";
import { useBackend } from "../training/engine.js";
import { GpuSpsa } from "../training/gpu/spsa-gpu.js";
import { openWebGpu } from "../training/gpu/webgpu.js";
import { parseHfConfig } from "../training/hf/config.js";
import { initWeights } from "../training/models/model.js";
import { buildTransformer, tokenBatch } from "../training/models/transformer.js";
import { layoutOf, toTensors } from "../training/params.js";
import { TILES } from "../training/gpu/lm-matmul-wgsl.js";
import { GPT2_SMALL, lmPassFigures, threadCpuMs } from "./gpu-lm.js";
import { fmt, type Section } from "./report.js";

const LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.json";

/** Sequences per forward: the issue's 16 x 64 on a GPU; fewer on a software driver (same dispatches). */
function batchFor(software: boolean): number {
  const asked = Number(process.env.SEEDSWARM_BENCH_GPU_BATCH);
  return asked > 0 ? asked : software ? 2 : 16;
}

async function updateTiming(gpu: GpuSpsa, params: number, bytes: number): Promise<number> {
  const layout = layoutOf([{ name: "w", shape: [params], fanIn: 1, init: "zeros" }]);
  const buffer = gpu.weights(weightsFor("bench/gpu", params));
  const plans = planUpdate(stepsFor("bench/gpu", bytes), bytes, 1e-3);
  gpu.apply(buffer, layout, plans);
  await gpu.read(buffer, 1);
  const t = performance.now();
  const reps = 3;
  for (let i = 0; i < reps; i++) gpu.apply(buffer, layout, plans);
  await gpu.read(buffer, 1);
  buffer.destroy();
  const nonZero = plans.reduce((s, p) => s + p.steps.length, 0);
  return ((performance.now() - t) / reps / params / nonZero) * 1e6;
}

export async function gpuSection(): Promise<Section> {
  // No GPU driver installed: use lavapipe where it is, so the section still runs (and says so).
  if (!process.env.VK_DRIVER_FILES && !existsSync("/usr/share/vulkan/icd.d/nvidia_icd.json") && existsSync(LAVAPIPE_ICD))
    process.env.VK_DRIVER_FILES = LAVAPIPE_ICD;
  const dev = await openWebGpu();
  const kernels = new GpuSpsa(dev);
  const check = await compareUpdates(kernels, "bench", 100);
  const updateNs = await updateTiming(kernels, dev.software ? 1 << 20 : 1 << 24, 48);
  const fixtureRuns = await fixtureErrors(dev);
  const fixtures = { worst: Math.max(...fixtureRuns.map((r) => r.worst)), runs: fixtureRuns.length, positions: fixtureRuns.reduce((s, r) => s + r.positions, 0) };
  const lm = await lmPassFigures(dev);
  const torchRatio = lm.torch ? lm.tokensPerS / lm.torch.tokens_per_s : null;
  const tuned = lm.tuning
    ? Object.entries(lm.tuning)
        .map(([k, v]) => `${k}: ${JSON.stringify(v.tile)} (${v.ms.map((m) => fmt(m)).join(" / ")} ms)`)
        .join("; ")
    : null;

  await useBackend("webgpu");
  // tfjs-webgpu binds the token embedding whole: where the adapter's binding limit is below its
  // 154 MB (lavapipe: 128 MiB) the vocabulary is cut to fit; the 12 blocks, hence the dispatches,
  // are GPT-2 small's either way.
  const tfDevice = (tf.backend() as unknown as { device: GPUDevice }).device;
  const vocab = Math.min(GPT2_SMALL.vocab_size, Math.floor(tfDevice.limits.maxStorageBufferBindingSize / (4 * GPT2_SMALL.n_embd)));
  let deviceErrors = 0;
  tfDevice.addEventListener("uncapturederror", () => deviceErrors++);
  const model = buildTransformer(parseHfConfig({ ...GPT2_SMALL, vocab_size: vocab }));
  const tensors = toTensors(model.layout, initWeights(model.layout, 1));
  const batchSize = batchFor(dev.software);
  const length = 64;
  const batch = tokenBatch(Array.from({ length: batchSize }, (_, b) => Array.from({ length }, (_, t) => (b * 7919 + t * 104729) % vocab)));
  const forward = () => tf.tidy(() => tf.sum(model.forward(tensors, batch)));
  await forward().data(); // warm-up: shader compilation
  const reps = dev.software ? 2 : 10;
  let enqueueMs = 0;
  const t = performance.now();
  for (let i = 0; i < reps; i++) {
    const cpu = threadCpuMs();
    const out = forward();
    enqueueMs += (threadCpuMs() - cpu) / reps;
    await out.data();
    out.dispose();
  }
  const forwardMs = (performance.now() - t) / reps;
  tf.dispose(tensors);
  if (deviceErrors > 0) throw new Error(`the forward pass raised ${deviceErrors} WebGPU errors on ${dev.adapterName}: its figures would be wrong`);
  const tokensPerS = (batchSize * length * 1000) / forwardMs;

  const swarm = await runMixedSwarm(50);
  await cleanup();
  const swarmOk = swarm.exits.every((e) => e.code === 0) && swarm.disagreed === 0 && swarm.compared >= 50;
  // A software driver's figures go under their own keys, so that a rerun without a GPU never
  // overwrites the last GPU's.
  const key = (k: string) => (dev.software ? `${k}_software` : k);
  return {
    id: dev.software ? "gpu-software" : "gpu",
    title: `GPU (WebGPU through Dawn): ${dev.adapterName}${dev.software ? " (software driver)" : ""}`,
    command: "npm run bench -- --only gpu",
    markdown: `Adapter: **${dev.adapterName}**${dev.software ? " — a software driver (Mesa lavapipe on this machine's CPU cores): no GPU was lent to this run, so the speed figures measure the CPU, not a GPU; rerun the same command on a GPU machine (a GPU's figures are kept under the names below; a software driver's carry `_software`)" : ""}.

- \`gpu_update_bit_identical\`: ${check.params} weights in 7 ragged tensors after 100 canonical updates (1 to 60 bytes each, every 10th with 600 more on one direction so a class sum passes 2^24), WGSL kernel on the device vs the JS reference, compared byte for byte (${check.moved} weights moved, ${check.differing} differ).
- \`gpu_update_ns_per_param_byte\`: device time of the WGSL update per parameter and non-zero gradient byte (${dev.software ? "2^20" : "2^24"} parameters, 48 bytes; wasm SIMD on one core: see \`lm_update\`).
- \`gpu_enqueue_ms_per_forward\`, \`gpu_lm_tokens_per_s\`: seedswarm's own WebGPU pass (training/gpu/lm-forward.ts) over a GPT-2-small-shaped model (12 layers, width 768, vocabulary ${lm.vocab}${lm.vocab < GPT2_SMALL.vocab_size ? ` instead of ${GPT2_SMALL.vocab_size}, so that the token embedding fits the adapter's binding limit` : ""}, random weights): ${lm.perturbations} low-rank perturbations (rank ${lm.rank}, ${lm.perturbations / 2} antithetic pairs) x ${lm.sequencesPerPerturbation} sequences x ${lm.length} tokens in one pass, up to each perturbation's mean next-token loss read back. Enqueue: CPU time of the Node thread (its own /proc/thread-self/schedstat, so the driver's threads are not counted) from the call to the submit (the directions' sign bits are drawn on the device: Philox in WGSL); mean of ${lm.reps}${dev.software ? "; 2 perturbations of 1 sequence on this software driver, so that it finishes (what the thread enqueues does not grow with the batch)" : ""}. Pass: ${fmt(lm.passMs)} ms wall, read back.${tuned ? ` Tiles chosen by timing each of ${TILES.length} on the device (ms per product, in lm-matmul-wgsl.ts's TILES order): ${tuned}.` : ""}
- \`gpu_vs_torch_ratio\`: ${lm.torch ? `tokens per second of that pass / PyTorch ${lm.torch.torch} on ${lm.torch.device} (transformers' GPT2LMHeadModel forward with its loss, float32, TF32 ${lm.torch.tf32 ? "on" : "off"}, attention ${lm.torch.attention}; the same ${lm.perturbations * lm.sequencesPerPerturbation} x ${lm.length} tokens, unperturbed; ${fmt(lm.torch.ms)} ms, ${fmt(lm.torch.tokens_per_s)} tokens/s; bench/torch-lm-forward.py)` : `not measured: ${lm.torchProblem}`}.
- \`tfjs_webgpu_enqueue_ms_per_forward\`, \`tfjs_webgpu_forward_ms\`, \`tfjs_webgpu_tokens_per_s\`: the same model's unperturbed forward through tfjs-webgpu 4.22, for comparison; batch ${batchSize} x ${length} tokens (its dispatch count does not depend on the batch${dev.software ? "; 2 sequences so that lavapipe finishes" : ""}); vocabulary ${vocab}; mean of ${reps}.
- \`mixed_backend_swarm_identical\`: a wasm node, a cpu node and a node whose canonical update runs in WGSL on this adapter (\`SEEDSWARM_UPDATE_KERNELS=webgpu\`, forward passes on wasm), real processes, 50 iterations of tiny-spsa: ${swarm.compared} checksum pairs compared, ${swarm.disagreed} differ (${fmt(swarm.seconds)} s).
- \`gpu_lm_fixture_max_rel_err\`: the pass on this adapter against transformers' next-token losses of the gpt2-tiny, opt-tiny and llama-tiny fixtures, every tiling (${fixtures.runs} runs, ${fixtures.positions} positions): the largest relative error.
- Not measured here: a node training with its forward passes on the device (\`--lm-forward webgpu\`; docs/architecture.md, "GPU").`,
    figures: Object.fromEntries(
      Object.entries({
      gpu_update_bit_identical: check.identical ? 1 : 0,
      gpu_adapter_is_software: dev.software ? 1 : 0,
      gpu_update_ns_per_param_byte: updateNs,
      gpu_lm_fixture_max_rel_err: fixtures.worst,
      gpu_enqueue_ms_per_forward: lm.enqueueMs,
      gpu_lm_pass_ms: lm.passMs,
      gpu_lm_tokens_per_s: lm.tokensPerS,
      gpu_lm_pass_tokens: lm.perturbations * lm.sequencesPerPerturbation * lm.length,
      ...(torchRatio === null ? {} : { gpu_vs_torch_ratio: torchRatio, torch_lm_tokens_per_s: (lm.torch as { tokens_per_s: number }).tokens_per_s }),
      tfjs_webgpu_enqueue_ms_per_forward: enqueueMs,
      tfjs_webgpu_forward_ms: forwardMs,
      tfjs_webgpu_tokens_per_s: tokensPerS,
      tfjs_webgpu_forward_batch: batchSize,
      mixed_backend_swarm_identical: swarmOk ? 1 : 0,
      })
        .filter(([k]) => !(dev.software && k === "gpu_adapter_is_software"))
        .map(([k, v]) => [key(k), v]),
    ),
  };
}

