/**
 * Faults a node met and handled (a stall, a rejected commit, a penalised peer, a repair, a fork
 * switch or rollback, an adopted snapshot): each is one structured log line and one count, made
 * by one call, so no fault is logged without being counted in `/status` or the other way round.
 * Every line carries the same fields, whatever else it adds: `fault` (the kind), `iteration`,
 * `peer` (the peer involved; null where none is) and `reason`.
 */
import type { Logger } from "../ground/index.js";
import type { FaultKind, Metrics } from "./metrics.js";

/** What every fault line says; a call site may add fields (rank, score, holders). */
export interface FaultContext {
  readonly iteration: number;
  readonly peer: string | null;
  readonly reason: string;
  readonly [field: string]: unknown;
}

/** Logs `msg` (a fixed message per call site) with its context at warn, and counts the kind. */
export type FaultReporter = (kind: FaultKind, msg: string, ctx: FaultContext) => void;

/** A reporter that logs on `log` and counts on `metrics` (null: logged only). */
export function faultReporter(log: Logger, metrics: Metrics | null): FaultReporter {
  return (kind, msg, ctx) => {
    metrics?.fault(kind);
    log.warn({ fault: kind, ...ctx }, msg);
  };
}
