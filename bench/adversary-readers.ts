/**
 * Peers that never read (security review, finding 3), measured on real node processes: three
 * `seedswarm node` processes train tiny-spsa on loopback; 32 hostile libp2p hosts (in this
 * process) pause every gossipsub stream the nodes open to them, subscribe to every topic of the
 * run, and keep 16 unread streams per sync protocol open on every node (the largest snapshot
 * chunk, /commits from 0, a checksum, the spec), opening new ones as the nodes reset them. The
 * same swarm for the same time without them is the control. Figures: each run's largest RSS growth
 * of a node over its RSS when the attack began (sampled every 2 s), the iterations trained, and
 * what the nodes did to the hostile streams.
 *
 * SEEDSWARM_BENCH_READERS_SECONDS shortens each run (default 300); SEEDSWARM_BENCH_READERS_HOSTS
 * sets the hostile hosts (default 32).
 */
import "../node/ground/polyfills.js";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import type { Stream } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import type { SwarmNode } from "../node/network/libp2p.js";
import { PRESETS } from "../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../protocol/run-spec.js";
import { stringifyTopic, TOPIC_KINDS } from "../protocol/topics.js";
import { cleanup, type Node, startSwarm } from "../test/e2e/node-process.js";
import { largestRequests, pausedSubscriber, rssMiB, unreadStreams } from "../test/e2e/paused-reader.js";
import { CHAIN_KEEP } from "../node/chain/commit.js";
import { SMALL_HEAP_ENV } from "../node/ops/heap-policy.js";

interface Run {
  /** Largest RSS growth of a node over its RSS when the attack (or the control's window) began, MiB. */
  readonly growthMb: number;
  /** RSS of each node at the start of the window, MiB. */
  readonly baseMb: readonly number[];
  /** Iterations the slowest node applied during the window. */
  readonly iterations: number;
  /** Unread streams opened, and how many the nodes reset. */
  readonly opened: number;
  readonly reset: number;
  /** Hostile hosts that connected to every node. */
  readonly hosts: number;
  /** Connections the nodes' slow-reader guard closed. */
  readonly guardClosed: number;
}

/** Iterations before the window (control or attack) begins: the chain history is full by then. */
const WARM_ITERATIONS = CHAIN_KEEP + 500;

const headOf = (n: Node) => Math.max(-1, ...n.lines.filter((l) => l.msg === "applied").map((l) => l.iteration ?? -1));

/** `smallHeap`: the nodes run as docs/security.md advises for open runs exposed to hostile peers (`--small-heap` and its start-up half). */
async function runOnce(seconds: number, hostCount: number, smallHeap = false): Promise<Run> {
  const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], iterations: 1_000_000 });
  const runId = runIdOf(spec);
  const topics = TOPIC_KINDS.map((kind) => stringifyTopic({ runId, kind }));
  const env = smallHeap ? { ...SMALL_HEAP_ENV } : {};
  const nodes = await startSwarm(3, ["--iterations", "1000000", "--stop-at", "1000000", ...(smallHeap ? ["--small-heap"] : [])], [env, env, env]);
  const addrs = await Promise.all(nodes.map((n) => n.address()));
  const ids = addrs.map((a) => peerIdFromString(a.split("/p2p/")[1]));
  const hosts: SwarmNode[] = [];
  let failedHosts = 0;
  try {
    // Warm-up until every node keeps a full chain history (CHAIN_KEEP commits): memory grows by
    // itself until then, and from an earlier base that growth would count as the attack's.
    await Promise.all(nodes.map((n) => n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= WARM_ITERATIONS, 600_000, `iteration ${WARM_ITERATIONS}`)));
    // A host whose handshakes keep timing out (a loaded machine) is left out, and counted.
    for (let i = 0; i < hostCount; i++) {
      await pausedSubscriber(addrs, topics).then((h) => hosts.push(h), () => failedHosts++);
      process.stderr.write(`\rpaused readers: ${hosts.length}/${hostCount} hosts connected, ${failedHosts} failed`);
    }
    if (hostCount > 0) process.stderr.write("\n");
    const base = nodes.map((n) => rssMiB(n.child.pid!));
    const head0 = Math.min(...nodes.map(headOf));
    /** Per (host, node): its unread streams, topped up to 16 per protocol as the nodes reset them. */
    const slots = hosts.flatMap((h) => ids.map((id) => ({ h, id, streams: [] as Stream[] })));
    const topUp = () =>
      Promise.all(
        slots.map(async (slot) => {
          for (const req of largestRequests(runId)) {
            const open = slot.streams.filter((s) => s.protocol === req[0] && s.status === "open").length;
            if (open < 16) slot.streams.push(...(await unreadStreams(slot.h, slot.id, [req], 16 - open)));
          }
        }),
      );
    let peak = base.slice();
    const began = Date.now();
    let lastTopUp = 0;
    while (Date.now() - began < seconds * 1000) {
      if (Date.now() - lastTopUp > 10_000) {
        await topUp();
        lastTopUp = Date.now();
      }
      peak = peak.map((p, i) => Math.max(p, rssMiB(nodes[i].child.pid!)));
      await sleep(2000);
    }
    const streams = slots.flatMap((s) => s.streams);
    return {
      growthMb: Math.max(...peak.map((p, i) => p - base[i])),
      baseMb: base,
      iterations: Math.min(...nodes.map(headOf)) - head0,
      opened: streams.length,
      reset: streams.filter((s) => s.status !== "open").length,
      hosts: hosts.length,
      guardClosed: nodes.reduce((t, n) => t + n.lines.filter((l) => l.msg === "peer not reading what we send; disconnected").length, 0),
    };
  } finally {
    await Promise.all(hosts.map((h) => h.stop()));
    for (const n of nodes) n.child.kill("SIGKILL");
    await Promise.all(nodes.map((n) => n.exit));
    await cleanup();
  }
}

