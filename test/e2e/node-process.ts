/** Test helper: `seedswarm node` processes with parsed JSON logs. */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GC_ON_MAIN_THREAD_FLAG } from "../../node/ops/heap-policy.js";

const CLI = join(import.meta.dirname, "..", "..", "cli", "main.js");
const dirs: string[] = [];
const procs: ChildProcess[] = [];

/** Kills leftover node processes and removes temp dirs; call from an `after` hook. */
export async function cleanup(): Promise<void> {
  for (const p of procs) if (p.exitCode === null) p.kill("SIGKILL");
  // SEEDSWARM_TEST_KEEP=1 keeps the data dirs (with each node's stdout.log) for a post-mortem.
  if (process.env.SEEDSWARM_TEST_KEEP) return;
  for (const d of dirs) await rm(d, { recursive: true, force: true });
}

export type Line = Record<string, unknown> & {
  msg?: string;
  iteration?: number;
  checksum?: string;
};

/** One `seedswarm node` process and its parsed JSON log lines. */
export class Node {
  readonly lines: Line[] = [];
  /** What the process wrote to stderr (the CLI's ✖ failure messages). */
  stderr = "";
  readonly child: ChildProcess;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: { pred: (l: Line) => boolean; resolve: (l: Line) => void }[] = [];

  /**
   * @param launch `prefix`: a command that runs the node (e.g. `ip netns exec <ns>`); `listen`:
   *   the listen address instead of a free loopback port.
   */
  constructor(
    readonly dataDir: string,
    args: string[],
    /** Added to this process's environment; an undefined value removes the variable. */
    env: Record<string, string | undefined> = {},
    launch: { prefix?: string[]; listen?: string } = {},
  ) {
    const [command, ...prefixArgs] = [...(launch.prefix ?? []), process.execPath];
    this.child = spawn(
      command,
      [
        ...prefixArgs,
        GC_ON_MAIN_THREAD_FLAG,
        CLI,
        "node",
        // A node that joins by runId takes no spec flags; a test may name another preset.
        ...(args.includes("--run") || args.includes("--preset") ? [] : ["--preset", "tiny-spsa"]),
        "--no-mdns",
        "--listen",
        launch.listen ?? "/ip4/127.0.0.1/tcp/0",
        "--data-dir",
        dataDir,
        "--backend",
        "wasm",
        // Audits at a fifth of the default budget unless a test sets it: every other test runs
        // several nodes on two cores, and byzantine.test.ts measures the audits themselves.
        ...(args.includes("--audit-budget") ? [] : ["--audit-budget", "0.02"]),
        ...args,
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)) },
    );
    procs.push(this.child);
    let buf = "";
    if (process.env.SEEDSWARM_TEST_KEEP) mkdirSync(dataDir, { recursive: true });
    const out = process.env.SEEDSWARM_TEST_KEEP ? createWriteStream(join(dataDir, "stdout.log"), { flags: "a" }) : null;
    // A post-mortem copy only: a full disk (the disk-fault scenarios fill one) must not end the test.
    out?.on("error", () => {});
    this.child.stdout?.on("data", (d: Buffer) => {
      out?.write(d);
      buf += d.toString();
      let i = buf.indexOf("\n");
      while (i >= 0) {
        const text = buf.slice(0, i);
        buf = buf.slice(i + 1);
        i = buf.indexOf("\n");
        try {
          const line = JSON.parse(text) as Line;
          this.lines.push(line);
          this.waiters = this.waiters.filter((w) => {
            if (!w.pred(line)) return true;
            w.resolve(line);
            return false;
          });
        } catch {
          // not a JSON line
        }
      }
    });
    this.child.stderr?.on("data", (d: Buffer) => {
      this.stderr += d.toString();
    });
    this.exit = new Promise((resolve) =>
      // "close", not "exit": after the last stdout line is read (a killed node's last lines included).
      this.child.on("close", (code, signal) => resolve({ code, signal })),
    );
  }

  waitFor(pred: (l: Line) => boolean, timeoutMs = 20_000, what = "log line"): Promise<Line> {
    const found = this.lines.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
        timeoutMs,
      );
      this.waiters.push({
        pred,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
    });
  }

  async address(): Promise<string> {
    const l = await this.waitFor((x) => x.msg === "node started", 30_000, "node started");
    return (l.addrs as string[])[0];
  }

  /** The last "applied" line for an iteration (a one-step fork switch logs a second one). */
  applied(iteration: number): Line | undefined {
    return this.lines.findLast((l) => l.msg === "applied" && l.iteration === iteration);
  }

  /** Iteration -> checksum after it, the last word for each iteration. */
  checksums(): Map<number, string> {
    const m = new Map<number, string>();
    for (const l of this.lines) if (l.msg === "applied") m.set(l.iteration ?? -1, l.checksum ?? "");
    return m;
  }

  /** The final result line, printed on exit. */
  result(): { iteration: number; checksum: string; peerId: string } {
    const r = this.lines.find((l) => typeof l.peerId === "string" && l.msg === undefined);
    assert.ok(r, "node printed its result");
    return r as never;
  }

  commits(): {
    iteration: number;
    entries: { author: string; joinedAt: number; payload: string }[];
    exclusions?: { author: string; iteration: number }[];
  }[] {
    const runs = join(this.dataDir, "runs");
    const dir = readdirSync(runs)[0];
    // The node may be appending while this reads: a line without its newline is not yet whole.
    const lines = readFileSync(join(runs, dir, "commits.jsonl"), "utf8").split("\n");
    lines.pop();
    return lines.map((l) => JSON.parse(l));
  }
}

export async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "seedswarm-swarm-"));
  dirs.push(d);
  return d;
}

export async function startSwarm(
  n: number,
  args: string[],
  env: Record<string, string>[] = [],
): Promise<Node[]> {
  // The first node waits for the others, so every node trains from iteration 0.
  const first = new Node(await tempDir(), [...args, "--join-wait", "15000", "--min-peers", String(n - 1)], env[0]);
  const addr = await first.address();
  const rest = [];
  for (let i = 1; i < n; i++)
    rest.push(new Node(await tempDir(), [...args, "--bootstrap", addr], env[i]));
  return [first, ...rest];
}
