/** `seedswarm demo`: pretrain the language-model demo's model here and write its fine-tuning runs. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Command, Option } from "commander";
import { defaultLmDemoOptions, LmDemoError } from "../node/offline/lm-demo-options.js";
import { createLogger, LOG_LEVELS, type LogLevel } from "../node/ground/index.js";
import { intIn } from "./parse.js";

interface DemoFlags {
  out: string;
  steps: number;
  force: boolean;
  logLevel: LogLevel;
}

export function demoCommand(program: Command): void {
  program
    .command("demo")
    .description(
      "Make the language-model demo: pretrain a small GPT-2-shaped model with backprop on Moby Dick, write it as a Hugging Face directory, and the SpamAssassin fine-tuning data and RunSpecs",
    )
    .option("-o, --out <dir>", "directory to write (model/, *.jsonl, lm-demo-*.json)", "seedswarm-demo")
    .option("--steps <n>", "backprop steps of pretraining (the presets' hashes hold for the default)", intIn(1, 1e7), defaultLmDemoOptions.steps)
    .option("--force", "overwrite a demo already in --out", false)
    .addOption(new Option("--log-level <level>", "log level").choices(LOG_LEVELS).default("info"))
    .addHelpText(
      "after",
      `
Examples:
  $ seedswarm demo                                    # a few minutes on 2 cores; writes ./seedswarm-demo
  $ seedswarm swarm --nodes 3 --preset lm-demo-spam \\
      --model-dir seedswarm-demo/model --data-file seedswarm-demo/spam.jsonl
  $ seedswarm train --preset lm-demo-email --authors 3 \\
      --model-dir seedswarm-demo/model --data-file seedswarm-demo/email-text.jsonl`,
    )
    .action(async (flags: DemoFlags) => {
      if (!flags.force && existsSync(join(flags.out, "model", "model.safetensors"))) {
        throw new LmDemoError("LM_DEMO_EXISTS", `${flags.out} already holds a demo model (--force to overwrite)`, { dir: flags.out });
      }
      const log = createLogger({ level: flags.logLevel });
      const { useBackend } = await import("../training/engine.js");
      // wasm: the backend whose bytes the presets' hashes name (tfjs-wasm is deterministic on any CPU).
      await useBackend("wasm", log);
      const { prepareLmDemo } = await import("../node/offline/lm-demo.js");
      const r = await prepareLmDemo(flags.out, { ...defaultLmDemoOptions, steps: flags.steps }, log);
      process.stdout.write(`${JSON.stringify(r)}\n`);
    });
}
