/**
 * `seedswarm swarm --nodes N`: N real `seedswarm node` processes on this machine (loopback TCP),
 * the first one bootstrapping the others, with one combined progress view. At the end it
 * evaluates the shared model (every node holds the same bytes) on the test set.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { RunSpec } from "../../protocol/run-spec.js";
import type { BackendChoice } from "../../training/engine.js";
import type { LmForwardOptions } from "../../training/backends.js";
import { checkpointPath } from "../store/data-dir.js";
import { loadOrCreateIdentity } from "../store/identity.js";
import { freePort } from "../network/free-port.js";
import type { RunSources } from "../store/training-run.js";
import type { Logger } from "../ground/index.js";
import { GC_ON_MAIN_THREAD_FLAG } from "../ops/heap-policy.js";

export interface LocalSwarmOptions {
  readonly nodes: number;
  readonly dataDir: string;
  readonly backend: BackendChoice;
  /** Every node's language-model forward engine and its cores (default: each node's own). */
  readonly lmForward?: LmForwardOptions;
  /** Node i runs on nodeBackends[i] where given (a straggler on the pure-JS backend), else on `backend`. */
  readonly nodeBackends?: readonly BackendChoice[];
  readonly stopAt: number;
  /** Arguments that select the run spec, passed to every node (--preset/--spec/--iterations). */
  readonly specArgs: readonly string[];
  readonly spec: RunSpec;
  /** The CLI entry to start nodes with. */
  readonly cli: string;
  readonly signal?: AbortSignal;
  /** Node i serves HTTP on 127.0.0.1:(base + i); 0: each on a free port; null: no HTTP. */
  readonly httpBasePort?: number | null;
  /** Each node's evaluation subset size (--eval-limit; absent: the node's default). */
  readonly evalLimit?: number;
  /** The run's files on this machine (a transformer's checkpoint and text, an IDX directory), given to every node. */
  readonly sources?: RunSources;
}

interface Member {
  readonly index: number;
  readonly child: ChildProcess;
  head: number;
  checksum: string;
  loss: number;
  peerId?: string;
  addr?: string;
  url?: string;
  exit?: number | null;
}

export interface LocalSwarmResult {
  readonly iteration: number;
  readonly checksums: string[];
  readonly agree: boolean;
  /** Held-out accuracy of the final model (null for a causal-LM run). */
  readonly testAccuracy: number | null;
  /** Held-out mean loss of the final model. */
  readonly testLoss: number;
  readonly seconds: number;
}

