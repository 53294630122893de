/** Runs the seedswarm CLI as a child process for the benchmarks, and the run directories they use. */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { GC_ON_MAIN_THREAD_FLAG } from "../node/ops/heap-policy.js";

export const CLI = join(import.meta.dirname, "..", "cli", "main.js");

/**
 * Run directories under the repository's ignored .seedswarm/, not /tmp: on the shared machine
 * something removed *.log files from /tmp while a swarm was writing them.
 */
const ROOT = join(import.meta.dirname, "..", "..", ".seedswarm");
const made: string[] = [];
export async function tempDir(): Promise<string> {
  await mkdir(ROOT, { recursive: true });
  const d = await mkdtemp(join(ROOT, "bench-"));
  made.push(d);
  return d;
}
export async function cleanup(): Promise<void> {
  for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
}

export type Line = Record<string, unknown> & { msg?: string; time?: number; iteration?: number };

/** Runs the CLI to its end; returns its JSON log lines (pino `time`: epoch ms) and the start time. */
export async function runCli(args: string[]): Promise<{ lines: Line[]; startedAt: number; seconds: number }> {
  const startedAt = Date.now();
  const child = spawn(process.execPath, [GC_ON_MAIN_THREAD_FLAG, CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.on("exit", r));
  if (code !== 0) throw new Error(`seedswarm ${args.join(" ")} exited ${code}: ${err.slice(-2000)}`);
  return { lines: jsonLines(out), startedAt, seconds: (Date.now() - startedAt) / 1000 };
}

export function jsonLines(text: string): Line[] {
  const lines: Line[] = [];
  for (const l of text.split("\n")) {
    if (!l.startsWith("{")) continue;
    try {
      lines.push(JSON.parse(l) as Line);
    } catch {
      // a partial or non-JSON line
    }
  }
  return lines;
}

