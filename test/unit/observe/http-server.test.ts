// Finding 16 (security review): the HTTP endpoint answers only to its own names (DNS rebinding).
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { allowedHostNames, hostOfHeader, type HttpServer, startHttpServer } from "../../../node/observe/http-server.js";
import { createLogger } from "../../../node/ground/index.js";
import type { NodeStatus } from "../../../node/observe/run-monitor.js";

/** A real request with the headers a browser page would send (fetch cannot set Host). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("finding 16: HTTP Host and Origin check", () => {
  let server: HttpServer;
  before(async () => {
    const source = {
      status: async () => ({ peerId: "secret" }) as unknown as NodeStatus,
      health: () => ({ ok: true, reason: "ok" }),
      history: () => [],
    };
    server = await startHttpServer({ host: "127.0.0.1", port: 0, allowedHosts: ["seedswarm.example"] }, source, null, createLogger({ level: "silent" }));
  });
  after(() => server.close());

  it("answers its own names", async () => {
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "LOCALHOST", `[::1]:${port}`, "seedswarm.example:9090"]) {
      const r = await get(`${server.url}/status`, { host });
      assert.equal(r.status, 200, host);
      assert.match(r.body, /secret/);
    }
    const same = await get(`${server.url}/status`, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` });
    assert.equal(same.status, 200, "the dashboard's own fetches carry a same-origin Origin");
  });

  it("refuses a rebound name with 421 and a foreign Origin with 403, before reading anything", async () => {
    const port = new URL(server.url).port;
    for (const host of [`evil.example:${port}`, "evil.example", "127.0.0.1.evil.example", "a:b:c"]) {
      const r = await get(`${server.url}/status`, { host });
      assert.equal(r.status, 421, JSON.stringify(host));
      assert.doesNotMatch(r.body, /secret/);
    }
    for (const origin of ["http://evil.example", "http://evil.example:80", "not a url"]) {
      const r = await get(`${server.url}/metrics`, { host: `127.0.0.1:${port}`, origin });
      assert.equal(r.status, 403, origin);
    }
  });

  it("parses Host values and lists the bound address", () => {
    assert.equal(hostOfHeader("[::1]:9090"), "::1");
    assert.equal(hostOfHeader("Example.ORG."), "example.org");
    assert.equal(hostOfHeader("a:b"), null);
    assert.ok(allowedHostNames("10.1.2.3").has("10.1.2.3"));
    assert.ok(!allowedHostNames("10.1.2.3").has("10.1.2.4"));
  });
});
