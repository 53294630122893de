#!/usr/bin/env node
import "../node/polyfills.js";
/**
 * The seedswarm command line: parses flags and delegates to node/. One failure handler prints
 * "✖ message" and exits non-zero.
 */
import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError } from "commander";
import { SeedswarmError } from "../protocol/errors.js";
import { nodeCommand } from "./node.js";
import { plotCommand } from "./plot.js";
import { statusCommand } from "./status.js";
import { swarmCommand } from "./swarm.js";
import { trainCommand } from "./train.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

const program = new Command()
  .name("seedswarm")
  .description("Peer-to-peer training: seeds and one-byte gradients instead of weights.")
  .version(pkg.version, "-v, --version")
  .showHelpAfterError();

trainCommand(program);
nodeCommand(program);
swarmCommand(program);
statusCommand(program);
plotCommand(program);

/** Turns any error into one clear line and an exit code; stack traces only with DEBUG. */
function fail(err: unknown): never {
  const e = err as Error;
  const code = err instanceof SeedswarmError ? ` [${err.code}]` : "";
  process.stderr.write(`✖ ${e.message}${code}\n`);
  if (process.env.DEBUG && e.stack) process.stderr.write(`${e.stack}\n`);
  process.exit(err instanceof InvalidArgumentError ? 2 : 1);
}

program.parseAsync(process.argv).catch(fail);
