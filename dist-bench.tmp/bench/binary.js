/**
 * Binary Learning benchmarks (issue 18): MNIST accuracy of one-bit weights trained by flip
 * votes, the gain of a second greedy stage and of more authors, payload size, the forward
 * speed of XNOR-popcount against float, and how too many flips per iteration overshoot.
 */
import * as tf from "@tensorflow/tfjs";
import { localAuthors } from "../node/local/local-trainer.js";
import { PRESETS } from "../protocol/presets.js";
import { parseRunSpec } from "../protocol/run-spec.js";
import { wasmKernel } from "../training/bit-kernel/wasm-kernel.js";
import { loadMnist } from "../training/data/mnist.js";
import { useBackend } from "../training/engine.js";
import { bitGeometry, bitLogits, initBits, matrixSums } from "../training/models/bit-mlp.js";
import { initialReplica, openRun } from "../training/run-context.js";
import { fmt, timeMs } from "./report.js";
/** mnist-binary with a model and algorithm override (e.g. one layer, another batch). */
function mnistBinary(model, algorithm) {
    const base = PRESETS["mnist-binary"];
    const alg = { ...base.algorithm, ...algorithm };
    return parseRunSpec({
        ...base,
        model: { ...base.model, ...model },
        algorithm: alg,
        iterations: alg.stages.reduce((a, b) => a + b, 0),
    });
}
/** Test accuracy of the state's active stage on all 10,000 MNIST test images. */
function accuracy(alg, r, ds) {
    const t = ds.test;
    const C = 10;
    const z = bitLogits(alg.kernel, r.weights, alg.geometry, t.x, t.n);
    let ok = 0;
    for (let b = 0; b < t.n; b++) {
        let best = 0;
        for (let c = 1; c < C; c++)
            if (z[b * C + c] > z[b * C + best])
                best = c;
        if (best === t.y[b])
            ok++;
    }
    return ok / t.n;
}
/**
 * Trains `spec` with `authors` local authors (from iteration 0, or on from `from`), measuring test
 * accuracy at the given iterations.
 */
