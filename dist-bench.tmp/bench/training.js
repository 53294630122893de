/**
 * Training-core benchmarks (issue 2): backend forward throughput, RNG and canonical-apply cost,
 * the SPSA noise budget, and SPSA vs backprop on MNIST.
 */
import * as tf from "@tensorflow/tfjs";
import { localAuthors, localIteration } from "../node/local/local-trainer.js";
import { PRESETS } from "../protocol/presets.js";
import { algorithmOf, parseRunSpec } from "../protocol/run-spec.js";
import { applyUpdateJs, planUpdate } from "../training/algorithms/spsa-update.js";
import { BackpropTrainer } from "../training/backprop.js";
import { sampleBatch } from "../training/data/dataset.js";
import { loadMnist } from "../training/data/mnist.js";
import { useBackend } from "../training/engine.js";
import { batchTensors, evaluate, lossOn } from "../training/evaluate.js";
import { buildModel, initWeights } from "../training/models/model.js";
import { floatWeights, toTensors } from "../training/params.js";
import { rademacherBits } from "../training/rng/noise.js";
import { contributionSeed, Purpose, seedFrom, streamOf } from "../training/rng/seeds.js";
import { initialReplica, openRun } from "../training/run-context.js";
import { fmt, timeMs } from "./report.js";
const MNIST = [28, 28, 1];
/** Examples per second of the plain forward pass for a model on the active backend. */
function forwardRate(kind, batch, reps) {
    const spec = kind === "mlp"
        ? { kind, inputShape: MNIST, hidden: [32], classes: 10 }
        : { kind, inputShape: MNIST, classes: 10 };
    const model = buildModel(spec);
    const w = toTensors(model.layout, initWeights(model.layout, 1));
    const x = tf.randomUniform([batch, 28, 28, 1]);
    const ms = timeMs(() => tf.tidy(() => model.forward(w, x).dataSync()), reps, 2);
    tf.dispose([...w, x]);
    return (batch * 1000) / ms;
}
export async function forwardSection() {
    const rows = [];
    const rate = {};
    for (const backend of ["wasm", "cpu"]) {
        await useBackend(backend);
        rate[`${backend}_mlp`] = forwardRate("mlp", 256, backend === "cpu" ? 10 : 50);
        rate[`${backend}_cnn`] = forwardRate("cnn", backend === "cpu" ? 8 : 64, backend === "cpu" ? 2 : 5);
    }
    for (const kind of ["mlp", "cnn"]) {
        rows.push(`| ${kind} | ${fmt(rate[`wasm_${kind}`])} | ${fmt(rate[`cpu_${kind}`])} | ${fmt(rate[`wasm_${kind}`] / rate[`cpu_${kind}`])}x |`);
    }
    const speedup = Math.sqrt((rate.wasm_mlp / rate.cpu_mlp) * (rate.wasm_cnn / rate.cpu_cnn));
    return {
        id: "forward",
        title: "Forward throughput: wasm vs pure-JS cpu backend",
        command: "npm run bench -- --only forward",
        markdown: `Examples per second of one forward pass (MLP 784-32-10 at batch 256; the article's CNN at batch 64 on wasm, 8 on cpu).
\`wasm_cpu_forward_speedup\` is the geometric mean of the two speedups.

| model | wasm (ex/s) | cpu (ex/s) | speedup |
|---|---|---|---|
${rows.join("\n")}`,
        figures: {
            wasm_cpu_forward_speedup: speedup,
            forward_wasm_mlp_examples_per_s: rate.wasm_mlp,
            forward_wasm_cnn_examples_per_s: rate.wasm_cnn,
        },
    };
}
export async function costSection() {
    await useBackend("wasm");
    const n = 1 << 20;
    const bits = new Uint32Array(n / 32);
    const seed = seedFrom("bench", [1]);
    const rngMs = timeMs(() => rademacherBits(streamOf(seed, Purpose.Noise, 0), n, bits), 20);
    // Canonical apply on the MNIST MLP: 64 contribution bytes (4 authors x 16 perturbations).
    const spec = parseRunSpec(PRESETS["mnist-mlp-spsa"]);
    const run = await openRun(spec, syntheticMnistShaped());
    const weights = initWeights(run.model.layout, 1);
    const contributions = localAuthors(4).map((author) => ({
        author,
        payload: Uint8Array.from({ length: 16 }, (_, j) => 80 + j),
    }));
    // Enough warm-up calls for V8 to swap in its optimized code for the kernels.
    const applyMs = timeMs(() => run.algorithm.apply(weights, 0, contributions), 50, 100);
    const applyNs = (applyMs * 1e6) / (64 * run.model.layout.size);
    // The JavaScript reference of the same rule (the fallback where the kernels cannot load).
    const plans = planUpdate(contributions.flatMap((c) => Array.from(c.payload, (byte, j) => ({ byte: (byte << 24) >> 24, seed: contributionSeed(run.runId, 0, c.author, j) }))), 64, 1e-3);
    const applyJsMs = timeMs(() => applyUpdateJs(weights, run.model.layout, plans), 10);
    const noise = await noiseBudget(run.spec, run.dataset);
    return {
        id: "cost",
        title: "RNG, canonical apply and the SPSA noise budget",
        command: "npm run bench -- --only cost",
        markdown: `- RNG: Rademacher signs for 2^20 parameters (one Philox4x32-10 block per 128 parameters).
- Apply: the canonical update of the 784-32-10 MLP (${run.model.layout.size} parameters) with 4 contributions x 16 bytes, per parameter per byte (sign regeneration included), as SPSA runs it (${run.algorithm.kernels ? "WebAssembly SIMD" : "JavaScript: the kernels did not load"}); the JavaScript reference of the same rule: ${fmt((applyJsMs * 1e6) / (64 * run.model.layout.size))} ns.
- Noise budget (MLP, batch 256, one perturbation): generating the noise and writing w +/- eps z (${fmt(noise.perturbMs)} ms), uploading and releasing the perturbed tensors (${fmt(noise.uploadMs)} ms), and applying 4 one-byte contributions (${fmt(noise.applyMs)} ms), against the two forward passes that measure the loss difference (${fmt(noise.forwardMs)} ms). Target <= 10%.`,
        figures: {
            rng_ns_per_param: (rngMs * 1e6) / n,
            apply_ns_per_param: applyNs,
            apply_js_ns_per_param: (applyJsMs * 1e6) / (64 * run.model.layout.size),
            noise_budget_ratio: (noise.perturbMs + noise.uploadMs + noise.applyMs) / noise.forwardMs,
        },
    };
}
/** A dataset shaped like MNIST (no file I/O) for cost measurements that do not need real data. */
function syntheticMnistShaped() {
    const n = 1024;
    const x = new Float32Array(n * 784).map((_, i) => (i % 251) / 251);
    const y = Uint8Array.from({ length: n }, (_, i) => i % 10);
    return { name: "shaped", inputShape: MNIST, classes: 10, train: { x, y, n }, test: { x, y, n } };
}
async function noiseBudget(spec, ds) {
    const s = parseRunSpec({
        ...spec,
        algorithm: { ...spec.algorithm, batchSize: 256, perturbations: 1 },
    });
    const run = await openRun(s, ds);
    const spsa = run.algorithm;
    const replica = initialReplica(run);
    const author = localAuthors(1)[0];
    const seed = contributionSeed(run.runId, 0, author, 0);
    const batch = sampleBatch(ds.train, 784, seed, 256);
    const { x, y } = batchTensors(batch, MNIST);
    const reps = 200;
    const plus = toTensors(run.model.layout, replica.weights);
    const uploadMs = timeMs(() => tf.dispose(toTensors(run.model.layout, replica.weights)), reps);
    // The perturbation is made tensor by tensor as it is uploaded: its cost is that less a plain upload.
    const wf = floatWeights(replica.weights);
    const perturbedUploadMs = timeMs(() => {
        tf.dispose(spsa.perturbedTensors(wf, seed, 1));
        tf.dispose(spsa.perturbedTensors(wf, seed, -1));
    }, reps);
    const perturbMs = Math.max(0, perturbedUploadMs - 2 * uploadMs);
    const forwardMs = 2 * timeMs(() => lossOn(run.model, plus, x, y), reps);
    const four = localAuthors(4).map((a) => ({ author: a, payload: Uint8Array.of(90) }));
    const w = replica.weights.slice();
    const applyMs = timeMs(() => run.algorithm.apply(w, 0, four), reps);
    tf.dispose([...plus, x, y]);
    replica.dispose();
    return { perturbMs, uploadMs: 2 * uploadMs, applyMs, forwardMs };
}
export async function mnistSection() {
    await useBackend("wasm");
    const spec = parseRunSpec(PRESETS["mnist-mlp-spsa"]);
    const mnist = await loadMnist();
    const run = await openRun(spec, mnist);
    const replica = initialReplica(run);
    const authors = localAuthors(1);
    const curve = [];
    const t0 = performance.now();
    let trainMs = 0;
    while (replica.iteration < spec.iterations) {
        const t = performance.now();
        localIteration(run, replica, authors);
        trainMs += performance.now() - t;
        if (replica.iteration % 250 === 0) {
            curve.push({
                it: replica.iteration,
                acc: evaluate(run.model, replica.backend.tensors, mnist.test).accuracy,
                s: trainMs / 1000,
            });
        }
    }
    const wall = (performance.now() - t0) / 1000;
    const acc = curve[curve.length - 1].acc;
    const a = algorithmOf(spec, "spsa");
    const forwardPasses = spec.iterations * a.perturbations * 2;
    // Backprop (Adam) from the same initial weights: at the same iterations, and at the same number
    // of forward passes (each step is one forward and one backward pass).
    const bp = new BackpropTrainer(run.model, floatWeights(initialReplica(run).weights));
    const bpCurve = [];
    const marks = new Set([250, 2000, 8000, forwardPasses]);
    for (let step = 1; step <= forwardPasses; step++) {
        bp.step(sampleBatch(mnist.train, 784, contributionSeed("backprop", step, authors[0], 0), a.batchSize));
        if (marks.has(step))
            bpCurve.push({ steps: step, acc: evaluate(run.model, bp.tensors, mnist.test).accuracy });
    }
    bp.dispose();
    replica.dispose();
    const pct = (x) => `${(100 * x).toFixed(2)}%`;
    return {
        id: "mnist",
        title: "SPSA (one byte per gradient) on MNIST vs backprop",
        command: "npm run bench -- --only mnist",
        markdown: `784-32-10 MLP, ${a.perturbations} perturbations per iteration, batch ${a.batchSize}, eps ${a.eps}, lr ${a.schedule.lr} decaying linearly to ${a.schedule.minFactor}x, one-byte gradients, one author, wasm backend. Test accuracy on all 10,000 MNIST test images. Target: >= 88% within 2,000 iterations.

| iteration | test accuracy | training seconds |
|---|---|---|
${curve.map((c) => `| ${c.it} | ${pct(c.acc)} | ${c.s.toFixed(1)} |`).join("\n")}

Backprop baseline (Adam, lr 1e-3, batch ${a.batchSize}, same initial weights). ${spec.iterations} SPSA iterations cost ${forwardPasses} forward passes (no backward pass); one backprop step is one forward plus one backward pass.

| backprop steps | test accuracy |
|---|---|
${bpCurve.map((c) => `| ${c.steps} | ${pct(c.acc)} |`).join("\n")}`,
        figures: {
            spsa_mnist_acc_at_2000: acc,
            spsa_mnist_seconds_2000: wall,
            backprop_mnist_acc_at_2000_steps: bpCurve.find((c) => c.steps === 2000)?.acc ?? Number.NaN,
            backprop_mnist_acc_at_equal_forward_passes: bpCurve[bpCurve.length - 1].acc,
        },
    };
}
//# sourceMappingURL=training.js.map