/** `seedswarm export` and `seedswarm eval`: a checkpoint as a TensorFlow.js model, and its accuracy. */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { createLogger } from "../node/ground/index.js";
import { checkWritableDir } from "../node/ops/preflight.js";
import { runIdOf } from "../protocol/run-spec.js";
import { BACKENDS, type BackendChoice } from "../training/backends.js";
import { type LmForwardFlags, lmForwardOf, lmForwardOption, threadsOption } from "./engine-options.js";
import { intIn } from "./parse.js";
import { defaultDataDir, iterationsOption, presetOption, resolveSpec, specOption } from "./spec-options.js";

interface RunFlags {
  checkpoint?: string;
  preset: string;
  spec?: string;
  iterations?: number;
  dataDir: string;
}

/** The checkpoint file a command works on: --checkpoint, or the run's checkpoint in the data dir. */
async function checkpointFile(flags: RunFlags): Promise<string> {
  const { checkpointPath } = await import("../node/store/data-dir.js");
  const path = flags.checkpoint ?? checkpointPath(flags.dataDir, runIdOf(resolveSpec(flags)));
  if (!existsSync(path)) {
    throw new Error(
      flags.checkpoint
        ? `checkpoint ${path} does not exist`
        : `no checkpoint for this run in ${flags.dataDir} (${path}); train or run a node first, or give --checkpoint`,
    );
  }
  return path;
}

/** The options that name a checkpoint, shared by export and eval. */
function checkpointOptions(cmd: Command): Command {
  return cmd
    .option("--checkpoint <file>", "checkpoint file (default: the run's checkpoint in --data-dir)")
    .addOption(presetOption())
    .addOption(specOption())
    .addOption(iterationsOption())
    .option("--data-dir <dir>", "where the run's checkpoint lives", defaultDataDir());
}

export function exportCommand(program: Command): void {
  checkpointOptions(
    program
      .command("export")
      .description("Write a checkpoint's model as a TensorFlow.js layers model (model.json + weights.bin)"),
  )
    .option("-o, --out <dir>", "output directory (default: model/ beside the checkpoint)")
    .option("--force", "replace a previous export in the output directory", false)
    .option("--model-dir <dir>", "transformer runs: the Hugging Face checkpoint the run started from (its config.json is written with the weights)")
    .addHelpText(
      "after",
      `
The directory loads with tf.loadLayersModel("file://<dir>/model.json") (tfjs-node) and outputs
class probabilities; seedswarm.json beside it records the run, iteration and checksum.

Examples:
  $ seedswarm export --preset tiny-spsa -o ./tiny-model
  $ seedswarm export --checkpoint /data/runs/1a2b3c4d5e6f7a8b/checkpoint.ssck -o ./model --force

A transformer run exports as a Hugging Face directory instead (config.json + model.safetensors,
Hugging Face tensor names, loadable by transformers' from_pretrained):
  $ seedswarm export --preset tiny-lm --model-dir test/fixtures/lm/llama-tiny -o ./tiny-lm-hf`,
    )
    .action(async (flags: RunFlags & { out?: string; force: boolean; modelDir?: string }) => {
      const file = await checkpointFile(flags);
      const out = flags.out ?? join(dirname(file), "model");
      await checkWritableDir(dirname(out), "directory of the export");
      if (flags.modelDir !== undefined) {
        const { exportTransformerCheckpoint } = await import("../node/offline/model-export.js");
        const r = await exportTransformerCheckpoint(file, out, flags.modelDir, flags.force);
        process.stdout.write(`${JSON.stringify({ run: r.runId, iteration: r.iteration, checksum: r.checksum, dir: r.dir, weights: r.weightsFile })}\n`);
        return;
      }
      // TensorFlow.js and libp2p load only when a command runs: --help and the others stay fast.
      const { useBackend } = await import("../training/engine.js");
      const { exportCheckpoint } = await import("../node/offline/model-export.js");
      await useBackend("cpu");
      const r = await exportCheckpoint(file, out, flags.force);
      process.stdout.write(
        `${JSON.stringify({ run: r.runId, iteration: r.iteration, checksum: r.checksum, dir: r.dir, modelJson: r.modelJson })}\n`,
      );
    });
}

interface EvalFlags extends LmForwardFlags {
  model?: string;
  limit?: number;
  backend: BackendChoice;
  modelDir?: string;
  textFile?: string;
  tokenIds?: string;
  context?: number;
  batchSize: number;
}

