/**
 * Where a 2-node swarm's rounds spend their time (docs/architecture.md, "Where a swarm node's time
 * goes"): runs `seedswarm swarm --nodes 2` with each node timing its round steps
 * (round-trace-preload.ts), then prints, per node and per contribution, the milliseconds spent
 * computing contributions, handling commits (applying, audits, evaluations) and contributions,
 * proposing, reading sockets, and the rest (idle, or libp2p work between the timed steps); and the
 * commit path: how long a finished contribution took to reach the proposer's handler, how long a
 * commit took to reach the other node's, and how often the primary proposer could not commit
 * when it looked. A diagnostic, not a benchmark section: its figures move with the machine's load.
 *   node dist/bench/round-trace.js [--stop-at 600] [--from 100] [--spec file.json] [--audit-budget b]
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { TraceRow } from "./round-trace-preload.js";

const { values } = parseArgs({
  options: {
    "stop-at": { type: "string", default: "600" },
    from: { type: "string", default: "100" },
    spec: { type: "string" },
    "audit-budget": { type: "string" },
  },
});
const from = Number(values.from);
const dir = mkdtempSync(join(tmpdir(), "seedswarm-round-trace-"));
const traceDir = join(dir, "trace");
mkdirSync(traceDir);
const here = import.meta.dirname;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : Number.NaN;
}

const ms = (x: number) => x.toFixed(1);

try {
  const args = [join(here, "..", "cli", "main.js"), "swarm", "--nodes", "2", "--backend", "wasm", "--data-dir", dir, "--stop-at", values["stop-at"]];
  args.push(...(values.spec ? ["--spec", values.spec] : ["--preset", "mnist-mlp-spsa"]));
  const env = {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${join(here, "round-trace-preload.js")}`.trim(),
    SEEDSWARM_ROUND_TRACE_DIR: traceDir,
    ...(values["audit-budget"] ? { SEEDSWARM_AUDIT_BUDGET: values["audit-budget"] } : {}),
  };
  const code = await new Promise<number | null>((resolve) => spawn(process.execPath, args, { env, stdio: "ignore" }).on("exit", resolve));
  if (code !== 0) throw new Error(`seedswarm swarm exited with ${code}; see swarm/node-*.log`);
  const traces = readdirSync(traceDir)
    .map((f) => JSON.parse(readFileSync(join(traceDir, f), "utf8")) as TraceRow[])
    .filter((t) => t.some((r) => r[2] === "contribute"));
  if (traces.length !== 2) throw new Error(`expected the traces of 2 nodes, found ${traces.length}`);
  process.stdout.write(report(traces));
  rmSync(dir, { recursive: true, force: true });
} catch (err) {
  // Kept for a look: the nodes' logs are what explains a failed run.
  throw new Error(`${(err as Error).message} (logs and traces kept in ${dir})`, { cause: err });
}

function report(traces: TraceRow[][]): string {
  const lines: string[] = [];
  traces.forEach((rows, k) => {
    // Busy time by kind over [first contribution at `from`, last contribution's end]; nested
    // spans (an audit inside a commit's handling) count for the outer one, gaps as the rest.
    const own = rows.filter((r) => r[2] === "contribute");
    const start = own.find((r) => r[3] >= from)?.[0];
    if (start === undefined) throw new Error(`node ${k} made no contribution at or after iteration ${from}`);
    const end = Math.max(...own.map((r) => r[1]));
    const n = own.filter((r) => r[0] >= start).length;
    const busy = new Map<string, number>();
    let covered = start;
    let rest = 0;
    for (const [s, e, kind] of rows.filter((r) => r[2] !== "primary-check" && r[0] >= start && r[0] <= end).sort((a, b) => a[0] - b[0])) {
      if (s > covered) rest += s - covered;
      if (e > covered) {
        busy.set(kind, (busy.get(kind) ?? 0) + e - Math.max(s, covered));
        covered = e;
      }
    }
    const parts = [...busy].map(([kind, t]) => `${kind} ${ms(t / n)}`).join(", ");
    lines.push(`node ${k}: ${n} contributions, ${ms((end - start) / n)} ms each: ${parts}, idle or untimed ${ms(rest / n)}`);
    const checks = rows.filter((r) => r[2] === "primary-check" && Math.abs(r[3]) >= from);
    const waited = checks.filter((r) => r[3] < 0).length;
    lines.push(`  as primary proposer: ${checks.length} checks, ${((100 * waited) / Math.max(1, checks.length)).toFixed(0)}% still missing a contribution`);
  });
  for (const [a, b] of [
    [0, 1],
    [1, 0],
  ]) {
    const [A, B] = [traces[a], traces[b]];
    const finished = new Map(B.filter((r) => r[2] === "contribute").map((r) => [r[3], r[1]]));
    const heard = new Map<number, number>();
    for (const r of A) if (r[2] === "contribution-in" && r[3] > 0 && !heard.has(r[3])) heard.set(r[3], r[0]);
    const applied = new Map<number, number>();
    for (const r of B) if (r[2] === "commit-in" && !applied.has(r[3])) applied.set(r[3], r[0]);
    const toProposer: number[] = [];
    const toOther: number[] = [];
    for (const [, end, kind, t] of A) {
      if (kind !== "propose" || t < from) continue;
      const f = finished.get(t);
      const h = heard.get(t);
      if (f !== undefined && h !== undefined) toProposer.push(h - f);
      const c = applied.get(t);
      if (c !== undefined) toOther.push(c - end);
    }
    lines.push(
      `node ${a} proposing: node ${b}'s contribution reached its handler ${ms(median(toProposer))} ms (median, ${toProposer.length}) after it was made; the commit reached node ${b}'s ${ms(median(toOther))} ms after (${toOther.length})`,
    );
  }
  return `${lines.join("\n")}\n`;
}
