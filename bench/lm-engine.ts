/**
 * Issue 42, the engine in training: the onnx engine against PyTorch CPU on the same shapes and
 * threads (bench/torch-lm-cpu.py, when python3 with torch is on the machine: the bench installs
 * nothing), a MeZO step's cost per perturbation against MeZO's own PyTorch step, the share of
 * bytes the onnx engine and tfjs-wasm agree on, and GPT-2 medium and a TinyLlama-shaped 1.1B
 * model running one contribution, with their RSS.
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { readHfCheckpoint } from "../node/store/hf-checkpoint.js";
import { parseRunSpec, runIdOf } from "../protocol/run-spec.js";
import { PRESETS } from "../protocol/presets.js";
import { LM_FIXTURE_MODELS, LM_FIXTURES } from "../test/helpers/lm-fixtures.js";
import { applyLowRankJs } from "../training/algorithms/lowrank.js";
import { Spsa } from "../training/algorithms/spsa.js";
import { planPasses, type Step } from "../training/algorithms/spsa-update.js";
import { useBackend } from "../training/engine.js";
import { parseHfConfig, transformerParameterCount } from "../training/hf/config.js";
import { initWeights } from "../training/models/model.js";
import { buildTransformer } from "../training/models/transformer.js";
import { OnnxLmPairs, OnnxTransformer } from "../training/onnx/index.js";
import { sharedKernels, type SpsaKernels } from "../training/algorithms/spsa-kernels.js";
import { Replica } from "../training/replica.js";
import { seedFrom } from "../training/rng/seeds.js";
import { causalLmTask, pairBatch } from "../training/tasks/causal-lm.js";
import { BATCH, benchBatch, gpt2Small, LENGTH } from "./lm.js";
import { fmt, median, type Section } from "./report.js";

const gib = (bytes: number) => bytes / 2 ** 30;
const REPS = 3;
/** Perturbations compared between the engines: about 1,000 over the three fixtures. */
const AGREE_PERTURBATIONS = 32;
const AGREE_ITERATIONS = 11;

interface TorchFigures {
  readonly torch: string;
  readonly blas: string;
  readonly threads: number;
  readonly forward_ms: number;
  readonly tokens_per_s: number;
  readonly mezo_step_ms: number;
  readonly perturb_ms: number;
}

/** python3 with torch: the first of these that imports it (pyenv's shim may hide Debian's). */
function torchPython(): string | null {
  for (const py of ["python3", "/usr/bin/python3"]) {
    const r = spawnSync(py, ["-c", "import torch"], { stdio: "ignore" });
    if (r.status === 0) return py;
  }
  return null;
}

function torchRun(py: string, threads: number): TorchFigures | string {
  const script = fileURLToPath(new URL("../../bench/torch-lm-cpu.py", import.meta.url));
  const r = spawnSync(py, [script, String(threads), String(REPS), String(BATCH), String(LENGTH)], { encoding: "utf8", timeout: 900_000 });
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  try {
    const o = JSON.parse(line) as TorchFigures & { error?: string };
    return o.error ?? o;
  } catch {
    return `torch-lm-cpu.py printed no result (exit ${r.status}): ${r.stderr.slice(-300)}`;
  }
}