/** Runs the control and the attack; returns the figures and a markdown paragraph. */
export async function pausedReadersFigures(): Promise<{ figures: Record<string, number>; markdown: string }> {
  const seconds = Number(process.env.SEEDSWARM_BENCH_READERS_SECONDS ?? 300);
  const hostCount = Number(process.env.SEEDSWARM_BENCH_READERS_HOSTS ?? 32);
  const control = await runOnce(seconds, 0);
  const attack = await runOnce(seconds, hostCount);
  const small = await runOnce(seconds, hostCount, true);
  const figures = {
    paused_readers_rss_growth_mb: round(small.growthMb),
    paused_readers_rss_growth_mb_default_heap: round(attack.growthMb),
    paused_readers_control_rss_growth_mb: round(control.growthMb),
    paused_readers_iterations: small.iterations,
    paused_readers_iterations_default_heap: attack.iterations,
    paused_readers_control_iterations: control.iterations,
    paused_readers_streams_opened: attack.opened,
    paused_readers_streams_reset: attack.reset,
    paused_readers_guard_disconnects: attack.guardClosed,
    paused_readers_seconds: seconds,
    paused_readers_hosts: attack.hosts,
  };
  const markdown = [
    `Three tiny-spsa nodes on loopback for ${seconds} s each run. Attack: ${attack.hosts} hostile hosts pause every gossipsub`,
    "stream the nodes open to them, subscribe to every topic, and keep unread streams of every sync protocol open on every",
    "node (the largest snapshot chunk, /commits from 0, a checksum, the spec; reopened as the nodes reset them). Control: the",
    `same swarm alone. Each run warms up to iteration ${WARM_ITERATIONS} (every node's chain history full) before the hosts`,
    "connect. RSS sampled every 2 s from /proc; growth is over each node's RSS when the window began (the hosts connected). Small heap: the nodes run as docs/security.md advises for open runs exposed to hostile peers (`--small-heap`,",
    `${Object.entries(SMALL_HEAP_ENV).map(([k, v]) => `${k}=${v}`).join(", ")}); \`paused_readers_rss_growth_mb\` is that run's.`,
    "",
    "| run | largest RSS growth of a node | iterations in the window | unread streams opened | reset by the nodes | guard disconnects |",
    "|---|---|---|---|---|---|",
    `| control | ${round(control.growthMb)} MiB | ${control.iterations} | - | - | - |`,
    `| ${attack.hosts} paused readers | ${round(attack.growthMb)} MiB | ${attack.iterations} | ${attack.opened} | ${attack.reset} | ${attack.guardClosed} |`,
    `| ${small.hosts} paused readers, small heap | ${round(small.growthMb)} MiB | ${small.iterations} | ${small.opened} | ${small.reset} | ${small.guardClosed} |`,
  ].join("\n");
  return { figures, markdown };
}

const round = (x: number) => Math.round(x * 10) / 10;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const r = await pausedReadersFigures();
  process.stdout.write(`${JSON.stringify(r.figures, null, 2)}\n\n${r.markdown}\n`);
}
