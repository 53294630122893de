/**
 * Swarm benchmarks (issue 3): bytes per iteration on the wire, CPU overhead of networking, time
 * for a joiner to reach the head, and statistical scaling with the number of nodes.
 */
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { localAuthors, localIteration } from "../node/local/local-trainer.js";
import { encodeContribution } from "../protocol/codec.js";
import { PRESETS } from "../protocol/presets.js";
import {
  algorithmOf,
  parseRunSpec,
  type RunSpec,
  runIdOf,
} from "../protocol/run-spec.js";
import { loadMnist } from "../training/data/mnist.js";
import { useBackend } from "../training/engine.js";
import { evaluate } from "../training/evaluate.js";
import { initialReplica, openRun } from "../training/run-context.js";
import { cleanup, Node, startSwarm, tempDir } from "../test/e2e/node-process.js";
import { fmt, type Section } from "./report.js";
import { GC_ON_MAIN_THREAD_FLAG } from "../node/ops/heap-policy.js";

/** Bytes acknowledged and received on every TCP connection of a process (ss -tinp). */
function tcpBytes(pid: number): { sent: number; received: number } {
  const out = execFileSync("ss", ["-tinp"], { encoding: "utf8" });
  const lines = out.split("\n");
  let sent = 0;
  let received = 0;
  for (let i = 0; i < lines.length - 1; i++) {
    if (!lines[i].includes(`pid=${pid},`)) continue;
    const info = lines[i + 1];
    sent += Number(/bytes_acked:(\d+)/.exec(info)?.[1] ?? 0);
    received += Number(/bytes_received:(\d+)/.exec(info)?.[1] ?? 0);
  }
  return { sent, received };
}

