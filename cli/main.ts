#!/usr/bin/env -S node --single-threaded-gc
import "../node/ground/polyfills.js";
/**
 * The seedswarm command line: parses flags and delegates to node/. One failure handler prints
 * "✖ message" and exits non-zero (codes: see `describeFailure`; 130 on a second stop signal).
 */
import { buildProgram, describeFailure } from "./program.js";

/** Turns any error into one clear line and an exit code; stack traces only with DEBUG. */
function fail(err: unknown): never {
  const { exitCode, message } = describeFailure(err);
  if (message !== null) process.stderr.write(`${message}\n`);
  if (message !== null && process.env.DEBUG && (err as Error).stack) {
    process.stderr.write(`${(err as Error).stack}\n`);
  }
  process.exit(exitCode);
}

buildProgram().parseAsync(process.argv).catch(fail);
