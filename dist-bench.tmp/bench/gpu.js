/**
 * The gpu section (issue 14): on whatever WebGPU adapter Dawn finds (a real GPU where one is
 * there; here Mesa's lavapipe, selected with VK_DRIVER_FILES when no GPU driver is installed),
 * - gpu_update_bit_identical: weights after 100 canonical updates, WGSL kernel vs JS reference;
 * - gpu_update_ns_per_param_byte: the WGSL update's device time per parameter and gradient byte;
 * - gpu_enqueue_ms_per_forward: CPU time of the Node thread (the thread's own schedstat, so the
 *   driver's threads are not counted) per GPT-2-small-shaped forward through tfjs-webgpu;
 * - gpu_forward_ms / gpu_lm_tokens_per_s: wall time of that forward, read back;
 * - mixed_backend_swarm_identical: wasm, cpu and webgpu-update node processes, 50 iterations.
 * Runs unchanged on a GPU machine: `npm run bench -- --only gpu`.
 */
/// <reference types="@webgpu/types" />
import { existsSync, readFileSync } from "node:fs";
import * as tf from "@tensorflow/tfjs";
import { runMixedSwarm } from "../test/e2e/mixed-swarm.js";
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
import { fmt } from "./report.js";
const GPT2_SMALL = { model_type: "gpt2", vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12 };
const LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.json";
/** CPU time of the calling thread in ms (Linux: /proc/thread-self/schedstat, nanoseconds). */
function threadCpuMs() {
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
}
/** Sequences per forward: the issue's 16 x 64 on a GPU; fewer on a software driver (same dispatches). */
function batchFor(software) {
    const asked = Number(process.env.SEEDSWARM_BENCH_GPU_BATCH);
    return asked > 0 ? asked : software ? 2 : 16;
}
async function updateTiming(gpu, params, bytes) {
    const layout = layoutOf([{ name: "w", shape: [params], fanIn: 1, init: "zeros" }]);
    const buffer = gpu.weights(weightsFor("bench/gpu", params));
    const plans = planUpdate(stepsFor("bench/gpu", bytes), bytes, 1e-3);
    gpu.apply(buffer, layout, plans);
    await gpu.read(buffer, 1);
    const t = performance.now();
    const reps = 3;
    for (let i = 0; i < reps; i++)
        gpu.apply(buffer, layout, plans);
    await gpu.read(buffer, 1);
    buffer.destroy();
    const nonZero = plans.reduce((s, p) => s + p.steps.length, 0);
    return ((performance.now() - t) / reps / params / nonZero) * 1e6;
}
export async function gpuSection() {
    // No GPU driver installed: use lavapipe where it is, so the section still runs (and says so).
    if (!process.env.VK_DRIVER_FILES && !existsSync("/usr/share/vulkan/icd.d/nvidia_icd.json") && existsSync(LAVAPIPE_ICD))
        process.env.VK_DRIVER_FILES = LAVAPIPE_ICD;
    const dev = await openWebGpu();
    const kernels = new GpuSpsa(dev);
    const check = await compareUpdates(kernels, "bench", 100);
    const updateNs = await updateTiming(kernels, dev.software ? 1 << 20 : 1 << 24, 48);
    await useBackend("webgpu");
    // tfjs-webgpu binds the token embedding whole: where the adapter's binding limit is below its
    // 154 MB (lavapipe: 128 MiB) the vocabulary is cut to fit; the 12 blocks, hence the dispatches,
    // are GPT-2 small's either way.
    const tfDevice = tf.backend().device;
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
    if (deviceErrors > 0)
        throw new Error(`the forward pass raised ${deviceErrors} WebGPU errors on ${dev.adapterName}: its figures would be wrong`);
    const tokensPerS = (batchSize * length * 1000) / forwardMs;
    const swarm = await runMixedSwarm(50);
    await cleanup();
    const swarmOk = swarm.exits.every((e) => e.code === 0) && swarm.disagreed === 0 && swarm.compared >= 50;
    return {
        id: "gpu",
        title: `GPU (WebGPU through Dawn): ${dev.adapterName}`,
        command: "npm run bench -- --only gpu",
        markdown: `Adapter: **${dev.adapterName}**${dev.software ? " — a software driver (Mesa lavapipe on this machine's CPU cores): no GPU was lent to this run, so the speed figures measure the CPU, not a GPU; rerun the same command on a GPU machine" : ""}.

- \`gpu_update_bit_identical\`: ${check.params} weights in 7 ragged tensors after 100 canonical updates (1 to 60 bytes each, every 10th with 600 more on one direction so a class sum passes 2^24), WGSL kernel on the device vs the JS reference, compared byte for byte (${check.moved} weights moved, ${check.differing} differ).
- \`gpu_update_ns_per_param_byte\`: device time of the WGSL update per parameter and non-zero gradient byte (${dev.software ? "2^20" : "2^24"} parameters, 48 bytes; wasm SIMD on one core: see \`lm_update\`).
- \`gpu_enqueue_ms_per_forward\`: CPU time of the Node thread (its own /proc/thread-self/schedstat, so the driver's threads are not counted) to enqueue one GPT-2-small-shaped forward (12 layers, width 768, vocabulary projection included) through tfjs-webgpu 4.22, as is (no batching of perturbations yet), mean of ${reps}; batch ${batchSize} x ${length} tokens (the dispatch count does not depend on the batch${dev.software ? "; 2 sequences instead of 16 so that lavapipe finishes" : ""}); vocabulary ${vocab}${vocab < GPT2_SMALL.vocab_size ? ` instead of ${GPT2_SMALL.vocab_size}, so that the token embedding fits the adapter's ${tfDevice.limits.maxStorageBufferBindingSize / 2 ** 20} MiB storage binding limit` : ""}.
- \`gpu_forward_ms\`, \`gpu_lm_tokens_per_s\`: wall time of that forward, read back, and its tokens per second.
- \`mixed_backend_swarm_identical\`: a wasm node, a cpu node and a node whose canonical update runs in WGSL on this adapter (\`SEEDSWARM_UPDATE_KERNELS=webgpu\`, forward passes on wasm), real processes, 50 iterations of tiny-spsa: ${swarm.compared} checksum pairs compared, ${swarm.disagreed} differ (${fmt(swarm.seconds)} s).
- Not measured here: \`gpu_vs_torch_ratio\` (needs a GPU and python3 with torch), the low-rank figures (not built), a node training on tfjs-webgpu (its forward passes; the training loop reads losses synchronously: docs/architecture.md, "GPU").`,
        figures: {
            gpu_update_bit_identical: check.identical ? 1 : 0,
            gpu_adapter_is_software: dev.software ? 1 : 0,
            gpu_update_ns_per_param_byte: updateNs,
            gpu_enqueue_ms_per_forward: enqueueMs,
            gpu_forward_ms: forwardMs,
            gpu_lm_tokens_per_s: tokensPerS,
            gpu_forward_batch: batchSize,
            mixed_backend_swarm_identical: swarmOk ? 1 : 0,
        },
    };
}
//# sourceMappingURL=gpu.js.map