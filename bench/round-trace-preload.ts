/**
 * Preloaded into each node of `bench/round-trace.ts` (`node --import`): times the round's steps
 * of this process and writes them, at exit, to `$SEEDSWARM_ROUND_TRACE_DIR/trace-<pid>.json` as
 * [start ms, end ms, kind, iteration or bytes] rows (performance.timeOrigin-based, so the rows of
 * two processes on one machine share a clock). A diagnostic, never loaded by the daemon itself.
 */
import { writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { Proposer } from "../node/chain/proposer.js";
import { ProposerSchedule } from "../node/chain/proposer-schedule.js";
import { Rounds } from "../node/chain/rounds.js";

export type TraceRow = [start: number, end: number, kind: string, value: number];

const dir = process.env.SEEDSWARM_ROUND_TRACE_DIR;
const rows: TraceRow[] = [];
const now = () => performance.timeOrigin + performance.now();
type Method = (this: unknown, ...args: never[]) => unknown;

/** Wraps `proto[name]` (a method, private ones included) to record each call's span. */
function wrap(proto: object, name: string, kind: string, value: (self: unknown, args: unknown[]) => number): void {
  const methods = proto as Record<string, Method>;
  const f = methods[name];
  if (typeof f !== "function") throw new TypeError(`round trace: no method ${name} to time`);
  methods[name] = function (this: unknown, ...args: never[]) {
    const s = now();
    try {
      return f.apply(this, args);
    } finally {
      rows.push([s, now(), kind, value(this, args)]);
    }
  };
}

if (dir) {
  const self = (r: unknown) => (r as { self: { id: string } }).self.id;
  wrap(Rounds.prototype, "contribute", "contribute", (_, a) => a[0] as number);
  wrap(Rounds.prototype, "onCommit", "commit-in", (_, a) => (a[0] as { commit: { iteration: number } }).commit.iteration);
  // Ours and others' contributions apart: an iteration, negative for our own.
  wrap(Rounds.prototype, "onContribution", "contribution-in", (r, a) => ((a[0] as { author: { id: string } }).author.id === self(r) ? -1 : 1) * (a[1] as number));
  wrap(Proposer.prototype, "commit", "propose", (_, a) => a[0] as number);
  // Each early-commit check of a primary proposer: iteration, negative when it could not commit yet.
  const check = (ProposerSchedule.prototype as unknown as Record<string, Method>).mayProposeEarly;
  (ProposerSchedule.prototype as unknown as Record<string, Method>).mayProposeEarly = function (this: unknown, ...args: never[]) {
    const s = now();
    const ok = check.apply(this, args) as boolean;
    const t = args[0] as number;
    const schedule = this as { proposers(t: number): string[]; opts: { self: string } };
    if (schedule.proposers(t)[0] === schedule.opts.self) rows.push([s, now(), "primary-check", ok ? t : -t]);
    return ok;
  };
  // Socket reads, as the event loop delivers them.
  const emit = net.Socket.prototype.emit;
  net.Socket.prototype.emit = function (this: net.Socket, event: string | symbol, ...args: unknown[]) {
    if (event !== "data") return Reflect.apply(emit, this, [event, ...args]) as boolean;
    const s = now();
    try {
      return Reflect.apply(emit, this, [event, ...args]) as boolean;
    } finally {
      rows.push([s, now(), "read", (args[0] as Uint8Array | undefined)?.length ?? 0]);
    }
  } as typeof emit;
  process.on("exit", () => writeFileSync(join(dir, `trace-${process.pid}.json`), JSON.stringify(rows)));
}
