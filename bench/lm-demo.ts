/**
 * The language-model demo end to end (issue 13): `seedswarm demo` pretrains the small GPT-2-shaped
 * model with backprop on Moby Dick, then real `seedswarm swarm --nodes 3` processes fine-tune it
 * with one-byte SPSA on the two demo tasks (SpamAssassin prompt classification, email text by
 * next-token loss). Held-out scores before and after, and backprop from the same checkpoint on
 * the same data beside them.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { prepareLmDemo } from "../node/offline/lm-demo.js";
import { defaultLmDemoOptions } from "../node/offline/lm-demo-options.js";
import { createLogger } from "../node/ground/index.js";
import { readLanguageRunSource } from "../node/store/language-run-source.js";
import { PRESETS } from "../protocol/presets.js";
import { parseRunSpec, type RunSpec } from "../protocol/run-spec.js";
import { sampleIndices } from "../training/data/dataset.js";
import { useBackend } from "../training/engine.js";
import { type LanguageRun, openLanguageRun } from "../training/language-run.js";
import { LanguageBackprop } from "../training/lm-backprop.js";
import type { Replica } from "../training/replica.js";
import { windowsOf } from "../training/next-token-loss.js";
import { seedFrom } from "../training/rng/seeds.js";
import { tokenizePromptTask } from "../training/tasks/prompt-classification.js";
import { cleanup, runCli, tempDir } from "./cli-run.js";
import { fmt, type Section } from "./report.js";

const NODES = 3;

interface Score {
  readonly loss: number;
  readonly accuracy: number | null;
}

/** The run's initial replica: the demo always has the weights on disk. */
function initial(run: LanguageRun): Replica {
  const r = run.initialReplica();
  if (r === null) throw new Error(`run ${run.spec.name}: no initial weights`);
  return r;
}

/** Held-out score of the run's initial weights. */
function initialScore(run: LanguageRun): Score {
  const r = initial(run);
  const s = run.heldOut(r.backend.tensors);
  r.dispose();
  return s;
}

/** Backprop (Adam) from the run's checkpoint on its training split: `steps` steps of the spec's batch size. */
function backprop(run: LanguageRun, steps: number, lr: number): Score {
  const d = run.spec.dataset;
  const start = initial(run);
  const bp = new LanguageBackprop(run.model, start.weights as Float32Array, { lr, clipNorm: 1 });
  start.dispose();
  const size = run.spec.algorithm.kind === "spsa" ? run.spec.algorithm.batchSize : 16;
  if (d.kind !== "text") throw new Error("a transformer run has a text dataset");
  if (d.task.kind === "prompt-classification") {
    const prompts = tokenizePromptTask(d.task, run.tokenizer, run.model.config.maxPositions);
    const xs = run.text.train.map((e) => prompts.prompt(e.text));
    const ys = run.text.train.map((e) => run.text.labels.indexOf(e.label as string));
    for (let s = 0; s < steps; s++) {
      const idx = Array.from(sampleIndices(xs.length, seedFrom("seedswarm/bench/lm-demo", [s]), size));
      bp.stepPrompts(
        idx.map((i) => xs[i]),
        idx.map((i) => ys[i]),
        prompts.labelIds,
      );
    }
  } else {
    const ctx = d.task.contextLength;
    const windows = run.text.train.flatMap((e) => windowsOf(run.tokenizer.encode(e.text), ctx));
    for (let s = 0; s < steps; s++) {
      const idx = Array.from(sampleIndices(windows.length, seedFrom("seedswarm/bench/lm-demo", [s]), size));
      bp.stepCausal(idx.map((i) => windows[i]));
    }
  }
  const score = run.heldOut(bp.tensors);
  bp.dispose();
  return score;
}

