/**
 * The daemon's local HTTP endpoint (plain node:http): `/` the live dashboard, `/status` JSON,
 * `/history` recent metrics rows, `/healthz`, `/metrics` for Prometheus. Read-only: nothing here
 * changes the node. Off unless `--http` is given; the CLI refuses public interfaces unless asked.
 */
import { createServer } from "node:http";
import { SeedswarmError } from "../../protocol/errors.js";
import { DASHBOARD_HTML } from "./dashboard-page.js";
/** The HTTP endpoint could not start. */
export class HttpError extends SeedswarmError {
}
function send(res, code, type, body) {
    res.writeHead(code, { "content-type": type, "cache-control": "no-store" });
    res.end(body);
}
const json = (res, body, code = 200) => send(res, code, "application/json; charset=utf-8", JSON.stringify(body));
/** Starts listening; resolves once bound (rejects with the listen error, e.g. EADDRINUSE). */
export async function startHttpServer(opts, source, metrics, log) {
    const hlog = log.child({ module: "http" });
    const handle = async (req, res) => {
        if (req.method !== "GET" && req.method !== "HEAD") {
            res.setHeader("allow", "GET, HEAD");
            return send(res, 405, "text/plain", "method not allowed\n");
        }
        const url = new URL(req.url ?? "/", "http://localhost");
        switch (url.pathname) {
            case "/":
                return send(res, 200, "text/html; charset=utf-8", DASHBOARD_HTML);
            case "/status":
                return json(res, await source.status());
            case "/history": {
                const since = Number(url.searchParams.get("since") ?? -1);
                return json(res, source.history(Number.isFinite(since) ? since : -1));
            }
            case "/healthz": {
                const h = source.health();
                return send(res, h.ok ? 200 : 503, "text/plain", `${h.reason}\n`);
            }
            case "/metrics":
                if (!metrics)
                    return send(res, 404, "text/plain", "metrics are off\n");
                return send(res, 200, metrics.registry.contentType, await metrics.registry.metrics());
            default:
                return send(res, 404, "text/plain", "not found\n");
        }
    };
    const server = createServer((req, res) => {
        handle(req, res).catch((err) => {
            hlog.warn({ err: err.message, path: req.url }, "http request failed");
            if (!res.headersSent)
                send(res, 500, "text/plain", `${err.message}\n`);
            else
                res.end();
        });
    });
    // Scrapers and the dashboard poll with keep-alive; do not let idle sockets hold the exit.
    server.keepAliveTimeout = 5000;
    await new Promise((resolve, reject) => {
        server.once("error", (err) => reject(new HttpError("HTTP_LISTEN_FAILED", `cannot serve --http on ${opts.host}:${opts.port}: ${err.code === "EADDRINUSE" ? "port in use" : err.message}`, {
            host: opts.host,
            port: opts.port,
            code: err.code,
        })));
        server.listen(opts.port, opts.host, () => {
            server.removeAllListeners("error");
            server.on("error", (err) => hlog.warn({ err: err.message }, "http server error"));
            resolve();
        });
    });
    const addr = server.address();
    const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    const url = `http://${host}:${addr.port}`;
    hlog.info({ url }, "http listening");
    return {
        url,
        close: () => new Promise((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
        }),
    };
}
//# sourceMappingURL=http-server.js.map