async function train(spec, authors, at, ds, from) {
    const run = await openRun(spec, ds);
    const alg = run.algorithm;
    const r = from ?? initialReplica(run);
    const start = r.iteration;
    const who = localAuthors(authors);
    const accs = [];
    let bytes = 0;
    const t0 = performance.now();
    const end = Math.max(...at);
    while (r.iteration < end) {
        const cs = who.map((author) => ({ author, payload: alg.contribute(r, author) }));
        for (const c of cs)
            bytes += c.payload.length;
        r.applyIteration(alg, cs);
        if (at.includes(r.iteration))
            accs.push(accuracy(alg, r, ds));
    }
    return { accuracy: accs, bytesPerAuthor: bytes / (authors * (end - start)), seconds: (performance.now() - t0) / 1000, replica: r };
}
/** A figure as soon as it is measured (stderr, like bench/run.ts's own progress). */
function progress(what, value) {
    console.error(`bench: binary: ${what}: ${JSON.stringify(value)}`);
}
/** ns per multiply-add of 784 -> 256 at batch 256: wasm SIMD popcount vs tfjs-wasm float matMul. */
async function forwardSpeed() {
    const [batch, inputs, units] = [256, 784, 256];
    const macs = batch * inputs * units;
    const spec = { ...PRESETS["mnist-binary"].model, hidden: [units] };
    const g = bitGeometry(spec);
    const state = initBits(g, 3);
    const x = new Uint32Array(batch * g.layers[0].kernel.wpr);
    for (let i = 0; i < x.length; i++)
        x[i] = Math.imul(i + 1, 0x9e3779b1) >>> 0;
    const sums = new Int32Array(batch * units);
    const kernel = wasmKernel();
    const binaryMs = timeMs(() => matrixSums(kernel, state, g, g.layers[0].kernel, x, batch, sums), 30);
    await useBackend("wasm");
    const a = tf.randomUniform([batch, inputs]);
    const w = tf.randomUniform([inputs, units]);
    const floatMs = timeMs(() => tf.tidy(() => tf.matMul(a, w).dataSync()), 30);
    tf.dispose([a, w]);
    return { binaryNs: (binaryMs * 1e6) / macs, floatNs: (floatMs * 1e6) / macs };
}
export async function binarySection() {
    const ds = await loadMnist();
    const speed = await forwardSpeed();
    progress("forward", speed);
    // Cheapest and most important first (progress lines let a cut-short run still report).
    // One layer of 256 for 2,000 iterations, then the second stage for 2,000 more (the preset).
    const stage1Run = await train(mnistBinary({}, {}), 1, [2000], ds);
    const stage1 = stage1Run.accuracy[0];
    progress("stage 1 at 2000", { ...stage1Run, replica: undefined });
    const oneLayer = (algorithm) => mnistBinary({ hidden: [256] }, algorithm);
    const overshoot = {};
    for (const flips of [4, 16, 64]) {
        overshoot[flips] = (await train(oneLayer({ flipsPerIteration: flips, stages: [600] }), 1, [600], ds)).accuracy[0];
        progress(`overshoot ${flips}`, overshoot[flips]);
    }
    const four = await train(oneLayer({ batchSize: 128, stages: [2000] }), 4, [2000], ds);
    progress("4 authors", { ...four, replica: undefined });
    const one = await train(oneLayer({ batchSize: 128, stages: [2000] }), 1, [2000], ds);
    progress("1 author", { ...one, replica: undefined });
    const layerwise = await train(mnistBinary({}, {}), 1, [4000], ds, stage1Run.replica);
    const stage2 = layerwise.accuracy[0];
    progress("stage 2 at 4000", { ...layerwise, replica: undefined });
    const figures = {
        binary_mnist_acc_at_2000: stage1,
        binary_mnist_acc_stage2_at_4000: stage2,
        binary_layerwise_gain: 100 * (stage2 - stage1),
        binary_authors_gain: 100 * (four.accuracy[0] - one.accuracy[0]),
        binary_acc_4_authors_b128: four.accuracy[0],
        binary_acc_1_author_b128: one.accuracy[0],
        binary_payload_bytes_per_iteration: four.bytesPerAuthor,
        binary_ms_per_iteration_b512: (1000 * stage1Run.seconds) / 2000,
        binary_forward_ns_per_mac_wasm_simd: speed.binaryNs,
        binary_forward_ns_per_mac_tfjs_wasm_float: speed.floatNs,
        binary_forward_speedup_vs_float: speed.floatNs / speed.binaryNs,
        binary_overshoot_acc_4_flips_at_600: overshoot[4],
        binary_overshoot_acc_16_flips_at_600: overshoot[16],
        binary_overshoot_acc_64_flips_at_600: overshoot[64],
    };
    const dense = 4 * (784 * 256 + 256 * 10);
    return {
        id: "binary",
        title: "Binary Learning: one-bit weights trained by sparse flip votes (MNIST)",
        command: "npm run bench -- --only binary",
        markdown: `The \`mnist-binary\` preset (one-bit weights, +/-1 inputs at 0.5, logits = 1/32 x head sum;
batch 512, 16 flips per iteration, at most 1,000 votes per author). Test accuracy on all 10,000
MNIST test images of the active stage's head, from one process with simulated authors (the same
contributions and canonical apply as a swarm).

| configuration | test accuracy |
|---|---|
| 1 layer of 256, 2,000 iterations | ${fmt(stage1)} (target >= 0.86) |
| + stage 2 (second 256 layer), 2,000 more | ${fmt(stage2)} (gain ${fmt(figures.binary_layerwise_gain)} points; target >= 0.5) |
| 1 layer, 4 authors x batch 128, 2,000 iterations | ${fmt(four.accuracy[0])} |
| 1 layer, 1 author x batch 128, 2,000 iterations | ${fmt(one.accuracy[0])} (4-author gain ${fmt(figures.binary_authors_gain)} points; target >= 1.5) |
| 600 iterations of 4 / 16 / 64 flips | ${fmt(overshoot[4])} / ${fmt(overshoot[16])} / ${fmt(overshoot[64])} |

Payload: ${fmt(four.bytesPerAuthor)} bytes per author per iteration (limit 4,096; a dense float32
gradient of the first stage's weights is ${fmt(dense)} bytes). One iteration (1 author, batch 512,
exact deltas of all ${784 * 256 + 2560} moves) takes ${fmt(figures.binary_ms_per_iteration_b512)} ms.

Forward 784 -> 256 at batch 256: ${fmt(speed.binaryNs)} ns per multiply-add with the WebAssembly
SIMD XOR-popcount kernel against ${fmt(speed.floatNs)} ns for tfjs-wasm float matMul: ${fmt(figures.binary_forward_speedup_vs_float)}x (target >= 5).`,
        figures,
    };
}
//# sourceMappingURL=binary.js.map