/** CPU seconds (user + system) a process has used. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function specFile(spec: RunSpec): Promise<string> {
  const path = join(await tempDir(), "spec.json");
  await writeFile(path, JSON.stringify(spec));
  return path;
}

const MNIST_SPEC = parseRunSpec({ ...PRESETS["mnist-mlp-spsa"], iterations: 100_000 });

export async function wireSection(): Promise<Section> {
  const spec = MNIST_SPEC;
  const k = algorithmOf(spec, "spsa").perturbations;
  const payload = encodeContribution({
    runId: runIdOf(spec),
    iteration: 123_456,
    // An Ed25519 peer id's size: the identity multihash of a 36-byte key protobuf.
    author: Uint8Array.of(0x00, 0x24, 0x08, 0x01, 0x12, 0x20, ...new Uint8Array(32)),
    joinedAt: Date.now(),
    payload: new Uint8Array(k),
    parentHash: new Uint8Array(32),
    signature: new Uint8Array(64),
  }).length;
  const path = await specFile(spec);
  // Audits off: their CPU is issue 15's budget (`audit_overhead_ratio`, up to 10%), not networking.
  const nodes = await startSwarm(3, ["--spec", path, "--stop-at", "400", "--log-level", "info", "--audit-budget", "0"]);
  try {
    const pid = nodes[0].child.pid ?? 0;
    const at = async (it: number) => {
      await nodes[0].waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= it, 120_000, `iteration ${it}`);
      return { it: nodes[0].lines.filter((l) => l.msg === "applied").length, bytes: tcpBytes(pid), cpu: cpuSeconds(pid), time: performance.now() };
    };
    const a = await at(100);
    const b = await at(350);
    const iters = b.it - a.it;
    const sentPerIt = (b.bytes.sent - a.bytes.sent) / iters;
    const recvPerIt = (b.bytes.received - a.bytes.received) / iters;
    const cpuPerIt = (b.cpu - a.cpu) / iters;
    await Promise.all(nodes.map((n) => n.exit));

    // The same step with networking off, also as three concurrent processes (same contention).
    const worker = join(import.meta.dirname, "step-worker.js");
    const outs = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<string>((resolve, reject) =>
            execFile(process.execPath, [GC_ON_MAIN_THREAD_FLAG, worker, path, "250"], (err, stdout) => (err ? reject(err) : resolve(stdout))),
          ),
      ),
    );
    const localCpuPerIt = outs.map((o) => JSON.parse(o).cpuMsPerIteration / 1000).reduce((a2, b2) => a2 + b2, 0) / outs.length;
    const run = await openRun(spec, await loadMnist());
    const full = run.model.layout.size * 4;
    return {
      id: "wire",
      title: "Swarm: bytes on the wire and networking overhead",
      command: "npm run bench -- --only wire",
      markdown: `Three \`seedswarm node\` processes on loopback train the MNIST MLP (${run.model.layout.size} parameters, ${k} perturbations per node per iteration). Measured on node 0 between iterations 100 and 350: TCP bytes acknowledged (sent) and received on all its connections (\`ss -tinp\`: gossipsub framing, signatures, Noise, Yamux, commits, heartbeats, DHT traffic included), and its CPU time per iteration (\`/proc/<pid>/stat\`).

- Contribution message (the payload a node publishes per iteration, protobuf with runId, iteration, join time): ${payload} bytes for k = ${k} (target <= k + 64 = ${k + 64}).
- On the wire per node per iteration: ${fmt(sentPerIt)} bytes sent, ${fmt(recvPerIt)} bytes received; a full float32 gradient is ${full} bytes (${fmt(full / sentPerIt)}x more).
- CPU per iteration: ${fmt(cpuPerIt * 1000)} ms networked vs ${fmt(localCpuPerIt * 1000)} ms for the same step with networking off (one contribution computed, three applied; three such processes at once, like the three nodes). The nodes run with audits off (\`--audit-budget 0\`): audits are issue 15's budget, up to 10% of a node's CPU (\`audit_overhead_ratio\`), and would count here otherwise. Target overhead <= 5%.`,
      figures: {
        payload_bytes_per_iteration: payload,
        wire_bytes_per_iteration: sentPerIt,
        wire_bytes_received_per_iteration: recvPerIt,
        network_overhead_ratio: cpuPerIt / localCpuPerIt - 1,
      },
    };
  } finally {
    await cleanup();
  }
}

export async function joinSection(): Promise<Section> {
  const rows: string[] = [];
  const figures: Record<string, number> = {};
  try {
    for (const hidden of [128, 1270]) {
      const spec = parseRunSpec({
        ...PRESETS["mnist-mlp-spsa"],
        name: `join-${hidden}`,
        model: { kind: "mlp", inputShape: [28, 28, 1], hidden: [hidden], classes: 10 },
        algorithm: { ...PRESETS["mnist-mlp-spsa"].algorithm, perturbations: 2, batchSize: 32 },
        iterations: 100_000,
      });
      const params = 784 * hidden + hidden + hidden * 10 + 10;
      const path = await specFile(spec);
      const [a] = await startSwarm(2, ["--spec", path, "--stop-at", "100000", "--log-level", "info"]);
      await a.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 25, 180_000, "iteration 25");
      const t0 = performance.now();
      const joiner = new Node(await tempDir(), ["--spec", path, "--stop-at", "100000", "--bootstrap", await a.address()]);
      const started = await joiner.waitFor((l) => l.msg === "node started", 60_000, "joiner started");
      const tStarted = performance.now();
      await joiner.waitFor((l) => l.msg === "caught up", 120_000, "joiner caught up");
      const seconds = (performance.now() - tStarted) / 1000;
      const total = (performance.now() - t0) / 1000;
      const snap = joiner.lines.find((l) => l.msg === "snapshot downloaded");
      rows.push(`| ${params} | ${fmt(seconds)} | ${fmt(total)} | ${snap ? `snapshot at ${snap.iteration} + commits` : "commits only"} | ${started.iteration} -> ${joiner.lines.find((l) => l.msg === "caught up")?.iteration} |`);
      figures[hidden === 1270 ? "join_seconds_1m_params" : "join_seconds_100k_params"] = seconds;
      await cleanup();
    }
  } finally {
    await cleanup();
  }
  return {
    id: "join",
    title: "Swarm: time for a joiner to reach the head",
    command: "npm run bench -- --only join",
    markdown: `Two nodes train an MLP on MNIST (2 perturbations, batch 32); once they pass iteration 25 a third node starts and joins. Seconds from the joiner's "node started" (libp2p up) to "caught up" (snapshot downloaded in chunks and checked, commits replayed to the peers' head), and from process start (includes loading MNIST and the backend).

| parameters | join (s) | from process start (s) | how | iterations |
|---|---|---|---|---|
${rows.join("\n")}`,
    figures,
  };
}

export async function scalingSection(): Promise<Section> {
  await useBackend("wasm");
  const mnist = await loadMnist();
  const spec = parseRunSpec(PRESETS["mnist-mlp-spsa"]);
  const { perturbations } = algorithmOf(spec, "spsa");
  const target = 0.6;
  // A looser loss on the way: reached while progress is still limited by the step, not by the
  // noise floor that the rate sets (docs/architecture.md, "Why more bytes per commit stop paying").
  const early = 0.7;
  const every = 25;
  const rows: string[] = [];
  const figures: Record<string, number> = {};
  for (const n of [1, 2, 4, 8]) {
    const run = await openRun(spec, mnist);
    const replica = initialReplica(run);
    const authors = localAuthors(n);
    let reached = Number.NaN;
    let reachedEarly = Number.NaN;
    while (replica.iteration < spec.iterations) {
      localIteration(run, replica, authors);
      if (replica.iteration % every !== 0) continue;
      const loss = evaluate(run.model, replica.backend.tensors, mnist.test, 2000).loss;
      if (loss <= early && Number.isNaN(reachedEarly)) reachedEarly = replica.iteration;
      if (loss <= target) {
        reached = replica.iteration;
        break;
      }
    }
    replica.dispose();
    rows.push(`| ${n} | ${reachedEarly} | ${reached} | ${n * perturbations} |`);
    figures[`rounds_to_target_n${n}`] = reached;
    figures[`rounds_to_loss_0_7_n${n}`] = reachedEarly;
  }
  return {
    id: "scaling",
    title: "Swarm: rounds to a target loss with 1, 2, 4 and 8 nodes",
    command: "npm run bench -- --only scaling",
    markdown: `Iterations (rounds) until the test loss on the first 2,000 MNIST test images is <= ${target} (and, on the way, <= ${early}), checked every ${every} iterations, for 1, 2, 4 and 8 nodes contributing ${perturbations} one-byte perturbations each (the \`mnist-mlp-spsa\` preset, learning-rate scaling \`${JSON.stringify(algorithmOf(spec, "spsa").lrScaling ?? { rule: "none" })}\`). Targets: n2 <= n1 / 2^0.9, n4 <= n1 / 4^0.9, n8 <= n1 / 8^0.8 (for loss ${target}). Each node is a simulated author applied in timestamp order, exactly the update a swarm of that size applies (\`seedswarm train --authors N\`), so the count isolates statistical scaling from network timing. One run per size (one draw of seeds): near the noise floor that the rate sets, the crossing of ${target} moves by hundreds of rounds from one draw to another.

| nodes | rounds to loss <= ${early} | rounds to loss <= ${target} | perturbations per round |
|---|---|---|---|
${rows.join("\n")}`,
    figures,
  };
}
