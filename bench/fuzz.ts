/**
 * The full wire fuzz (issue 11): 10,000 WireFuzzer cases per gossip topic and per sync protocol
 * against 3 real node processes (tiny-spsa), from a pool of hostile identities that also answer
 * the nodes' requests with hostile replies. Figures: `fuzz_messages_per_s_survived` (cases sent
 * per second of the campaign, with every node alive and agreeing at the end),
 * `hostile_rss_growth_mb` (the honest nodes' resident memory growth from just before the attack to
 * its highest during and after it, max over nodes, once their chain history is full; target <= 50) and `fuzz_crashes` (nodes that
 * did not exit 0 on SIGTERM after it). `SEEDSWARM_FUZZ_COUNT` overrides the count per topic and
 * protocol; `SEEDSWARM_FUZZ_SEED` the seed; `SEEDSWARM_FUZZ_LOG_LEVEL` the nodes' log level (info;
 * debug shows why a deep-fork check did not switch, with `SEEDSWARM_TEST_KEEP=1` to keep the logs).
 */
import { readFileSync } from "node:fs";
import { CHAIN_KEEP } from "../node/chain/commit.js";
import { ALLOCATOR_ENV, SMALL_HEAP_ENV, YOUNG_GENERATION_FLAG } from "../node/ops/heap-policy.js";
import { PRESETS } from "../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../protocol/run-spec.js";
import { PROTOCOL_NAMES, TOPIC_KINDS } from "../protocol/topics.js";
import { converged, forkSwitches, nodeCounts, notAccepted, runFuzzCampaign, syncSeen } from "../test/e2e/fuzz-campaign.js";
import { cleanup, type Node, startSwarm } from "../test/e2e/node-process.js";
import type { Section } from "./report.js";

/** A process's resident set size in MiB, from /proc (Linux). */
function rssMb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** A node's commit log, or none when it has no file (read after the node left: a failed write is logged there). */
function committed(n: Node): ReturnType<Node["commits"]> {
  try {
    return n.commits();
  } catch (err) {
    console.error(`fuzz: no commit log for ${n.dataDir}: ${(err as Error).message}`);
    return [];
  }
}

/**
 * The checksum after each iteration on the chain a node ended on, from its log. A deep fork
 * switch at t leaves the lines it logged past t on the side it left: they are dropped at the
 * switch, and when the switch adopted the winner's snapshot (no base of its own: nothing
 * replayed), so are the lines it logged on the old side while the download ran. Counting those
 * stale lines as disagreement counted every snapshot-adopting switch (762 "disagreeing"
 * iterations in a run whose nodes all agreed, 2026-11-28).
 */
function finalChecksums(n: Node): Map<number, string> {
  const m = new Map<number, string>();
  let fork: { t: number; adopt: boolean } | null = null;
  for (const l of n.lines) {
    if (l.msg === "applied") m.set(l.iteration ?? -1, l.checksum ?? "");
    else if (l.msg === "switching to a better fork") {
      fork = { t: l.iteration ?? 0, adopt: l.base === null || l.base === undefined };
      for (const k of [...m.keys()]) if (k > fork.t) m.delete(k);
    } else if (l.msg === "fork switched" && fork) {
      const h = l.iteration ?? 0;
      if (fork.adopt) for (const k of [...m.keys()]) if (k > fork.t && k <= h) m.delete(k);
      fork = null;
    }
  }
  return m;
}

/** Iterations before the control and the attack: the chain history is full by then. */
const WARM_ITERATIONS = CHAIN_KEEP + 500;

const headOf = (n: Node) => n.lines.findLast((l) => l.msg === "applied")?.iteration ?? -1;

