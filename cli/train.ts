/** `seedswarm train`: local training, no network. */
import { type Command, Option } from "commander";
import { defaultLocalTrainOptions } from "../node/local/local-train-options.js";
import { checkWritableDir } from "../node/ops/preflight.js";
import { createLogger, LOG_LEVELS, type LogLevel } from "../node/ground/index.js";
import { BACKENDS, type BackendChoice } from "../training/backends.js";
import { type LmForwardFlags, lmForwardOf, lmForwardOption, threadsOption } from "./engine-options.js";
import { intIn } from "./parse.js";
import { defaultDataDir, iterationsOption, presetOption, resolveSpec, specOption } from "./spec-options.js";

interface TrainFlags extends LmForwardFlags {
  preset: string;
  spec?: string;
  iterations?: number;
  stopAt?: number;
  authors: number;
  dataDir: string;
  backend: BackendChoice;
  evalEvery: number;
  evalLimit: number;
  checkpointEvery: number;
  fresh: boolean;
  modelDir?: string;
  dataFile?: string;
  idxDir?: string;
  logLevel: LogLevel;
}

export function trainCommand(program: Command): void {
  const d = defaultLocalTrainOptions;
  program
    .command("train")
    .description(
      "Train a run locally (no network), with simulated authors applied in timestamp order",
    )
    .addOption(presetOption())
    .addOption(specOption())
    .addOption(iterationsOption())
    .option(
      "--stop-at <n>",
      "stop (with a checkpoint) after n iterations; resume later",
      intIn(0, 1e9),
    )
    .option("--authors <n>", "simulated authors per iteration", intIn(1, 1024), d.authors)
    .option("--data-dir <dir>", "where checkpoints live", defaultDataDir())
    .addOption(
      new Option("--backend <name>", "tensor backend")
        .choices(["auto", ...BACKENDS])
        .default(d.backend),
    )
    .option(
      "--eval-every <n>",
      "test-accuracy evaluation period in iterations (0: end only)",
      intIn(0, 1e9),
      d.evalEvery,
    )
    .option("--eval-limit <n>", "test examples in periodic evaluations", intIn(1, 1e7), d.evalLimit)
    .option(
      "--checkpoint-every <n>",
      "checkpoint period in iterations (0: end only)",
      intIn(0, 1e9),
      d.checkpointEvery,
    )
    .option("--model-dir <dir>", "transformer runs: the Hugging Face checkpoint (config.json + model.safetensors) whose weights the spec names by hash")
    .option("--data-file <file>", "transformer runs: the JSONL/CSV text file the spec names by hash")
    .option("--idx-dir <dir>", "IDX image runs: the directory of the four IDX files the spec names by hash")
    .addOption(lmForwardOption())
    .addOption(threadsOption())
    .option("--fresh", "ignore an existing checkpoint and start from iteration 0", false)
    .addOption(new Option("--log-level <level>", "log level").choices(LOG_LEVELS).default("info"))
    .addHelpText(
      "after",
      `
Examples:
  $ seedswarm train                              # 784-32-10 MLP on MNIST, one-byte SPSA
  $ seedswarm train --preset tiny-spsa --authors 4
  $ seedswarm train --preset tiny-lm --authors 3 --model-dir test/fixtures/lm/llama-tiny --data-file test/fixtures/lm/tiny-text/text.jsonl
  $ seedswarm train --stop-at 500                # later: seedswarm train  (resumes at 500)`,
    )
    .action(async (flags: TrainFlags) => {
      const log = createLogger({ level: flags.logLevel });
      const spec = resolveSpec(flags);
      await checkWritableDir(flags.dataDir, "data dir");
      const controller = new AbortController();
      const onSignal = () => {
        if (controller.signal.aborted) process.exit(130);
        log.warn({}, "stopping after this iteration (signal again to exit at once)");
        controller.abort();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      const { trainLocally } = await import("../node/local/local-trainer.js");
      const result = await trainLocally(
        {
          spec,
          dataDir: flags.dataDir,
          backend: flags.backend,
          lmForward: lmForwardOf(flags),
          authors: flags.authors,
          stopAt: flags.stopAt,
          evalEvery: flags.evalEvery,
          evalLimit: flags.evalLimit,
          checkpointEvery: flags.checkpointEvery,
          resume: !flags.fresh,
          modelDir: flags.modelDir,
          dataFile: flags.dataFile,
          idxDir: flags.idxDir,
          signal: controller.signal,
        },
        log,
      );
      process.stdout.write(
        `${JSON.stringify({ run: result.runId, iteration: result.iteration, testAccuracy: result.test.accuracy, testLoss: result.test.loss, checksum: result.checksum })}\n`,
      );
    });
}
