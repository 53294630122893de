/**
 * Spot preemption against real local HTTP servers that behave like AWS IMDSv2 and the GCP
 * metadata server: the probes (token flow, renewal, failures), and a real node that leaves on a
 * notice exactly as on SIGTERM: exit 0, checkpoint written, within the leave deadline.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pino } from "pino";
import { loadCheckpoint } from "../../node/store/checkpoint.js";
import { preemptionProbe, watchPreemption } from "../../node/ops/preemption-watch.js";
import { runIdOf } from "../../protocol/run-spec.js";
import { PRESETS } from "../../protocol/presets.js";
import { cleanup, Node, tempDir } from "./node-process.js";

after(cleanup);

/** A metadata server: `aws` checks IMDSv2 tokens; `notice` flips the answer. */
class FakeMetadata {
  notice = false;
  tokens = 0;
  /** Tokens the server forgets (as after their TTL): the next GET with one is a 401. */
  revoked = new Set<string>();
  requests: string[] = [];
  private server!: Server;
  url = "";

  constructor(private readonly cloud: "aws" | "gcp") {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests.push(`${req.method} ${req.url}`);
    const send = (status: number, body = "") => {
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(body);
    };
    if (this.cloud === "gcp") {
      if (req.url !== "/computeMetadata/v1/instance/preempted") return send(404);
      // The real server refuses requests without the header (it guards against SSRF).
      if (req.headers["metadata-flavor"] !== "Google") return send(403);
      return send(200, this.notice ? "TRUE" : "FALSE");
    }
    if (req.method === "PUT" && req.url === "/latest/api/token") {
      if (!req.headers["x-aws-ec2-metadata-token-ttl-seconds"]) return send(400);
      this.tokens += 1;
      return send(200, `token-${this.tokens}`);
    }
    if (req.method === "GET" && req.url === "/latest/meta-data/spot/instance-action") {
      const token = String(req.headers["x-aws-ec2-metadata-token"] ?? "");
      if (!/^token-\d+$/.test(token) || this.revoked.has(token)) return send(401);
      if (!this.notice) return send(404, "Not Found");
      return send(200, JSON.stringify({ action: "terminate", time: new Date(Date.now() + 120_000).toISOString() }));
    }
    return send(404);
  }
}

const silent = pino({ level: "silent" });

describe("preemption probes against imitation metadata servers", () => {
  it("AWS: token first, 404 means none, 200 is the notice; a revoked token is renewed", async () => {
    const md = await new FakeMetadata("aws").start();
    try {
      const probe = preemptionProbe("aws", md.url, 1000);
      assert.equal(await probe.check(), null);
      assert.equal(await probe.check(), null);
      assert.equal(md.tokens, 1, "the token is reused between polls");
      md.revoked.add("token-1");
      await assert.rejects(probe.check(), /answered 401/);
      assert.equal(await probe.check(), null, "a new token after the 401");
      assert.equal(md.tokens, 2);
      md.notice = true;
      assert.match((await probe.check()) ?? "", /"action":"terminate"/);
    } finally {
      await md.stop();
    }
  });

  it("GCP: Metadata-Flavor header, FALSE then TRUE; the watch survives an unreachable server", async () => {
    const md = await new FakeMetadata("gcp").start();
    try {
      let notices = 0;
      const watch = watchPreemption(
        { provider: "gcp", metadataUrl: md.url, pollMs: 100, requestTimeoutMs: 1000 },
        () => (notices += 1),
        silent,
      );
      await new Promise((r) => setTimeout(r, 350));
      assert.equal(notices, 0);
      assert.ok(md.requests.length >= 2, `polled ${md.requests.length} times`);
      md.notice = true;
      const t0 = Date.now();
      while (notices === 0 && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 20));
      assert.equal(notices, 1);
      const polls = md.requests.length;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(md.requests.length, polls, "no polling after the notice");
      watch.stop();
    } finally {
      await md.stop();
    }
    // Nothing listens there any more: polls fail and are retried, no notice, no throw.
    let notices = 0;
    const dead = watchPreemption(
      { provider: "gcp", metadataUrl: md.url, pollMs: 50, requestTimeoutMs: 200 },
      () => (notices += 1),
      silent,
    );
    await new Promise((r) => setTimeout(r, 250));
    dead.stop();
    assert.equal(notices, 0);
  });
});

describe("a node on a spot instance (real process)", () => {
  it("--preemption-watch aws: leaves on the notice like SIGTERM: exit 0, checkpoint, within the deadline", async () => {
    const md = await new FakeMetadata("aws").start();
    try {
      const dir = await tempDir();
      const deadlineMs = 5000;
      const node = new Node(dir, [
        "--iterations", "100000",
        "--join-wait", "0",
        "--preemption-watch", "aws",
        "--metadata-url", md.url,
        "--preemption-poll", "200",
        "--leave-deadline", String(deadlineMs),
      ]);
      await node.waitFor((l) => l.msg === "watching for preemption notices", 20_000, "the watch");
      await node.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 3, 20_000, "iteration 3");
      // A lone node commits its first iterations at once: they may come before the first poll.
      const t0 = Date.now();
      while (!md.requests.some((r) => r === "PUT /latest/api/token") && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
      assert.ok(md.requests.some((r) => r === "PUT /latest/api/token"), "IMDSv2 token requested");
      md.notice = true;
      const noticeAt = Date.now();
      const exit = await node.exit;
      const took = Date.now() - noticeAt;
      assert.deepEqual(exit, { code: 0, signal: null });
      assert.ok(took < deadlineMs, `left ${took} ms after the notice`);
      assert.ok(node.lines.some((l) => l.msg === "preemption notice"));
      const leaving = node.lines.find((l) => l.msg === "leaving");
      assert.equal(leaving?.reason, "preemption");
      const result = node.result();
      const runId = runIdOf({ ...PRESETS["tiny-spsa"], iterations: 100000 });
      const path = join(dir, "runs", runId.slice(0, 16), "checkpoint.ssck");
      assert.ok(existsSync(path));
      const cp = await loadCheckpoint(path);
      assert.equal(cp.iteration, result.iteration);
      assert.equal(cp.checksum, result.checksum);
      assert.ok(cp.iteration >= 3 && cp.iteration < 100000);
    } finally {
      await md.stop();
    }
  });
});
