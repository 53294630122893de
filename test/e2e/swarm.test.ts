/**
 * Real swarms: node processes on 127.0.0.1 over TCP, real signals. tiny-spsa rounds are fast, so
 * every scenario finishes in seconds.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, type RunSpec, withIterations } from "../../protocol/run-spec.js";
import { useBackend } from "../../training/engine.js";
import { initialReplica, openRun } from "../../training/run-context.js";
import { cleanup, Node, startSwarm, tempDir } from "./node-process.js";

after(cleanup);

const spec = parseRunSpec(PRESETS["tiny-spsa"]);

/** Replays a node's commit log in this process; returns the checksum after each iteration. */
async function replay(commits: ReturnType<Node["commits"]>, of: RunSpec = spec): Promise<Map<number, string>> {
  await useBackend("wasm");
  const run = await openRun(of);
  const r = initialReplica(run);
  const sums = new Map<number, string>();
  // A later line for an iteration supersedes an earlier one (a one-step fork switch).
  const byIteration = new Map(commits.map((c) => [c.iteration, c]));
  for (const c of [...byIteration.values()].sort((x, y) => x.iteration - y.iteration)) {
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
    assert.equal(new Set(commits.map((c) => c.iteration)).size, 30);
    const authors = new Set(commits.flatMap((c) => c.entries.map((e) => e.author)));
    assert.deepEqual(
      authors,
      new Set(results.map((r) => r.peerId)),
      "every node's contributions were included",
    );
    // Inclusion is not a one-off: each node is in several commits. (How many depends on process
    // start-up and scheduling on a loaded 2-core machine: a node whose gossip mesh forms last
    // joins a few iterations late.)
    for (const id of authors) {
      const n = commits.filter((c) => c.entries.some((e) => e.author === id)).length;
      assert.ok(n >= 5, `${id} is in only ${n} of 30 commits`);
    }
    const sums = await replay(commits);
    assert.equal(sums.get(30), results[0].checksum);
  });

  it("a node joining at ~15 ends bit-identical; SIGKILL of a node mid-run does not stop the rest", async () => {
    const end = 320;
    const long = ["--iterations", "100000", "--stop-at", String(end)];
    const [a, b, victim] = await startSwarm(3, long);
    await a.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 15, 30_000, "iteration 15");
    const joiner = new Node(await tempDir(), [...long, "--bootstrap", await a.address()]);
    await joiner.waitFor((l) => l.msg === "caught up", 20_000, "joiner caught up");
    // The joiner contributes once caught up: its first entry in a's chain, before the kill. (The
    // swarm runs 100-200 iterations while a joiner starts and downloads on a loaded 2-core
    // machine, so the kill waits for this, not for a fixed iteration.)
    const joinerId = (await joiner.waitFor((l) => l.msg === "node started", 1_000, "node started")).peerId as string;
    const included = async (): Promise<number> => {
      for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        const c = a.commits().find((x) => x.entries.some((e) => e.author === joinerId));
        if (c) return c.iteration;
      }
      return -1;
    };
    const first = await included();
    assert.ok(first >= 0 && first < end - 50, `joiner's contributions are included (first in ${first}, of ${end})`);
    victim.child.kill("SIGKILL");
    const killedAt = a.lines.filter((l) => l.msg === "applied").length;
    const exits = await Promise.all([a.exit, b.exit, joiner.exit]);
    for (const e of exits) assert.equal(e.code, 0);
    const sums = [a, b, joiner].map((n) => n.result().checksum);
    assert.equal(new Set(sums).size, 1, "survivors and joiner end bit-identical");
    assert.equal(joiner.result().iteration, end);
    assert.equal(joiner.result().peerId, joinerId);
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
    await again.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= k, 20_000, `restarted node at ${k}`);
    await a.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= k, 20_000, `a at ${k}`);
    // Every iteration both applied after the restart has the same checksum on both.
    const mineSums = again.checksums();
    const theirs = a.checksums();
    const common = [...mineSums.keys()].filter((it) => it > (caught.iteration ?? 0) && theirs.has(it));
    assert.ok(common.length >= 1, "the two nodes logged at least one common iteration");
    for (const it of common) assert.equal(mineSums.get(it), theirs.get(it), `iteration ${it}`);
    a.child.kill("SIGTERM");
    again.child.kill("SIGTERM");
    const [ea, eb] = await Promise.all([a.exit, again.exit]);
    assert.equal(ea.code, 0);
    assert.equal(eb.code, 0);
    assert.equal(again.result().peerId, b.result().peerId, "same identity after restart");
  });

  it("a whole swarm stopped and restarted resumes from the newest checkpoint, losing no committed iteration", async () => {
    const long = ["--iterations", "100000", "--stop-at", "100000"];
    const nodes = await startSwarm(3, long);
    await Promise.all(nodes.map((n) => n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 20, 30_000, "iteration 20")));
    for (const n of nodes) n.child.kill("SIGTERM");
    for (const e of await Promise.all(nodes.map((n) => n.exit))) assert.equal(e.code, 0);
    const saved = nodes.map((n) => n.lines.find((l) => l.msg === "checkpoint written")?.iteration ?? -1);
    const newest = Math.max(...saved);
    const ref = nodes[saved.indexOf(newest)].applied(newest)?.checksum;
    assert.ok(ref, "the newest checkpoint's iteration was applied and logged");

    const first = new Node(nodes[0].dataDir, [...long, "--join-wait", "15000", "--min-peers", "2"]);
    const addr = await first.address();
    const again = [first, ...[1, 2].map((i) => new Node(nodes[i].dataDir, [...long, "--bootstrap", addr]))];
    for (const [i, n] of again.entries()) {
      const resumed = await n.waitFor((l) => l.msg === "resumed from checkpoint", 10_000, "resumed");
      assert.equal(resumed.iteration, saved[i]);
    }
    const target = newest + 10;
    await Promise.all(again.map((n) => n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= target, 30_000, `iteration ${target}`)));
    // Nodes that stopped behind reached the newest checkpoint's exact state, by re-applying its
    // commits or by downloading a snapshot at it.
    for (const [i, n] of again.entries()) {
      if (saved[i] >= newest) continue;
      const at = n.applied(newest) ?? n.lines.find((l) => l.msg === "snapshot downloaded" && l.iteration === newest);
      if (at) assert.equal(at.checksum, ref, `node ${i} at iteration ${newest}`);
      else assert.ok(n.lines.some((l) => l.msg === "snapshot downloaded" && (l.iteration ?? 0) > newest), `node ${i} skipped ${newest} only by a later snapshot`);
    }
    const sums = again.map((n) => n.applied(target)?.checksum).filter(Boolean);
    assert.ok(sums.length >= 2, "at least two nodes logged the target iteration");
    assert.equal(new Set(sums).size, 1, "bit-identical after the restart");
    for (const n of again) n.child.kill("SIGTERM");
    for (const e of await Promise.all(again.map((n) => n.exit))) assert.equal(e.code, 0);
  });

  it("a flipped weight bit is detected within C iterations and repaired from the node's own snapshot and commits", async () => {
    const nodes = await startSwarm(
      3,
      ["--stop-at", "50", "--check-every", "10"],
      [{}, {}, { SEEDSWARM_FAULT: "corrupt@12" }],
    );
    const bad = nodes[2];
    await bad.waitFor((l) => l.msg === "fault injected: one weight bit flipped", 30_000, "fault");
    const detected = await bad.waitFor(
      (l) => l.msg === "divergence suspected" || l.msg === "diverged from peers; repairing",
      30_000,
      "detection",
    );
    assert.ok((detected.iteration ?? 0) <= 12 + 10, `detected at iteration ${detected.iteration}`);
    await bad.waitFor((l) => l.msg === "repaired", 30_000, "repair");
    // The snapshot it took at 10 still hashes to the chain's checksum there: no download.
    const rebuilt = bad.lines.find((l) => l.msg === "state rebuilt from our own snapshot and commits");
    assert.ok(rebuilt && Number(rebuilt.from) <= 12, `rebuilt locally: ${JSON.stringify(rebuilt)}`);
    assert.ok(!bad.lines.some((l) => l.msg === "state repaired from snapshot"), "no snapshot downloaded");
    const exits = await Promise.all(nodes.map((n) => n.exit));
    for (const e of exits) assert.equal(e.code, 0);
    assert.equal(
      new Set(nodes.map((n) => n.result().checksum)).size,
      1,
      "bit-identical after repair",
    );
  });

  it("a pair partitioned for 6 iterations converges on one chain equal to its replay", async () => {
    // 74 iterations after the heal: a fork found late (a check of a loaded CI machine) still has
    // checks left to be resolved in; 34 were too few in 1 of 4 CI runs.
    const [a, b] = await startSwarm(2, ["--stop-at", "100"], [{}, { SEEDSWARM_FAULT: "partition@20-26" }]);
    const [ea, eb] = await Promise.all([a.exit, b.exit]);
    assert.equal(ea.code, 0);
    assert.equal(eb.code, 0);
    assert.equal(a.result().iteration, 100);
    assert.equal(a.result().checksum, b.result().checksum, "bit-identical after the fork");
    // The chain both ended on replays, in one process, to the same weights.
    assert.equal((await replay(a.commits())).get(100), a.result().checksum);
  });

  it("a pair cut apart (every connection closed) for hundreds of iterations heals onto one chain by the fork rule", async () => {
    // Each side trains alone during the cut; after it, the side the fork rule prefers wins and the
    // other switches, from a snapshot of its own before the fork (replaying the winner's commits)
    // or, when every snapshot it keeps is newer than the fork, from the winner's snapshot vouched
    // for by the winner's linked verified commits (chaos R6 runs that case across namespaces).
    const args = ["--iterations", "500", "--check-every", "2"];
    const [a, b] = await startSwarm(2, args, [{}, { SEEDSWARM_FAULT: "cut@16-300" }]);
    const [ea, eb] = await Promise.all([a.exit, b.exit]);
    assert.equal(ea.code, 0);
    assert.equal(eb.code, 0);
    assert.ok(b.lines.some((l) => l.msg === "fault injected: cut off from every peer"), "the cut happened");
    const isSwitch = (l: { msg?: string }) => l.msg === "switching to a better fork";
    const atCut = (l: { iteration?: number }) => (l.iteration ?? 0) >= 15 && (l.iteration ?? 0) <= 17;
    const switched = [a, b].flatMap((n) => n.lines.filter(isSwitch));
    // The cut's fork. A pair may also fork after the heal (a round past its deadline while the
    // switching side replays: rank 0 and rank 1 both commit), settled by the same rule: one CI
    // run logged switches at 15 and 256. Those are not this test's subject.
    assert.ok(switched.some(atCut), `one side switched at the fork where the cut began: ${JSON.stringify(switched.map((l) => l.iteration))}`);
    assert.equal(a.result().iteration, 500);
    assert.equal(a.result().checksum, b.result().checksum, "bit-identical after the heal");
    // The cut's winner's log is one chain from the start (the loser's jumps at the adopted snapshot).
    const winner = [a, b].find((n) => !n.lines.some((l) => isSwitch(l) && atCut(l)));
    assert.ok(winner, "one side never switched at the cut");
    assert.equal((await replay(winner.commits(), withIterations(spec, 500))).get(500), a.result().checksum);
  });

  it("a node cut off alone runs ahead of the pair it left; after the cut the losing side switches well before the end", async () => {
    // Alone it commits without waiting, so every peer is behind it when the cut ends: asked only
    // at its own head, its peers could never disagree with it, and it trained alone on its
    // losing fork to the end (the fuzz run of 2026-11-28). It now checks a peer behind it at that
    // peer's head and meets the fork. Usually it loses (1 endorsement of the shared commit against
    // 2); when the fork falls on the cut's first commit with one endorsement each, rank decides
    // and the pair may be the side that switches. Either way the loser switches long before 500.
    const args = ["--iterations", "500", "--check-every", "2"];
    const nodes = await startSwarm(3, args, [{}, {}, { SEEDSWARM_FAULT: "cut@16-250" }]);
    const exits = await Promise.all(nodes.map((n) => n.exit));
    for (const e of exits) assert.equal(e.code, 0);
    assert.ok(nodes[2].lines.some((l) => l.msg === "fault injected: cut off from every peer"), "the cut happened");
    const switches = nodes.flatMap((n) => n.lines.filter((l) => l.msg === "switching to a better fork"));
    // The cut's fork. On a loaded machine honest nodes also fork later, after the heal (a round
    // past its deadline: rank 0 and rank 1 both commit), and settle those by the same rule: a CI
    // run logged switches at 16, 157 and 194. Those are not this test's subject.
    const moved = switches.filter((l) => (l.iteration ?? 0) >= 14 && (l.iteration ?? 0) <= 17);
    assert.ok(moved.length >= 1, `one side switched to the other's fork at the cut (switches at ${switches.map((l) => l.iteration).join(", ")})`);
    assert.ok(moved.every((l) => Number(l.head) < 450), `switched before the end (at heads ${moved.map((l) => l.head).join(", ")})`);
    assert.equal(new Set(nodes.map((n) => n.result().checksum)).size, 1, "bit-identical at the end");
  });
});