export async function fuzzSection(): Promise<Section> {
  const count = Number(process.env.SEEDSWARM_FUZZ_COUNT ?? 10_000);
  const seed = Number(process.env.SEEDSWARM_FUZZ_SEED ?? 20_261_124);
  const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], iterations: 1_000_000 });
  const runId = runIdOf(spec);
  // Info logs by default (as a deployed node): debug lines would dominate the nodes' memory and CPU.
  // --small-heap and its start-up half (the young generation capped through NODE_OPTIONS, glibc's
  // allocator settings): the daemon's defence against garbage-driven growth (node/ops/heap-policy.ts).
  const logLevel = process.env.SEEDSWARM_FUZZ_LOG_LEVEL ?? "info";
  const nodes = await startSwarm(3, ["--iterations", "1000000", "--http", "127.0.0.1:0", "--log-level", logLevel, "--small-heap"], [0, 1, 2].map(() => ({ ...SMALL_HEAP_ENV })));
  try {
    const urls = await Promise.all(
      nodes.map(async (n) => String((await n.waitFor((l) => l.msg === "http listening", 30_000, "http listening")).url)),
    );
    // Warm-up until every node keeps a full chain history (CHAIN_KEEP commits and their
    // checksums, about 2 minutes): a node's memory grows by itself until then (25-35 MiB measured on
    // a clean swarm, then flat), and from a base taken earlier that growth would count as the
    // attack's (it did: 2026-11-28's 64 MiB was measured from iteration ~2,400).
    await Promise.all(
      nodes.map((n) => n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= WARM_ITERATIONS, 600_000, `iteration ${WARM_ITERATIONS}`)),
    );
    // Baseline after warm-up: the lowest of a few samples a second apart.
    const settle = async () => {
      const low = nodes.map(() => Infinity);
      for (let s = 0; s < 5; s++) {
        nodes.forEach((n, i) => (low[i] = Math.min(low[i], rssMb(n.child.pid))));
        await new Promise((r) => setTimeout(r, 1000));
      }
      return low;
    };
    // Control: the same nodes with no attack for a while. A node's memory grows by itself as its
    // chain grows (CHAIN_KEEP commits and checksums, caches filling), so part of any growth during
    // the attack is not the attack's.
    const controlS = Number(process.env.SEEDSWARM_FUZZ_CONTROL_S ?? 60);
    const clean0 = await settle();
    const cleanHeads = nodes.map(headOf);
    await new Promise((r) => setTimeout(r, controlS * 1000));
    const base = await settle();
    const cleanGrowth = Math.max(...base.map((b, i) => b - clean0[i]));
    const cleanIterations = nodes.map((n, i) => headOf(n) - cleanHeads[i]);
    const peak = [...base];
    const sample = () => nodes.forEach((n, i) => (peak[i] = Math.max(peak[i], rssMb(n.child.pid))));
    const timer = setInterval(sample, 250);
    const before = await Promise.all(urls.map(nodeCounts));
    const headsBefore = nodes.map(headOf);
    const switchesBefore = nodes.map(forkSwitches);
    const result = await runFuzzCampaign(nodes, {
      seed,
      runId,
      perTopic: count,
      perProtocol: count,
      burst: 100,
      concurrency: 16,
      tick: () => {
        sample();
        console.error(`fuzz: heads ${nodes.map(headOf).join("/")}, rss ${nodes.map((n) => rssMb(n.child.pid).toFixed(0)).join("/")} MiB`);
      },
    });
    const counts = await Promise.all(urls.map(nodeCounts));
    // After: progress, and a few seconds for what the attack left behind to show in memory.
    const heads = nodes.map(headOf);
    await Promise.all(nodes.map((n, i) => n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= heads[i] + 5, 60_000, "progress")));
    await new Promise((r) => setTimeout(r, 5000));
    sample();
    clearInterval(timer);
    const after = nodes.map((n) => rssMb(n.child.pid));
    const late = await Promise.all(urls.map(nodeCounts));
    const mb = (b: number) => (b / 2 ** 20).toFixed(0);
    // Not in the middle of a fork between honest proposers (see converged): a disagreement that
    // outlasts 30 s is counted below.
    const settleStart = performance.now();
    const agreed = await converged(nodes, 30_000);
    const settleS = (performance.now() - settleStart) / 1000;
    const switches = nodes.map((n, i) => forkSwitches(n) - switchesBefore[i]);
    for (const n of nodes) n.child.kill("SIGTERM");
    const exits = await Promise.all(nodes.map((n) => n.exit));
    const crashes = exits.filter((e) => e.code !== 0).length;
    const sums = nodes.map(finalChecksums);
    let disagree = 0;
    for (const [it, sum] of sums[0])
      if (sums[1].has(it) && sums[2].has(it) && (sums[1].get(it) !== sum || sums[2].get(it) !== sum)) {
        disagree++;
        console.error(`fuzz: replicas disagree at ${it}: ${sums.map((s) => s.get(it)?.slice(0, 12)).join(" / ")}`);
      }
    const hostileInChain = nodes.reduce(
      (s, n) => s + committed(n).filter((c) => c.entries.some((e) => result.ids.has(e.author))).length,
      0,
    );
    const sent = Object.values(result.published).reduce((a, b) => a + b, 0) + count * PROTOCOL_NAMES.length;
    const survived = crashes === 0 && disagree === 0 && hostileInChain === 0;
    const growth = Math.max(...peak.map((p, i) => p - base[i]));
    const reached = counts.map((c, i) => TOPIC_KINDS.reduce((s, k) => s + notAccepted(c, k) - notAccepted(before[i], k), 0));
    const syncReached = PROTOCOL_NAMES.map((p) => counts.reduce((s, c, i) => s + syncSeen(c, p) - syncSeen(before[i], p), 0));
    const figures = {
      fuzz_messages_per_s_survived: survived ? Math.round(sent / result.seconds) : 0,
      hostile_rss_growth_mb: Math.round(growth * 10) / 10,
      fuzz_crashes: crashes,
      fuzz_clean_rss_growth_mb: Math.round(cleanGrowth * 10) / 10,
    };
    const markdown = [
      `${count.toLocaleString("en")} cases per gossip topic (${TOPIC_KINDS.join(", ")}) and per sync protocol (${PROTOCOL_NAMES.join(", ")}), seed ${seed}, ` +
        `from ${result.identities} hostile identities (one burst of 100 each: gossipsub graylists an identity after its first rejects) against 3 tiny-spsa nodes run with \`--small-heap\` and \`NODE_OPTIONS=${YOUNG_GENERATION_FLAG} ${Object.entries(ALLOCATOR_ENV).map(([k, v]) => `${k}=${v}`).join(" ")}\`, after a warm-up to iteration ${WARM_ITERATIONS} (every node's chain history full: memory grows by itself until then) and a ${controlS + 5} s control; ` +
        `the campaign took ${result.seconds.toFixed(0)} s (${sent.toLocaleString("en")} cases).`,
      "",
      "| figure | value |",
      "|---|---|",
      `| cases per second, all nodes alive and agreeing | ${figures.fuzz_messages_per_s_survived} |`,
      `| crashes (nodes not exiting 0 on SIGTERM) | ${crashes} |`,
      `| iterations on which replicas disagreed (on the chain each ended on; lines a deep fork switch left behind dropped) | ${disagree} |`,
      `| commits with a hostile author | ${hostileInChain} |`,
      `| fork switches between honest commits during and after the campaign, per node | ${switches.join(" / ")} |`,
      `| agreed at the latest common iteration before SIGTERM | ${agreed ? `yes, after ${settleS.toFixed(1)} s` : "no, after 30 s"} |`,
      `| honest RSS growth, max over nodes (target <= 50) | ${figures.hostile_rss_growth_mb} MiB (base ${base.map((b) => b.toFixed(0)).join("/")}, peak ${peak.map((p) => p.toFixed(0)).join("/")}, after ${after.map((a) => a.toFixed(0)).join("/")}) |`,
      `| control: RSS growth with no attack over ${controlS + 5} s (${cleanIterations.join(" / ")} iterations), max over nodes | ${figures.fuzz_clean_rss_growth_mb} MiB |`,
      `| V8 heap used before / after, per node | ${before.map((c, i) => `${mb(c.heapUsedBytes)}/${mb(late[i].heapUsedBytes)}`).join(", ")} MiB |`,
      `| external (Buffer) memory before / after, per node | ${before.map((c, i) => `${mb(c.externalBytes)}/${mb(late[i].externalBytes)}`).join(", ")} MiB |`,
      `| gossip cases refused at validation, per node | ${reached.join(" / ")} |`,
      `| sync requests that reached a handler (all nodes), per protocol | ${syncReached.join(" / ")} |`,
      `| requests answered / closed / timed out | ${PROTOCOL_NAMES.map((p) => `${p} ${result.requests[p].answered}/${result.requests[p].closed}/${result.requests[p].timeout}`).join(", ")} |`,
      `| nodes' requests answered with hostile replies | ${result.hostileReplies} |`,
      `| iterations applied during the campaign | ${heads.map((h, i) => h - headsBefore[i]).join(" / ")} |`,
    ].join("\n");
    return { id: "fuzz", title: "Wire fuzz against 3 nodes (issue 11)", command: "npm run bench -- --only fuzz", markdown, figures };
  } finally {
    await cleanup();
  }
}
