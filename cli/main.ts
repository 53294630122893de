#!/usr/bin/env node
import "../node/polyfills.js";
/**
 * The seedswarm command line: parses flags and delegates to node/. One failure handler prints
 * "✖ message" and exits non-zero.
 *
 * Exit codes: 0 success (also --help, --version, --print-config); 1 a failure while running
 * (port in use, unusable directory, unreadable spec, ...); 2 a usage error (unknown flag, bad
 * flag value, bad config file key or SEEDSWARM_* value); 130 a second stop signal.
 */
import { CommanderError, InvalidArgumentError } from "commander";
import { SeedswarmError } from "../protocol/errors.js";
import { ConfigError } from "./config.js";
import { buildProgram } from "./program.js";

/** Turns any error into one clear line and an exit code; stack traces only with DEBUG. */
function fail(err: unknown): never {
  // Commander has already printed its message (or the help, or the version). InvalidArgumentError
  // is a CommanderError too, but one thrown by our own code has not been printed.
  if (err instanceof CommanderError && !(err instanceof InvalidArgumentError)) {
    process.exit(err.exitCode === 0 ? 0 : 2);
  }
  const e = err as Error;
  const code = err instanceof SeedswarmError ? ` [${err.code}]` : "";
  process.stderr.write(`✖ ${e.message}${code}\n`);
  if (process.env.DEBUG && e.stack) process.stderr.write(`${e.stack}\n`);
  process.exit(err instanceof InvalidArgumentError || err instanceof ConfigError ? 2 : 1);
}

buildProgram().parseAsync(process.argv).catch(fail);
