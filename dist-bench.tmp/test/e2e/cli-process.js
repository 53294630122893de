/** Test helper: the seedswarm CLI as a real process. */
import { spawn } from "node:child_process";
import { join } from "node:path";
const CLI = join(import.meta.dirname, "..", "..", "cli", "main.js");
/** Runs `seedswarm <args>` and resolves with its exit and output. */
export function runCli(args, opts = {}) {
    return new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], {
            stdio: ["ignore", "pipe", "pipe"],
            cwd: opts.cwd,
            env: { ...process.env, ...opts.env },
            ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.uid }),
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => {
            const text = d.toString();
            stdout += text;
            if (opts.onLine)
                for (const line of text.split("\n"))
                    if (line)
                        opts.onLine(line, (s) => child.kill(s));
        });
        child.stderr.on("data", (d) => (stderr += d.toString()));
        child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
}
//# sourceMappingURL=cli-process.js.map