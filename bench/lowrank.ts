/**
 * Low-rank SPSA (issue 14): training throughput against the plain forward pass, and MNIST accuracy
 * against full-rank SPSA at equal forward passes (same preset, seed and schedule otherwise).
 */
import * as tf from "@tensorflow/tfjs";
import { localAuthors, localIteration } from "../node/local/local-trainer.js";
import { PRESETS } from "../protocol/presets.js";
import { algorithmOf, parseRunSpec, type RunSpec } from "../protocol/run-spec.js";
import { type Dataset, sampleBatch, sampleIndices } from "../training/data/dataset.js";
import { loadMnist } from "../training/data/mnist.js";
import { useBackend } from "../training/engine.js";
import { batchTensors, evaluate, lossOn } from "../training/evaluate.js";
import { contributionSeed } from "../training/rng/seeds.js";
import { initialReplica, openRun } from "../training/run-context.js";
import { fmt, type Section, timeMs } from "./report.js";

const LOWRANK = parseRunSpec(PRESETS["mnist-mlp-spsa-lowrank"]);
const FULL = parseRunSpec(PRESETS["mnist-mlp-spsa"]);

/** Median ms of each function, run in turns so that a shared machine's load falls on all alike. */
function interleaved(fns: readonly (() => void)[], reps: number, warmup = 5): number[] {
  for (let i = 0; i < warmup; i++) for (const fn of fns) fn();
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < reps; i++)
    fns.forEach((fn, j) => {
      const t = performance.now();
      fn();
      times[j].push(performance.now() - t);
    });
  return times.map((ts) => ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)]);
}

interface Rates {
  /** Examples/s of one author's whole iteration: contribute (batches, noise, 2k forwards, bytes) and apply. */
  readonly lowrank: number;
  readonly full: number;
  /** Examples/s of the plain forward and loss on as many examples, drawn from the split like a minibatch. */
  readonly forward: number;
  /** The same on a batch already on the backend (no drawing, no upload). */
  readonly resident: number;
  readonly lowApplyMs: number;
  readonly fullApplyMs: number;
}

