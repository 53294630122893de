/** Test helper: the seedswarm CLI as a real process. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { GC_ON_MAIN_THREAD_FLAG } from "../../node/ops/heap-policy.js";

const CLI = join(import.meta.dirname, "..", "..", "cli", "main.js");

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Run as another user (root only). */
  uid?: number;
  /** Sees each stdout line and may signal the child. */
  onLine?: (line: string, kill: (s: NodeJS.Signals) => void) => void;
}

/** Runs `seedswarm <args>` and resolves with its exit and output. */
export function runCli(args: string[], opts: RunCliOptions = {}): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [GC_ON_MAIN_THREAD_FLAG, CLI, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.uid }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      const text = d.toString();
      stdout += text;
      if (opts.onLine) for (const line of text.split("\n")) if (line) opts.onLine(line, (s) => child.kill(s));
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
