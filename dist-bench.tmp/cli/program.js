/**
 * The seedswarm command line as a value: every command, the configuration layers (flags > env >
 * config file > defaults) and the failure conventions. `main.ts` runs it; tests parse with it
 * in-process.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { SeedswarmError } from "../protocol/errors.js";
import { RunSpecError } from "../protocol/spec-fields.js";
import { ConfigError, installConfig } from "./config.js";
import { demoCommand } from "./demo.js";
import { evalCommand, exportCommand } from "./export.js";
import { idCommand } from "./id.js";
import { initCommand } from "./init.js";
import { nodeCommand } from "./node.js";
import { plotCommand } from "./plot.js";
import { statusCommand } from "./status.js";
import { swarmCommand } from "./swarm.js";
import { swarmKeyCommand } from "./swarm-key.js";
import { trainCommand } from "./train.js";
/** The package version, for `seedswarm --version`. */
export const VERSION = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
/**
 * Builds the program. Commander's own errors (unknown flag, bad value) are printed as
 * `✖ message` and thrown as CommanderError instead of exiting, so that one handler owns exits.
 */
export function buildProgram(io = {}) {
    const program = new Command()
        .name("seedswarm")
        .description("Peer-to-peer training: seeds and one-byte gradients instead of weights.")
        .version(VERSION, "-v, --version")
        .exitOverride()
        .configureOutput({
        outputError: (text, write) => write(`✖ ${text.replace(/^error: /, "")}`),
        ...(io.writeOut ? { writeOut: io.writeOut } : {}),
        ...(io.writeErr ? { writeErr: io.writeErr } : {}),
    })
        .showHelpAfterError("(add --help for usage)");
    initCommand(program);
    idCommand(program);
    trainCommand(program);
    nodeCommand(program);
    swarmCommand(program);
    swarmKeyCommand(program);
    exportCommand(program);
    evalCommand(program);
    statusCommand(program);
    plotCommand(program);
    demoCommand(program);
    // Last: it covers every option of every command defined above.
    installConfig(program, io.env ?? process.env);
    return program;
}
/**
 * The one failure convention: the exit code for an error thrown by `parseAsync`, and the line to
 * print (null when commander has printed it already: its own errors, help, version).
 *
 * Exit codes: 0 success (also --help, --version, --print-config); 1 a failure while running (port
 * in use, unusable directory, unreadable spec or swarm key, ...); 2 a usage error (unknown flag, bad
 * flag value, bad config file key or SEEDSWARM_* value, a run spec with a bad field, a file that is
 * no swarm key).
 */
export function describeFailure(err) {
    // InvalidArgumentError is a CommanderError too, but one thrown by our own code is not printed yet.
    if (err instanceof CommanderError && !(err instanceof InvalidArgumentError)) {
        return { exitCode: err.exitCode === 0 ? 0 : 2, message: null };
    }
    const e = err;
    const code = err instanceof SeedswarmError ? ` [${err.code}]` : "";
    const usage = err instanceof InvalidArgumentError ||
        err instanceof ConfigError ||
        err instanceof RunSpecError ||
        (err instanceof SeedswarmError && err.code === "SWARM_KEY_MALFORMED");
    return { exitCode: usage ? 2 : 1, message: `✖ ${e.message}${code}` };
}
//# sourceMappingURL=program.js.map