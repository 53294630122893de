/**
 * The process logger: pino, JSON lines by default, pretty when stdout is a TTY. Modules take a
 * child logger (`log.child({ module: "rounds" })`) and log a fixed message with a context object.
 */
import { type Logger, pino } from "pino";
import pretty from "pino-pretty";
import { progressAwareStdout } from "./progress.js";

export type { Logger };

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Force pretty or JSON; by default pretty exactly when stdout is a TTY. */
  readonly pretty?: boolean;
}

export const defaultLoggerOptions: LoggerOptions = { level: "info" };

/** Creates the root logger. */
export function createLogger(opts: LoggerOptions = defaultLoggerOptions): Logger {
  const usePretty = opts.pretty ?? process.stdout.isTTY === true;
  if (!usePretty) return pino({ level: opts.level, base: { pid: process.pid } });
  return pino(
    { level: opts.level },
    // Through a stream that keeps the TTY progress line (node/ground/progress.ts) below the log lines.
    pretty({ colorize: true, ignore: "pid,hostname", translateTime: "SYS:HH:MM:ss", destination: progressAwareStdout() }),
  );
}

/**
 * Gives a promise nobody awaits an owner: its failure is logged with what it was, never left an
 * unhandled rejection (which would end the process).
 */
export function detach(promise: Promise<unknown>, log: Logger, what: string): void {
  promise.catch((err: unknown) => log.error({ err, what }, "background task failed"));
}