/** `eval --model-dir`: scores a text file or token ids with a Hugging Face checkpoint and prints one JSON line. */
async function evalLanguageModel(flags: EvalFlags & { checkpoint?: string }): Promise<void> {
  if (flags.modelDir === undefined) throw new InvalidArgumentError("--text-file and --token-ids need --model-dir <Hugging Face directory>");
  if ((flags.textFile === undefined) === (flags.tokenIds === undefined)) {
    throw new InvalidArgumentError("--model-dir needs exactly one of --text-file or --token-ids");
  }
  if (flags.model !== undefined) throw new InvalidArgumentError("give --model-dir or --model, not both");
  const { useBackend } = await import("../training/engine.js");
  const { scoreTextFile, scoreTokenIdsFile } = await import("../node/offline/lm-eval.js");
  await useBackend(flags.backend, createLogger({ level: "warn" }));
  const options = {
    batchSize: flags.batchSize,
    engine: lmForwardOf(flags),
    ...(flags.context === undefined ? {} : { context: flags.context }),
    // A seedswarm checkpoint of a transformer run: its weights, the directory's config and tokenizer.
    ...(flags.checkpoint === undefined ? {} : { checkpoint: flags.checkpoint }),
  };
  const result =
    flags.textFile !== undefined
      ? await scoreTextFile(flags.modelDir, flags.textFile, options)
      : await scoreTokenIdsFile(flags.modelDir, flags.tokenIds as string, options);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export function evalCommand(program: Command): void {
  checkpointOptions(
    program
      .command("eval")
      .description(
        "Test accuracy of a checkpoint, or of an exported model directory, on its run's dataset; or next-token loss of a Hugging Face language model",
      ),
  )
    .option("--model <dir>", "an exported model directory (seedswarm export) instead of a checkpoint")
    .option("--model-dir <dir>", "a Hugging Face model directory (config.json + model.safetensors) to score text or token ids with")
    .option("--text-file <file>", "with --model-dir: print the mean next-token loss and perplexity of this text")
    .option("--token-ids <file>", "with --model-dir: a JSON array of token-id arrays; print each one's per-position next-token losses")
    .option("--context <n>", "with --text-file: tokens per window (default: the model's positions, at most 1024)", intIn(2, 1 << 20))
    .option("--batch-size <n>", "with --model-dir: sequences per forward pass", intIn(1, 4096), 8)
    .addOption(lmForwardOption("with --model-dir: what runs the forward: auto or onnx (onnxruntime CPU), tfjs (the --backend)", ["auto", "tfjs", "onnx"]))
    .addOption(threadsOption())
    .option("--limit <n>", "test examples to use (default: all)", intIn(1, 1e9))
    .addOption(new Option("--backend <name>", "tensor backend").choices(["auto", ...BACKENDS]).default("auto"))
    .addHelpText(
      "after",
      `
Examples:
  $ seedswarm eval --preset tiny-spsa                 # the run's checkpoint in the data dir
  $ seedswarm eval --model ./tiny-model               # an export (its dataset from seedswarm.json)
  $ seedswarm eval --model-dir ./gpt2 --text-file held-out.txt   # {"loss":..., "perplexity":...}
  $ seedswarm eval --model-dir ./gpt2 --token-ids ids.json       # {"losses":[[...], ...]} (natural log)
  $ seedswarm eval --model-dir ./gpt2 --checkpoint ~/.seedswarm/runs/<id>/checkpoint.ssck --text-file held-out.txt
                                                      # a transformer run's checkpoint, scored like the directory`,
    )
    .action(async (flags: RunFlags & EvalFlags, cmd: Command) => {
      if (flags.modelDir !== undefined || flags.textFile !== undefined || flags.tokenIds !== undefined) {
        await evalLanguageModel(flags);
        return;
      }
      // Only a run named on purpose overrides the one an export records, not the default preset.
      const named = cmd.getOptionValueSource("spec") !== undefined || cmd.getOptionValueSource("preset") !== "default";
      const log = createLogger({ level: "warn" });
      if (flags.model !== undefined && flags.checkpoint !== undefined) {
        throw new Error("give --model or --checkpoint, not both");
      }
      const file = flags.model === undefined ? await checkpointFile(flags) : undefined;
      const { useBackend } = await import("../training/engine.js");
      const { evaluateCheckpoint, evaluateExport } = await import("../node/offline/model-export.js");
      await useBackend(flags.backend, log);
      const r =
        file !== undefined
          ? await evaluateCheckpoint(file, flags.limit)
          : await evaluateExport(flags.model as string, named ? resolveSpec(flags) : undefined, flags.limit);
      process.stdout.write(
        `${JSON.stringify({ run: r.runId, iteration: r.iteration, accuracy: r.accuracy, loss: r.loss, examples: r.examples, source: file ?? flags.model })}\n`,
      );
    });
}
