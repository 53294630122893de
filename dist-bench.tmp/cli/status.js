import { parseHostPort } from "./http-options.js";
import { intIn } from "./parse.js";
import { SeedswarmError } from "../protocol/errors.js";
/** The node did not answer, or answered unhealthy. */
class StatusError extends SeedswarmError {
}
const human = (n) => (n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`);
/** A readable summary of a /status document. */
export function formatStatus(s) {
    const pct = ((100 * s.iteration) / Math.max(1, s.iterations)).toFixed(1);
    const rows = [
        ["run", `${s.run.name} (${s.run.algorithm}) ${s.run.id.slice(0, 16)}`],
        ["peer", s.peerId],
        ["state", s.state],
        ["iteration", `${s.iteration} / ${s.iterations} (${pct}%)`],
        ["loss", s.loss === null ? "-" : s.loss.toFixed(4)],
        ["accuracy", s.accuracy === null ? "-" : `${(100 * s.accuracy).toFixed(1)}%`],
        ["held-out loss", s.heldOutLoss === null ? "-" : s.heldOutLoss.toFixed(4)],
        ["peers", String(s.peers)],
        ["traffic", `${human(s.bytesIn)} in, ${human(s.bytesOut)} out`],
        ["backend", s.backend],
        ["checksum", s.checksum],
        ["uptime", `${s.uptimeSeconds} s`],
    ];
    return `${rows.map(([k, v]) => `${k.padEnd(10)} ${v}`).join("\n")}\n`;
}
export function statusCommand(program) {
    program
        .command("status")
        .description("Ask a running node (its --http endpoint) for its status or health")
        .option("--http <host:port>", "the node's --http address", (v) => parseHostPort(v, false), parseHostPort("127.0.0.1:9090"))
        .option("--json", "print the /status JSON as it is", false)
        .option("--healthz", "only probe /healthz: exit 0 when healthy, 1 otherwise", false)
        .option("--timeout <ms>", "give up after this long", intIn(1, 600_000), 5000)
        .addHelpText("after", `
Examples:
  $ seedswarm status                          # the node started with --http 127.0.0.1:9090
  $ seedswarm status --http 127.0.0.1:9191 --json
  $ seedswarm status --healthz && echo healthy  # what the Docker HEALTHCHECK runs`)
        .action(async (flags) => {
        const host = flags.http.host.includes(":") ? `[${flags.http.host}]` : flags.http.host;
        const base = `http://${host}:${flags.http.port}`;
        const get = async (path) => {
            try {
                return await fetch(base + path, { signal: AbortSignal.timeout(flags.timeout) });
            }
            catch (err) {
                const c = err.cause;
                const cause = c?.code ?? c?.message ?? err.message;
                throw new StatusError("STATUS_UNREACHABLE", `no seedswarm node answers at ${base} (${cause}); is it running with --http ${flags.http.host}:${flags.http.port}?`, { url: base });
            }
        };
        if (flags.healthz) {
            const res = await get("/healthz");
            const reason = (await res.text()).trim();
            process.stdout.write(`${res.ok ? "healthy" : "unhealthy"}: ${reason}\n`);
            process.exit(res.ok ? 0 : 1);
        }
        const res = await get("/status");
        if (!res.ok)
            throw new StatusError("STATUS_BAD_RESPONSE", `${base}/status answered ${res.status}`, { status: res.status });
        const status = (await res.json());
        process.stdout.write(flags.json ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
    });
}
//# sourceMappingURL=status.js.map