async function medianMs(reps: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

/** The bytes of onnx and tfjs-wasm contributions on the fixtures: equal, within one code, further. */
async function bytesAgree(): Promise<{ total: number; equal: number; withinOne: number }> {
  await useBackend("wasm");
  let total = 0;
  let equal = 0;
  let withinOne = 0;
  for (const name of LM_FIXTURE_MODELS) {
    const ck = await readHfCheckpoint(`${LM_FIXTURES}${name}`);
    const V = ck.config.vocabSize;
    const sequences = Array.from({ length: 40 }, (_, i) => Array.from({ length: 8 + (i % 9) }, (_, t) => (i * 131 + t * 17 + 3) % V));
    const spec = parseRunSpec({
      ...PRESETS["lm-demo-email"],
      algorithm: { ...PRESETS["lm-demo-email"].algorithm, perturbations: AGREE_PERTURBATIONS, batchSize: 4, perturbation: { kind: "lowrank", rank: 1 } },
    });
    const runId = runIdOf(spec);
    const task = causalLmTask(ck.model, sequences);
    const pairs = new OnnxLmPairs(ck.model, sequences, 1, 1);
    const tfjs = new Spsa(runId, spec, ck.model, task);
    const onnx = new Spsa(runId, spec, ck.model, task, { pairs });
    for (let it = 0; it < AGREE_ITERATIONS; it++) {
      const replica = new Replica(runId, ck.model, ck.weights.slice(), it);
      const author = { id: `author-${it}`, joinedAt: it + 1 };
      const want = new Int8Array(tfjs.contribute(replica, author).buffer);
      const got = new Int8Array(onnx.contribute(replica, author).buffer);
      want.forEach((b, j) => {
        total++;
        if (got[j] === b) equal++;
        if (Math.abs(got[j] - b) <= 1) withinOne++;
      });
      replica.dispose();
    }
    await pairs.close();
  }
  return { total, equal, withinOne };
}

/** One contribution of one pair (batch sequences x 64 tokens at +eps and -eps) on a model of `raw` config, 2 threads; RSS at its peak. */
async function bigModel(raw: Record<string, unknown>, batch: number): Promise<{ params: number; pairMs: number; rssGib: number; initMs: number }> {
  const config = parseHfConfig(raw);
  const model = buildTransformer(config);
  const t0 = performance.now();
  const weights = initWeights(model.layout, 1);
  const initMs = performance.now() - t0;
  const sequences = Array.from({ length: batch }, (_, b) => Array.from({ length: LENGTH }, (_, t) => (b * 7919 + t * 104729) % config.vocabSize));
  const pairs = new OnnxLmPairs(model, sequences, 1, 2);
  const seeds = [seedFrom("seedswarm/bench/lm-engine", [1])];
  let peak = process.memoryUsage().rss;
  const t1 = performance.now();
  const r = pairs.losses(weights, seeds, batch, 1e-3, 1, "big");
  const pairMs = performance.now() - t1;
  peak = Math.max(peak, process.memoryUsage().rss);
  if (!Number.isFinite(r.plus[0]) || !Number.isFinite(r.minus[0])) throw new Error(`non-finite losses at ${model.layout.size} parameters`);
  await pairs.close();
  return { params: transformerParameterCount(config), pairMs, rssGib: gib(peak), initMs };
}

export async function lmEngineSection(): Promise<Section> {
  const load0 = loadavg()[0];
  const { model, weights } = gpt2Small();
  const batch = benchBatch();
  const tokens = BATCH * LENGTH;
  const rssBase = process.memoryUsage().rss;

  // PyTorch and onnx, neighbouring: torch at t threads, then onnx at t threads.
  const py = torchPython();
  const torch: Record<number, TorchFigures | string> = {};
  const onnxMs: Record<number, number> = {};
  for (const threads of [1, 2]) {
    torch[threads] = py ? torchRun(py, threads) : "python3 with torch is not on this machine (Debian: apt-get install python3-torch libopenblas0-pthread)";
    const m = await OnnxTransformer.create(model.config, weights, { threads });
    onnxMs[threads] = await medianMs(REPS, () => m.meanNextTokenLoss(batch));
    await m.release();
  }
  const tps = (ms: number) => (tokens * 1000) / ms;
  const ratio = (t: number) => (typeof torch[t] === "string" ? Number.NaN : tps(onnxMs[t]) / (torch[t] as TorchFigures).tokens_per_s);

  // A MeZO step per perturbation, 1 thread: the pair (16 x 64 at +eps and -eps, one call) and the
  // node's share of its commit's apply (one byte: the low-rank canonical update, per byte of 48).
  const perturbed = await OnnxTransformer.create(model.config, weights, { threads: 1, perturbation: { rank: 1 } });
  const seqs = Array.from({ length: BATCH }, (_, b) => Array.from(batch.ids.subarray(b * LENGTH, (b + 1) * LENGTH)));
  const seed = seedFrom("seedswarm/bench/lm-engine", [0]);
  const pair = pairBatch(seqs, [seed], BATCH);
  // The draw picks BATCH of the BATCH sequences (with repeats): the same token count as torch's step.
  const pairMs = await medianMs(REPS, () => perturbed.perturbedLosses(pair.batch, pair.perturbations, 1e-3));
  const pairRss = process.memoryUsage().rss;
  await perturbed.release();
  const steps: Step[] = Array.from({ length: 48 }, (_, q) => ({ seed: seedFrom("seedswarm/bench/lm-engine/apply", [q]), byte: (q % 2 ? -1 : 1) * (60 + ((q * 7) % 50)) }));
  const passes = planPasses(steps, 48, 1e-6);
  const t = performance.now();
  for (const plans of passes) applyLowRankJs(weights, model.layout, plans, 1);
  const applyJsPerByteMs = (performance.now() - t) / 48;
  // What a node runs: the same update, its matrices in the WebAssembly kernel (bit-identical).
  const fastWeights = weights.slice();
  const kernels = sharedKernels() as SpsaKernels;
  const applyTimes: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t1 = performance.now();
    for (const plans of passes) applyLowRankJs(fastWeights, model.layout, plans, 1, kernels);
    applyTimes.push((performance.now() - t1) / 48);
  }
  const applyPerByteMs = median(applyTimes);
  const stepMs = pairMs + applyPerByteMs;
  const torch1 = torch[1];
  const stepRatio = typeof torch1 === "string" ? Number.NaN : stepMs / torch1.mezo_step_ms;

  const agree = await bytesAgree();
  const medium = await bigModel({ model_type: "gpt2", vocab_size: 50257, n_positions: 1024, n_embd: 1024, n_layer: 24, n_head: 16 }, 8);
  const tinyLlama = await bigModel(
    {
      model_type: "llama",
      vocab_size: 32000,
      hidden_size: 2048,
      intermediate_size: 5632,
      num_hidden_layers: 22,
      num_attention_heads: 32,
      num_key_value_heads: 4,
      max_position_embeddings: 2048,
      rope_theta: 10000,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
    },
    4,
  );
  const torchRow = (th: number) => {
    const f = torch[th];
    return typeof f === "string"
      ? `| ${th} | ${fmt(tps(onnxMs[th]))} | not measured | |`
      : `| ${th} | ${fmt(tps(onnxMs[th]))} | ${fmt(f.tokens_per_s)} (${f.blas}) | ${fmt(ratio(th))} |`;
  };
  const torchNote = typeof torch1 === "string" ? `No PyTorch figure: ${torch1}.` : `PyTorch ${torch1.torch} with ${torch1.blas} (the BLAS its process loaded).`;
  return {
    id: "lm-engine",
    title: "The onnx engine in training: against PyTorch CPU, a MeZO step, bytes against tfjs, 355M and 1.1B (issue 42)",
    command: "npm run bench -- --only lm-engine",
    markdown: `GPT-2-small shape (${(model.layout.size / 1e6).toFixed(1)}M parameters, random weights), ${BATCH} x ${LENGTH} tokens, mean next-token loss.
${cpus().length} cores shared with other work (load average ${fmt(load0)} at the start, ${fmt(loadavg()[0])} at the end). ${torchNote}
PyTorch runs a plain GPT-2 forward written in torch (\`bench/torch-lm-cpu.py\`; transformers is not on this machine),
each torch run followed by the onnx forward at the same threads (medians of ${REPS} after a warm-up).

| threads | onnx tokens/s | PyTorch tokens/s | onnx / PyTorch |
|---|---|---|---|
${torchRow(1)}
${torchRow(2)}

**A MeZO step per perturbation, 1 thread.** seedswarm: one low-rank pair (${BATCH} x ${LENGTH} tokens at +eps and -eps, one
session call of the perturbed graph: ${fmt(pairMs)} ms) plus the node's share of its commit's apply (the low-rank canonical
update, one byte of a 48-byte commit, each matrix's rank-48 product and epilogue fused in the WebAssembly kernel, bit-identical to
the JS loops: ${fmt(applyPerByteMs)} ms; the JS loops alone: ${fmt(applyJsPerByteMs)} ms) = ${fmt(stepMs)} ms. MeZO's PyTorch step (2 forwards, 4 in-place
full-rank passes over the weights): ${typeof torch1 === "string" ? "not measured" : `${fmt(torch1.mezo_step_ms)} ms (one perturbation pass ${fmt(torch1.perturb_ms)} ms)`}.
Ratio (\`lm_step_vs_torch_mezo\`, target <= 0.6): ${fmt(stepRatio)}. RSS with the perturbed session: ${fmt(gib(pairRss))} GiB (${fmt(gib(rssBase))} before
it: Node, tfjs and the canonical weights).

**Bytes against tfjs-wasm** (\`lm_engine_bytes_agree\`): ${agree.total} one-byte projected gradients (the three fixtures, rank 1,
${AGREE_PERTURBATIONS} perturbations x ${AGREE_ITERATIONS} states each, batch 4, eps 1e-3) measured by both engines: ${agree.equal} equal
(${fmt(agree.equal / agree.total)}), ${agree.withinOne} within one code (${fmt(agree.withinOne / agree.total)}); auditors accept one code.

**Larger models, one contribution of one pair on 2 threads** (random weights made here; the worker holds its own copy of the weights):

| model | parameters | one pair (ms) | peak RSS (GiB) | making the weights (ms) |
|---|---|---|---|---|
| GPT-2 medium, 8 x ${LENGTH} tokens | ${fmt(medium.params / 1e6)}M | ${fmt(medium.pairMs)} | ${fmt(medium.rssGib)} | ${fmt(medium.initMs)} |
| TinyLlama-1.1B shape (22 layers, 2048 wide, GQA 32/4, vocab 32000), 4 x ${LENGTH} tokens | ${fmt(tinyLlama.params / 1e6)}M | ${fmt(tinyLlama.pairMs)} | ${fmt(tinyLlama.rssGib)} | ${fmt(tinyLlama.initMs)} |`,
    figures: {
      lm_cpu_vs_torch_ratio: ratio(2),
      lm_cpu_vs_torch_ratio_1t: ratio(1),
      lm_torch_tokens_per_s_1t: typeof torch[1] === "string" ? Number.NaN : (torch[1] as TorchFigures).tokens_per_s,
      lm_torch_tokens_per_s_2t: typeof torch[2] === "string" ? Number.NaN : (torch[2] as TorchFigures).tokens_per_s,
      lm_engine_tokens_per_s_1t: tps(onnxMs[1]),
      lm_engine_tokens_per_s_2t: tps(onnxMs[2]),
      lm_step_ms_per_perturbation_124m: stepMs,
      lm_step_vs_torch_mezo: stepRatio,
      lm_apply_lowrank_ms_per_byte_124m: applyPerByteMs,
      lm_apply_lowrank_js_ms_per_byte_124m: applyJsPerByteMs,
      lm_engine_bytes_agree: agree.equal / agree.total,
      lm_engine_bytes_within_one: agree.withinOne / agree.total,
      lm_rss_gib_124m: gib(pairRss),
      lm_rss_gib_355m: medium.rssGib,
      lm_rss_gib_1b: tinyLlama.rssGib,
      lm_pair_ms_355m: medium.pairMs,
      lm_pair_ms_1b: tinyLlama.pairMs,
    },
  };
}