export async function lmDemoSection(): Promise<Section> {
  const log = createLogger({ level: "warn" });
  await useBackend("wasm", log);
  const dir = await tempDir();
  const demo = await prepareLmDemo(join(dir, "demo"), defaultLmDemoOptions, log);
  const hashMatches = demo.weightsHash === PRESETS["lm-demo-spam"].model.weightsHash ? 1 : 0;
  const figures: Record<string, number> = {
    lm_demo_params: demo.params,
    lm_demo_pretrain_seconds: demo.pretrain.seconds,
    lm_demo_pretrain_loss_start: demo.pretrain.startLoss,
    lm_demo_pretrain_loss: demo.pretrain.heldOutLoss,
    lm_demo_weights_match_preset: hashMatches,
  };
  const rows: string[] = [];
  for (const task of demo.tasks) {
    const spec: RunSpec = parseRunSpec(JSON.parse(await readFile(task.spec, "utf8")));
    const run = openLanguageRun(spec, await readLanguageRunSource(demo.modelDir, task.dataFile));
    const before = initialScore(run);
    const swarm = await runCli([
      "swarm",
      "--nodes",
      String(NODES),
      "--spec",
      task.spec,
      "--model-dir",
      demo.modelDir,
      "--data-file",
      task.dataFile,
      "--data-dir",
      await tempDir(),
      "--backend",
      "wasm",
      "--log-level",
      "warn",
    ]);
    const result = swarm.lines.find((l) => "agree" in l) as { agree: boolean; testAccuracy: number | null; testLoss: number; seconds: number };
    const bpSteps = spec.iterations;
    const bp = backprop(run, bpSteps, 1e-3);
    const key = task.name === "lm-demo-spam" ? "lm_demo_spam" : "lm_demo_email";
    figures[`${key}_loss_before`] = before.loss;
    figures[`${key}_loss_after`] = result.testLoss;
    figures[`${key}_loss_backprop`] = bp.loss;
    figures[`${key}_swarm_seconds`] = result.seconds;
    figures[`${key}_agree`] = result.agree ? 1 : 0;
    if (before.accuracy !== null) {
      figures[`${key}_acc_before`] = before.accuracy;
      figures[`${key}_acc_after`] = result.testAccuracy ?? Number.NaN;
      figures[`${key}_acc_backprop`] = bp.accuracy ?? Number.NaN;
      figures.lm_demo_finetune_gain = 100 * ((result.testAccuracy ?? Number.NaN) - before.accuracy);
    } else {
      figures.lm_demo_email_loss_drop = before.loss - result.testLoss;
    }
    const algo = spec.algorithm.kind === "spsa" ? spec.algorithm : null;
    const pct = (x: number | null) => (x === null ? "–" : `${(100 * x).toFixed(1)}%`);
    rows.push(
      `| \`${task.name}\` | ${spec.iterations} x ${NODES} nodes x ${algo?.perturbations} bytes (batch ${algo?.batchSize}) | ${fmt(before.loss)} / ${pct(before.accuracy)} | ${fmt(result.testLoss)} / ${pct(result.testAccuracy)} | ${fmt(bp.loss)} / ${pct(bp.accuracy)} | ${fmt(result.seconds)} | ${result.agree ? "yes" : "NO"} |`,
    );
  }
  await cleanup();
  const p = demo.pretrain;
  return {
    id: "lm-demo",
    title: "Language-model demo: pretrain here, fine-tune with one byte per gradient",
    command: "npm run bench -- --only lm-demo",
    markdown: [
      `\`seedswarm demo\` pretrains a ${demo.params.toLocaleString("en-US")}-parameter GPT-2-shaped model (2 layers, width 64, WordPiece vocabulary of ${defaultLmDemoOptions.vocab}) with Adam on Moby Dick (${p.steps} steps of ${defaultLmDemoOptions.batch} x ${defaultLmDemoOptions.context} tokens, wasm): held-out next-token loss ${fmt(p.startLoss)} -> ${fmt(p.heldOutLoss)} in ${fmt(p.seconds)} s; its weights hash ${hashMatches ? "equals" : "DIFFERS from"} the presets' \`weightsHash\`.`,
      "",
      `Then \`seedswarm swarm --nodes ${NODES}\` (real processes, wasm) fine-tunes it with one-byte SPSA; backprop is Adam (lr 1e-3) from the same checkpoint for as many steps as the run has iterations, at the run's batch size (one optimizer step per iteration, where the swarm measures ${NODES} x perturbations x batch example losses per iteration). Held-out split of each file (10% by text hash).`,
      "",
      "| run | budget | held-out loss / accuracy before | after one-byte SPSA | backprop, same steps | swarm seconds | checkpoints identical |",
      "|---|---|---|---|---|---|---|",
      ...rows,
    ].join("\n"),
    figures,
  };
}
