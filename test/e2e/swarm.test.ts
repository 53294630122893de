/**
 * Real swarms: node processes on 127.0.0.1 over TCP, real signals. tiny-spsa rounds are fast, so
 * every scenario finishes in seconds.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec } from "../../protocol/run-spec.js";
import { useBackend } from "../../training/engine.js";
import { initialReplica, openRun } from "../../training/run-context.js";

const CLI = join(import.meta.dirname, "..", "..", "cli", "main.js");
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const dirs: string[] = [];
const procs: ChildProcess[] = [];
after(async () => {
  for (const p of procs) if (p.exitCode === null) p.kill("SIGKILL");
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

type Line = Record<string, unknown> & { msg?: string; iteration?: number; checksum?: string };

/** One `seedswarm node` process and its parsed JSON log lines. */
class Node {
  readonly lines: Line[] = [];
  readonly child: ChildProcess;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: { pred: (l: Line) => boolean; resolve: (l: Line) => void }[] = [];

  constructor(
    readonly dataDir: string,
    args: string[],
    env: Record<string, string> = {},
  ) {
    this.child = spawn(
      process.execPath,
      [
        CLI,
        "node",
        "--preset",
        "tiny-spsa",
        "--no-mdns",
        "--listen",
        "/ip4/127.0.0.1/tcp/0",
        "--data-dir",
        dataDir,
        "--backend",
        "wasm",
        ...args,
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } },
    );
    procs.push(this.child);
    let buf = "";
    this.child.stdout?.on("data", (d: Buffer) => {
      buf += d.toString();
      let i = buf.indexOf("\n");
      while (i >= 0) {
        const text = buf.slice(0, i);
        buf = buf.slice(i + 1);
        i = buf.indexOf("\n");
        try {
          const line = JSON.parse(text) as Line;
          this.lines.push(line);
          this.waiters = this.waiters.filter((w) =>
            w.pred(line) ? (w.resolve(line), false) : true,
          );
        } catch {
          // not a JSON line
        }
      }
    });
    this.child.stderr?.on("data", () => {});
    this.exit = new Promise((resolve) =>
      this.child.on("exit", (code, signal) => resolve({ code, signal })),
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
      this.waiters.push({ pred, resolve: (l) => (clearTimeout(timer), resolve(l)) });
    });
  }

  async address(): Promise<string> {
    const l = await this.waitFor((x) => x.msg === "node started", 10_000, "node started");
    return (l.addrs as string[])[0];
  }

  applied(iteration: number): Line | undefined {
    return this.lines.find((l) => l.msg === "applied" && l.iteration === iteration);
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
  }[] {
    const runs = join(this.dataDir, "runs");
    const dir = readdirSync(runs)[0];
    return readFileSync(join(runs, dir, "commits.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  }
}

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "seedswarm-swarm-"));
  dirs.push(d);
  return d;
}

async function startSwarm(
  n: number,
  args: string[],
  env: Record<string, string>[] = [],
): Promise<Node[]> {
  const first = new Node(await tempDir(), [...args, "--join-wait", "1500"], env[0]);
  const addr = await first.address();
  const rest = [];
  for (let i = 1; i < n; i++)
    rest.push(new Node(await tempDir(), [...args, "--bootstrap", addr], env[i]));
  return [first, ...rest];
}

/** Replays a node's commit log in this process; returns the checksum after each iteration. */
async function replay(commits: ReturnType<Node["commits"]>): Promise<Map<number, string>> {
  await useBackend("wasm");
  const run = await openRun(spec);
  const r = initialReplica(run);
  const sums = new Map<number, string>();
  for (const c of commits) {
    assert.equal(c.iteration, r.iteration, "commit log is contiguous");
    r.applyIteration(
      run.algorithm,
      c.entries.map((e) => ({
        author: { id: e.author, joinedAt: e.joinedAt },
        payload: Buffer.from(e.payload, "hex"),
      })),
    );
    sums.set(r.iteration, r.checksum());
  }
  r.dispose();
  return sums;
}

