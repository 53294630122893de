/**
 * Low-rank SPSA (issue 14): training throughput against the plain forward pass, and MNIST accuracy
 * against full-rank SPSA at equal forward passes (same preset, seed and schedule otherwise).
 */
import * as tf from "@tensorflow/tfjs";
import { localAuthors, localIteration } from "../node/local/local-trainer.js";
import { PRESETS } from "../protocol/presets.js";
import { algorithmOf, parseRunSpec, type RunSpec } from "../protocol/run-spec.js";
import { type Dataset, sampleBatch } from "../training/data/dataset.js";
import { loadMnist } from "../training/data/mnist.js";
import { useBackend } from "../training/engine.js";
import { batchTensors, evaluate, lossOn } from "../training/evaluate.js";
import { contributionSeed } from "../training/rng/seeds.js";
import { initialReplica, openRun } from "../training/run-context.js";
import { fmt, type Section, timeMs } from "./report.js";

const LOWRANK = parseRunSpec(PRESETS["mnist-mlp-spsa-lowrank"]);
const FULL = parseRunSpec(PRESETS["mnist-mlp-spsa"]);

/**
 * Examples per second of one author's SPSA iteration (contribute: batches, noise, the 2k perturbed
 * forward passes, bytes; then apply), counting 2 * perturbations * batchSize examples.
 */
async function trainRate(spec: RunSpec, ds: Dataset, reps: number): Promise<{ rate: number; applyMs: number }> {
  const run = await openRun(spec, ds);
  const replica = initialReplica(run);
  const [author] = localAuthors(1);
  const a = algorithmOf(spec, "spsa");
  const ms = timeMs(() => localIteration(run, replica, [author]), reps, 5);
  const payload = run.algorithm.contribute(replica, author);
  const w = replica.weights.slice();
  const applyMs = timeMs(() => run.algorithm.apply(w, replica.iteration, [{ author, payload }]), reps, 5);
  replica.dispose();
  return { rate: (2 * a.perturbations * a.batchSize * 1000) / ms, applyMs };
}

/** Examples per second of the plain forward pass and loss of the same model on as many examples at once. */
async function forwardRate(spec: RunSpec, ds: Dataset, reps: number): Promise<number> {
  const run = await openRun(spec, ds);
  const replica = initialReplica(run);
  const a = algorithmOf(spec, "spsa");
  const n = 2 * a.perturbations * a.batchSize;
  const { x, y } = batchTensors(sampleBatch(ds.train, 784, contributionSeed("bench", 0, localAuthors(1)[0], 0), n), [28, 28, 1]);
  const ms = timeMs(() => lossOn(run.model, replica.backend.tensors, x, y), reps, 5);
  tf.dispose([x, y]);
  replica.dispose();
  return (n * 1000) / ms;
}

/** Test accuracy after the spec's iterations, one author, and the training seconds. */
async function accuracy(spec: RunSpec, ds: Dataset): Promise<{ acc: number; seconds: number; curve: number[] }> {
  const run = await openRun(spec, ds);
  const replica = initialReplica(run);
  const authors = localAuthors(1);
  const curve: number[] = [];
  let trainMs = 0;
  while (replica.iteration < spec.iterations) {
    const t = performance.now();
    localIteration(run, replica, authors);
    trainMs += performance.now() - t;
    if (replica.iteration % 500 === 0) curve.push(evaluate(run.model, replica.backend.tensors, ds.test).accuracy);
  }
  const acc = curve[curve.length - 1];
  replica.dispose();
  return { acc, seconds: trainMs / 1000, curve };
}

export async function lowrankSection(): Promise<Section> {
  await useBackend("wasm");
  const mnist = await loadMnist();
  const reps = 20;
  const low = await trainRate(LOWRANK, mnist, reps);
  const full = await trainRate(FULL, mnist, reps);
  const fwd = await forwardRate(LOWRANK, mnist, reps);
  const lowAcc = await accuracy(LOWRANK, mnist);
  const fullAcc = await accuracy(FULL, mnist);
  const a = algorithmOf(LOWRANK, "spsa");
  const rank = a.perturbation?.kind === "lowrank" ? a.perturbation.rank : 0;
  const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
  const n = 2 * a.perturbations * a.batchSize;
  return {
    id: "lowrank",
    title: "Low-rank SPSA: training throughput and MNIST accuracy against full rank",
    command: "npm run bench -- --only lowrank",
    markdown: `Presets \`mnist-mlp-spsa-lowrank\` (rank ${rank}: each weight matrix moves along A B^T, biases full-rank) and \`mnist-mlp-spsa\` (full-rank Rademacher), otherwise identical: 784-32-10 MLP, ${a.perturbations} antithetic pairs per iteration, batch ${a.batchSize}, eps ${a.eps}, lr ${a.schedule.lr}, one author, wasm backend.

Throughput counts ${n} examples per iteration (${a.perturbations} pairs x 2 signs x ${a.batchSize}). Training is one whole iteration (minibatches, noise, every perturbed forward pass, bytes, and the canonical update); the plain forward pass is the unperturbed model's forward and loss on ${n} examples in one batch, already on the backend. Low-rank SPSA runs the ${a.perturbations} pairs as one batched forward (x W + s (x A) B^T): the first layer's x W is shared by both signs of a pair, so it can beat the plain forward pass over as many examples.

| | examples/s | ratio to plain forward |
|---|---|---|
| plain forward + loss | ${fmt(fwd)} | 1 |
| low-rank SPSA iteration | ${fmt(low.rate)} | ${fmt(low.rate / fwd)} |
| full-rank SPSA iteration (one forward per perturbation, materialised weights) | ${fmt(full.rate)} | ${fmt(full.rate / fwd)} |

Canonical update of one author's ${a.perturbations} bytes: low-rank ${fmt(low.applyMs)} ms (JavaScript, exact integer sums of A B^T terms), full-rank ${fmt(full.applyMs)} ms (WebAssembly kernels).

Test accuracy (all 10,000 MNIST test images) at equal forward passes (${a.perturbations * 2} per iteration):

| iteration | low-rank | full-rank |
|---|---|---|
${lowAcc.curve.map((c, i) => `| ${(i + 1) * 500} | ${pct(c)} | ${pct(fullAcc.curve[i])} |`).join("\n")}

Training seconds for ${LOWRANK.iterations} iterations: low-rank ${lowAcc.seconds.toFixed(1)}, full-rank ${fullAcc.seconds.toFixed(1)}.`,
    figures: {
      lowrank_train_vs_forward_ratio: low.rate / fwd,
      fullrank_train_vs_forward_ratio: full.rate / fwd,
      lowrank_mnist_acc_at_2000: lowAcc.acc,
      lowrank_fullrank_mnist_acc_at_2000: fullAcc.acc,
      lowrank_mnist_seconds_2000: lowAcc.seconds,
    },
  };
}
