/** Runs the seedswarm CLI as a child process for the benchmarks, and the run directories they use. */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
export const CLI = join(import.meta.dirname, "..", "cli", "main.js");
/**
 * Run directories under the repository's ignored .seedswarm/, not /tmp: on the shared machine
 * something removed *.log files from /tmp while a swarm was writing them.
 */
const ROOT = join(import.meta.dirname, "..", "..", ".seedswarm");
const made = [];
export async function tempDir() {
    await mkdir(ROOT, { recursive: true });
    const d = await mkdtemp(join(ROOT, "bench-"));
    made.push(d);
    return d;
}
export async function cleanup() {
    for (const d of made.splice(0))
        await rm(d, { recursive: true, force: true });
}
/** Runs the CLI to its end; returns its JSON log lines (pino `time`: epoch ms) and the start time. */
export async function runCli(args) {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d.toString()));
    child.stderr.on("data", (d) => (err += d.toString()));
    const code = await new Promise((r) => child.on("exit", r));
    if (code !== 0)
        throw new Error(`seedswarm ${args.join(" ")} exited ${code}: ${err.slice(-2000)}`);
    return { lines: jsonLines(out), startedAt, seconds: (Date.now() - startedAt) / 1000 };
}
export function jsonLines(text) {
    const lines = [];
    for (const l of text.split("\n")) {
        if (!l.startsWith("{"))
            continue;
        try {
            lines.push(JSON.parse(l));
        }
        catch {
            // a partial or non-JSON line
        }
    }
    return lines;
}
//# sourceMappingURL=cli-run.js.map