describe("swarm of real node processes", () => {
  it("3 nodes, 30 iterations: identical checksums, equal to a single-process replay", async () => {
    const nodes = await startSwarm(3, ["--stop-at", "30"]);
    const exits = await Promise.all(nodes.map((n) => n.exit));
    for (const e of exits) assert.equal(e.code, 0);
    const results = nodes.map((n) => n.result());
    assert.deepEqual(new Set(results.map((r) => r.iteration)), new Set([30]));
    assert.equal(new Set(results.map((r) => r.checksum)).size, 1, "all nodes end bit-identical");
    const commits = nodes[1].commits();
    assert.equal(commits.length, 30);
    const authors = new Set(commits.flatMap((c) => c.entries.map((e) => e.author)));
    assert.deepEqual(
      authors,
      new Set(results.map((r) => r.peerId)),
      "every node's contributions were included",
    );
    assert.ok(
      commits.filter((c) => c.entries.length === 3).length >= 25,
      "nearly every iteration has all 3 contributions",
    );
    const sums = await replay(commits);
    assert.equal(sums.get(30), results[0].checksum);
  });

  it("a node joining at ~15 ends bit-identical; SIGKILL of a node mid-run does not stop the rest", async () => {
    const long = ["--iterations", "100000", "--stop-at", "300"];
    const [a, b, victim] = await startSwarm(3, long);
    await a.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 15, 30_000, "iteration 15");
    const joiner = new Node(await tempDir(), [...long, "--bootstrap", await a.address()]);
    await joiner.waitFor((l) => l.msg === "caught up", 20_000, "joiner caught up");
    await joiner.waitFor(
      (l) => l.msg === "applied" && (l.iteration ?? 0) >= 150,
      30_000,
      "joiner at 150",
    );
    victim.child.kill("SIGKILL");
    const killedAt = a.lines.filter((l) => l.msg === "applied").length;
    const exits = await Promise.all([a.exit, b.exit, joiner.exit]);
    for (const e of exits) assert.equal(e.code, 0);
    const sums = [a, b, joiner].map((n) => n.result().checksum);
    assert.equal(new Set(sums).size, 1, "survivors and joiner end bit-identical");
    assert.equal(joiner.result().iteration, 300);
    // The joiner contributed after catching up.
    const joinerId = joiner.result().peerId;
    assert.ok(
      a.commits().some((c) => c.entries.some((e) => e.author === joinerId)),
      "joiner's contributions are included",
    );
    // After the kill, no round waited much longer than the proposer's deadline (0.5 x 500 ms).
    const after = a.lines.filter((l) => l.msg === "applied").slice(killedAt + 1);
    const slow = after.filter((l) => (l.ms as number) > 900);
    assert.ok(slow.length <= 1, `rounds after the kill: ${after.map((l) => l.ms).join(",")}`);
  });

  it("SIGTERM: exit 0 with a checkpoint; a restart from the same data dir catches up", async () => {
    const long = ["--iterations", "100000", "--stop-at", "100000"];
    const [a, b] = await startSwarm(2, long);
    await b.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 10, 30_000, "iteration 10");
    b.child.kill("SIGTERM");
    const exit = await b.exit;
    assert.equal(exit.code, 0);
    const written = b.lines.find((l) => l.msg === "checkpoint written");
    assert.ok(written, "checkpoint written on SIGTERM");
    const left = written.iteration ?? 0;
    const runs = join(b.dataDir, "runs");
    assert.ok(existsSync(join(runs, readdirSync(runs)[0], "checkpoint.ssck")));
    await a.waitFor(
      (l) => l.msg === "applied" && (l.iteration ?? 0) >= left + 10,
      30_000,
      "a goes on alone",
    );
    const again = new Node(b.dataDir, [...long, "--bootstrap", await a.address()]);
    const resumed = await again.waitFor(
      (l) => l.msg === "resumed from checkpoint",
      10_000,
      "resumed",
    );
    assert.equal(resumed.iteration, left);
    const caught = await again.waitFor((l) => l.msg === "caught up", 20_000, "restart caught up");
    const k = (caught.iteration ?? 0) + 20;
    const mine = await again.waitFor(
      (l) => l.msg === "applied" && l.iteration === k,
      20_000,
      `restarted node at ${k}`,
    );
    const theirs = await a.waitFor(
      (l) => l.msg === "applied" && l.iteration === k,
      20_000,
      `a at ${k}`,
    );
    assert.equal(mine.checksum, theirs.checksum, "bit-identical after the restart");
    a.child.kill("SIGTERM");
    again.child.kill("SIGTERM");
    const [ea, eb] = await Promise.all([a.exit, again.exit]);
    assert.equal(ea.code, 0);
    assert.equal(eb.code, 0);
    assert.equal(again.result().peerId, b.result().peerId, "same identity after restart");
  });

  it("a flipped weight bit is detected within C iterations and repaired from peers", async () => {
    const nodes = await startSwarm(
      3,
      ["--stop-at", "50", "--check-every", "10"],
      [{}, {}, { SEEDSWARM_FAULT: "corrupt@12" }],
    );
    const bad = nodes[2];
    await bad.waitFor((l) => l.msg === "fault injected: one weight bit flipped", 30_000, "fault");
    const repaired = await bad.waitFor((l) => l.msg === "repaired", 30_000, "repair");
    assert.ok(
      (repaired.iteration ?? 0) <= 12 + 10 + 1,
      `repaired by iteration ${repaired.iteration}`,
    );
    const exits = await Promise.all(nodes.map((n) => n.exit));
    for (const e of exits) assert.equal(e.code, 0);
    assert.equal(
      new Set(nodes.map((n) => n.result().checksum)).size,
      1,
      "bit-identical after repair",
    );
  });
});
