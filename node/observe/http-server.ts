/**
 * The daemon's local HTTP endpoint (plain node:http): `/` the live dashboard, `/status` JSON,
 * `/history` recent metrics rows, `/healthz`, `/metrics` for Prometheus. Read-only: nothing here
 * changes the node. Off unless `--http` is given; the CLI refuses public interfaces unless asked.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, networkInterfaces } from "node:os";
import { SeedswarmError } from "../../protocol/errors.js";
import { DASHBOARD_HTML } from "./dashboard-page.js";
import type { Logger } from "../ground/index.js";
import type { MetricsRow } from "./metrics-log.js";
import type { Metrics } from "./metrics.js";
import type { Health, NodeStatus } from "./run-monitor.js";

/** The HTTP endpoint could not start. */
export class HttpError extends SeedswarmError<"HTTP_LISTEN_FAILED"> {}

export interface HttpOptions {
  readonly host: string;
  /** 0 picks a free port; the bound one is logged ("http listening", {url}). */
  readonly port: number;
  /** Names besides this machine's own that requests may give as Host (a public name, a proxy's). */
  readonly allowedHosts?: readonly string[];
}

/**
 * The host names a request may name in Host (and Origin, when sent): loopback names, the bound
 * address, and, bound to every interface, this machine's addresses and host name, plus the
 * configured ones. Anything else is DNS rebinding (security review, finding 16): a page on
 * evil.example whose name now resolves to 127.0.0.1 reaches us with Host: evil.example, and is
 * refused before it can read /status or /metrics.
 */
export function allowedHostNames(bound: string, extra: readonly string[] = []): Set<string> {
  const names = new Set(["localhost", "127.0.0.1", "::1", bound, ...extra].map(normalHost));
  if (bound === "0.0.0.0" || bound === "::") {
    names.add(normalHost(hostname()));
    for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) names.add(normalHost(i.address));
  }
  return names;
}

/** Lower case, no brackets around IPv6, no trailing dot. */
function normalHost(h: string): string {
  return h.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/** The host name of a Host header value (`name`, `name:port`, `[v6]:port`), or null when malformed. */
export function hostOfHeader(value: string): string | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/i.exec(value.trim());
  return m ? normalHost(m[1]) : null;
}

/** Why a request is refused for its Host or Origin, or null when it names us. */
export function hostProblem(req: Pick<IncomingMessage, "headers">, allowed: ReadonlySet<string>): { code: 421 | 403; reason: string } | null {
  const host = req.headers.host === undefined ? null : hostOfHeader(req.headers.host);
  if (host === null || !allowed.has(host)) return { code: 421, reason: "this server does not answer to that Host" };
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== "null") {
    let o: string | null = null;
    try {
      o = normalHost(new URL(origin).hostname);
    } catch {
      // A malformed Origin names no one we know.
    }
    if (o === null || !allowed.has(o)) return { code: 403, reason: "cross-origin requests are refused" };
  }
  return null;
}

/** What the server serves; the daemon's RunMonitor implements it. */
export interface HttpSource {
  status(): Promise<NodeStatus>;
  health(): Health;
  history(sinceIteration?: number): MetricsRow[];
}

export interface HttpServer {
  readonly url: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, code: number, type: string, body: string): void {
  res.writeHead(code, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

const json = (res: ServerResponse, body: unknown, code = 200) =>
  send(res, code, "application/json; charset=utf-8", JSON.stringify(body));

/** Starts listening; resolves once bound (rejects with the listen error, e.g. EADDRINUSE). */
export async function startHttpServer(
  opts: HttpOptions,
  source: HttpSource,
  metrics: Metrics | null,
  log: Logger,
): Promise<HttpServer> {
  const hlog = log.child({ module: "http" });
  let allowed = allowedHostNames(opts.host, opts.allowedHosts);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const problem = hostProblem(req, allowed);
    if (problem) {
      hlog.debug({ host: req.headers.host, origin: req.headers.origin, code: problem.code }, "http request refused");
      return send(res, problem.code, "text/plain", `${problem.reason}\n`);
    }
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
        if (!metrics) return send(res, 404, "text/plain", "metrics are off\n");
        return send(res, 200, metrics.registry.contentType, await metrics.registry.metrics());
      default:
        return send(res, 404, "text/plain", "not found\n");
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      hlog.warn({ err: err.message, path: req.url }, "http request failed");
      if (!res.headersSent) send(res, 500, "text/plain", `${err.message}\n`);
      else res.end();
    });
  });
  // Scrapers and the dashboard poll with keep-alive; do not let idle sockets hold the exit.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new HttpError("HTTP_LISTEN_FAILED", `cannot serve --http on ${opts.host}:${opts.port}: ${err.code === "EADDRINUSE" ? "port in use" : err.message}`, {
          host: opts.host,
          port: opts.port,
          code: err.code,
        }),
      ),
    );
    server.listen(opts.port, opts.host, () => {
      server.removeAllListeners("error");
      server.on("error", (err) => hlog.warn({ err: err.message }, "http server error"));
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  // A name given as --http may have been a host name: the address it bound to counts too.
  allowed = new Set([...allowed, ...allowedHostNames(addr.address)]);
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  hlog.info({ url }, "http listening");
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
