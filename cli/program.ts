/**
 * The seedswarm command line as a value: every command, the configuration layers (flags > env >
 * config file > defaults) and the failure conventions. `main.ts` runs it; tests parse with it
 * in-process.
 */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { installConfig } from "./config.js";
import { evalCommand, exportCommand } from "./export.js";
import { idCommand } from "./id.js";
import { initCommand } from "./init.js";
import { nodeCommand } from "./node.js";
import { swarmCommand } from "./swarm.js";
import { trainCommand } from "./train.js";

/** The package version, for `seedswarm --version`. */
export const VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/**
 * Builds the program. Commander's own errors (unknown flag, bad value) are printed as
 * `✖ message` and thrown as CommanderError instead of exiting, so that one handler owns exits.
 */
export function buildProgram(): Command {
  const program = new Command()
    .name("seedswarm")
    .description("Peer-to-peer training: seeds and one-byte gradients instead of weights.")
    .version(VERSION, "-v, --version")
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`✖ ${text.replace(/^error: /, "")}`) })
    .showHelpAfterError("(add --help for usage)");
  initCommand(program);
  idCommand(program);
  trainCommand(program);
  nodeCommand(program);
  swarmCommand(program);
  exportCommand(program);
  evalCommand(program);
  // Last: it covers every option of every command defined above.
  installConfig(program);
  return program;
}