/** Runs the swarm to `stopAt` and reports. Node logs go to <dataDir>/swarm/node-i.log. */
export async function runLocalSwarm(opts: LocalSwarmOptions, log: Logger): Promise<LocalSwarmResult> {
  const started = performance.now();
  const base = join(opts.dataDir, "swarm");
  await mkdir(base, { recursive: true });
  const members: Member[] = [];
  const { createWriteStream } = await import("node:fs");
  const spawnNode = (index: number, listenPort: number, bootstrap?: string): Member => {
    const dir = join(base, `node-${index}`);
    const args = [
      opts.cli,
      "node",
      ...opts.specArgs,
      "--data-dir",
      dir,
      "--listen",
      `/ip4/127.0.0.1/tcp/${listenPort}`,
      "--no-mdns",
      "--backend",
      opts.nodeBackends?.[index] ?? opts.backend,
      ...(opts.lmForward ? ["--lm-forward", opts.lmForward.forward, "--threads", String(opts.lmForward.threads)] : []),
      "--stop-at",
      String(opts.stopAt),
      ...(opts.evalLimit === undefined ? [] : ["--eval-limit", String(opts.evalLimit)]),
      ...sourceArgs(opts.sources ?? {}),
      ...(opts.httpBasePort == null ? [] : ["--http", `127.0.0.1:${opts.httpBasePort && opts.httpBasePort + index}`]),
      // The first node waits for the others, so the whole swarm trains from iteration 0; the
      // others, started at the same time, wait for it (never starting a chain of their own).
      ...(bootstrap ? ["--bootstrap", bootstrap, "--join-wait", "30000"] : ["--join-wait", "30000", "--min-peers", String(opts.nodes - 1)]),
    ];
    // The nodes share this machine's cores: each collects garbage on its own thread (heap-policy.ts).
    const child = spawn(process.execPath, [GC_ON_MAIN_THREAD_FLAG, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    const m: Member = { index, child, head: 0, checksum: "", loss: Number.NaN };
    const file = createWriteStream(`${dir}.log`);
    let buf = "";
    child.stdout?.on("data", (d: Buffer) => {
      file.write(d);
      buf += d.toString();
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const text = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          const l = JSON.parse(text);
          if (l.msg === "applied") {
            m.head = l.iteration;
            m.checksum = l.checksum;
            if (typeof l.loss === "number") m.loss = l.loss;
          } else if (l.msg === "http listening") {
            m.url = l.url;
            log.info({ node: index, url: l.url }, "node dashboard");
          } else if (l.msg === "node started") {
            m.peerId = l.peerId;
            m.addr = l.addrs?.[0];
          }
        } catch {
          // not JSON
        }
      }
    });
    child.stderr?.on("data", (d: Buffer) => file.write(d));
    child.on("exit", (code) => {
      m.exit = code;
      // The first node failed before starting (its port taken meanwhile, a bad flag): the others
      // would only wait for it; stop them, so the error shows at once.
      if (index === 0 && code !== 0 && m.peerId === undefined)
        for (const o of members) if (o.exit === undefined) o.child.kill("SIGTERM");
    });
    members.push(m);
    return m;
  };

  // All nodes start at once (each spends a second or more loading its backend and data): the
  // first node's identity and port are fixed here, so the others know its address in advance
  // and dial it until it answers.
  const firstDir = join(base, "node-0");
  await mkdir(firstDir, { recursive: true });
  const firstId = (await loadOrCreateIdentity(firstDir)).peerId.toString();
  const firstPort = await freePort();
  const bootstrap = `/ip4/127.0.0.1/tcp/${firstPort}/p2p/${firstId}`;
  spawnNode(0, firstPort);
  for (let i = 1; i < opts.nodes; i++) spawnNode(i, 0, bootstrap);
  log.info({ nodes: opts.nodes, logs: base, bootstrap }, "swarm started");

  const onAbort = () => {
    for (const m of members) if (m.exit === undefined) m.child.kill("SIGTERM");
  };
  opts.signal?.addEventListener("abort", onAbort);
  let lastHead = 0;
  let lastTime = performance.now();
  const timer = setInterval(() => {
    const heads = members.map((m) => m.head);
    const head = Math.min(...heads);
    const now = performance.now();
    const rate = ((head - lastHead) * 1000) / (now - lastTime);
    lastHead = head;
    lastTime = now;
    const atHead = members.filter((m) => m.head === Math.max(...heads));
    const agree = new Set(atHead.map((m) => m.checksum)).size === 1;
    const losses = members.map((m) => m.loss).filter(Number.isFinite);
    const loss = losses.length ? losses.reduce((a, b) => a + b, 0) / losses.length : Number.NaN;
    log.info(
      { iteration: head, total: opts.stopAt, itPerSec: Math.round(rate * 10) / 10, loss: Math.round(loss * 1000) / 1000, nodes: members.filter((m) => m.exit === undefined).length, checksumsAgree: agree },
      "swarm progress",
    );
  }, 2000);
  await Promise.all(members.map((m) => new Promise((r) => (m.exit !== undefined ? r(null) : m.child.on("exit", r)))));
  clearInterval(timer);
  opts.signal?.removeEventListener("abort", onAbort);

  const failed = members.filter((m) => m.exit !== 0);
  if (failed.length > 0) throw new Error(`node(s) ${failed.map((m) => m.index).join(", ")} exited with an error; see ${base}/node-*.log`);
  // Every node's checkpoint holds the final state; they must be identical. The training code is
  // loaded only now: imported up front, it held the nodes' start back by 0.4 s.
  const [{ useBackend }, { loadCheckpoint }, { openTrainingRun }] = await Promise.all([
    import("../../training/engine.js"),
    import("../store/checkpoint.js"),
    import("../store/training-run.js"),
  ]);
  await useBackend(opts.backend, log);
  // Only the final evaluation runs here: tfjs, no engine worker to start for it.
  const run = await openTrainingRun(opts.spec, opts.sources ?? {}, undefined, { forward: "tfjs", threads: 1 });
  const cps = await Promise.all(members.map((m) => loadCheckpoint(checkpointPath(join(base, `node-${m.index}`), run.runId))));
  const checksums = cps.map((c) => c.checksum);
  const agree = new Set(checksums).size === 1 && new Set(cps.map((c) => c.iteration)).size === 1;
  const replica = run.replicaAt(cps[0].weights, cps[0].iteration);
  const test = run.heldOut(replica.backend.tensors);
  replica.dispose();
  const seconds = (performance.now() - started) / 1000;
  log.info({ iteration: cps[0].iteration, agree, checksum: checksums[0], testAccuracy: test.accuracy, testLoss: test.loss, seconds: Math.round(seconds) }, "swarm done");
  return { iteration: cps[0].iteration, checksums, agree, testAccuracy: test.accuracy, testLoss: test.loss, seconds };
}

/** The node flags that hand it the run's files. */
function sourceArgs(s: RunSources): string[] {
  return [
    ...(s.modelDir === undefined ? [] : ["--model-dir", s.modelDir]),
    ...(s.dataFile === undefined ? [] : ["--data-file", s.dataFile]),
    ...(s.idxDir === undefined ? [] : ["--idx-dir", s.idxDir]),
  ];
}