async function rates(ds: Dataset, reps: number): Promise<Rates> {
  const [author] = localAuthors(1);
  const a = algorithmOf(LOWRANK, "spsa");
  const n = 2 * a.perturbations * a.batchSize;
  const low = await openRun(LOWRANK, ds);
  const full = await openRun(FULL, ds);
  const lowR = initialReplica(low);
  const fullR = initialReplica(full);
  const seed = contributionSeed("bench", 0, author, 0);
  const { x, y } = batchTensors(sampleBatch(ds.train, 784, seed, n), [28, 28, 1]);
  // Drawn like a minibatch: the seed's rows copied into a reused array (as LowRankPairs does), uploaded.
  const rows = new Float32Array(n * 784);
  const labels = new Int32Array(n);
  const ms = interleaved(
    [
      () => localIteration(low, lowR, [author]),
      () => localIteration(full, fullR, [author]),
      () => {
        sampleIndices(ds.train.n, seed, n).forEach((r, i) => {
          rows.set(ds.train.x.subarray(r * 784, (r + 1) * 784), i * 784);
          labels[i] = ds.train.y[r];
        });
        const bx = tf.tensor4d(rows, [n, 28, 28, 1]);
        const by = tf.tensor1d(labels, "int32");
        lossOn(full.model, fullR.backend.tensors, bx, by);
        tf.dispose([bx, by]);
      },
      () => lossOn(full.model, fullR.backend.tensors, x, y),
    ],
    reps,
  );
  const apply = (run: typeof low, r: typeof lowR) => {
    const payload = run.algorithm.contribute(r, author);
    const w = r.weights.slice();
    return timeMs(() => run.algorithm.apply(w, r.iteration, [{ author, payload }]), reps, 5);
  };
  const lowApplyMs = apply(low, lowR);
  const fullApplyMs = apply(full, fullR);
  tf.dispose([x, y]);
  lowR.dispose();
  fullR.dispose();
  const rate = (t: number) => (n * 1000) / t;
  return { lowrank: rate(ms[0]), full: rate(ms[1]), forward: rate(ms[2]), resident: rate(ms[3]), lowApplyMs, fullApplyMs };
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
  const r = await rates(mnist, 40);
  const lowAcc = await accuracy(LOWRANK, mnist);
  const fullAcc = await accuracy(FULL, mnist);
  // One seed ranks the two only coarsely: two more initial-weight seeds (each a different run).
  const more = [];
  for (const seed of [2, 3])
    more.push({
      seed,
      low: (await accuracy(parseRunSpec({ ...LOWRANK, seed }), mnist)).acc,
      full: (await accuracy(parseRunSpec({ ...FULL, seed }), mnist)).acc,
    });
  const lowMean = (lowAcc.acc + more[0].low + more[1].low) / 3;
  const fullMean = (fullAcc.acc + more[0].full + more[1].full) / 3;
  const a = algorithmOf(LOWRANK, "spsa");
  const rank = a.perturbation?.kind === "lowrank" ? a.perturbation.rank : 0;
  const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
  const n = 2 * a.perturbations * a.batchSize;
  return {
    id: "lowrank",
    title: "Low-rank SPSA: training throughput and MNIST accuracy against full rank",
    command: "npm run bench -- --only lowrank",
    markdown: `Presets \`mnist-mlp-spsa-lowrank\` (rank ${rank}: each weight matrix moves along A B^T, biases full-rank) and \`mnist-mlp-spsa\` (full-rank Rademacher), otherwise identical: 784-32-10 MLP, ${a.perturbations} antithetic pairs per iteration, batch ${a.batchSize}, eps ${a.eps}, lr ${a.schedule.lr}, one author, wasm backend.

Throughput counts ${n} examples per iteration (${a.perturbations} pairs x 2 signs x ${a.batchSize}). Training is one author's whole iteration (drawing the minibatches, noise, every perturbed forward pass, bytes, the canonical update and the replica's tensor refresh). The plain forward pass is the unperturbed model's forward and loss on ${n} examples in one batch: drawn from the training split as a minibatch is (the primary ratio, the same data path as training), or already on the backend (no drawing, no upload). The four are timed in turns, median of 40, so the shared machine's load falls on all alike. Low-rank SPSA runs the ${a.perturbations} pairs as one batched forward (x W + s (x A) B^T, no perturbed matrix): the first layer's x W + b is shared by both signs of a pair.

| | examples/s | / plain forward (drawn batch) | / plain forward (resident batch) |
|---|---|---|---|
| plain forward + loss, drawn batch | ${fmt(r.forward)} | 1 | ${fmt(r.forward / r.resident)} |
| plain forward + loss, resident batch | ${fmt(r.resident)} | ${fmt(r.resident / r.forward)} | 1 |
| low-rank SPSA iteration | ${fmt(r.lowrank)} | ${fmt(r.lowrank / r.forward)} | ${fmt(r.lowrank / r.resident)} |
| full-rank SPSA iteration (batched pairs, fullrank-forward.ts: two 2-D products per pair, deeper layers batched) | ${fmt(r.full)} | ${fmt(r.full / r.forward)} | ${fmt(r.full / r.resident)} |

Canonical update of one author's ${a.perturbations} bytes: low-rank ${fmt(r.lowApplyMs)} ms (JavaScript: exact integer sums of A B^T terms), full-rank ${fmt(r.fullApplyMs)} ms (WebAssembly kernels).

Test accuracy (all 10,000 MNIST test images) at equal forward passes (${a.perturbations * 2} per iteration):

| iteration | low-rank | full-rank |
|---|---|---|
${lowAcc.curve.map((c, i) => `| ${(i + 1) * 500} | ${pct(c)} | ${pct(fullAcc.curve[i])} |`).join("\n")}

Training seconds for ${LOWRANK.iterations} iterations: low-rank ${lowAcc.seconds.toFixed(1)}, full-rank ${fullAcc.seconds.toFixed(1)}.

The same pair of runs with other initial-weight seeds (spec \`seed\`; each is another run, so other directions and minibatches too), test accuracy at ${LOWRANK.iterations}:

| seed | low-rank | full-rank |
|---|---|---|
| 1 (the presets) | ${pct(lowAcc.acc)} | ${pct(fullAcc.acc)} |
${more.map((m) => `| ${m.seed} | ${pct(m.low)} | ${pct(m.full)} |`).join("\n")}
| mean | ${pct(lowMean)} | ${pct(fullMean)} |`,
    figures: {
      lowrank_train_vs_forward_ratio: r.lowrank / r.forward,
      lowrank_train_vs_resident_forward_ratio: r.lowrank / r.resident,
      fullrank_train_vs_forward_ratio: r.full / r.forward,
      lowrank_mnist_acc_at_2000: lowAcc.acc,
      lowrank_fullrank_mnist_acc_at_2000: fullAcc.acc,
      lowrank_mnist_seconds_2000: lowAcc.seconds,
      lowrank_mnist_acc_at_2000_mean3: lowMean,
      lowrank_fullrank_mnist_acc_at_2000_mean3: fullMean,
    },
  };
}
