/** `seedswarm swarm --nodes N`: a local swarm of real node processes with one progress view. */
import { resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { checkWritableDir } from "../node/ops/preflight.js";
import { createLogger, LOG_LEVELS, type LogLevel } from "../node/ground/index.js";
import { BACKENDS, type BackendChoice } from "../training/backends.js";
import { type LmForwardFlags, lmForwardOf, lmForwardOption, threadsOption } from "./engine-options.js";
import { intIn } from "./parse.js";
import { defaultDataDir, iterationsOption, presetOption, resolveSpec, specOption } from "./spec-options.js";

interface SwarmFlags extends LmForwardFlags {
  nodes: number;
  preset: string;
  spec?: string;
  iterations?: number;
  stopAt?: number;
  dataDir: string;
  backend: BackendChoice;
  nodeBackends?: BackendChoice[];
  logLevel: LogLevel;
  httpBasePort?: number;
  evalLimit?: number;
  modelDir?: string;
  dataFile?: string;
  idxDir?: string;
}

export function swarmCommand(program: Command): void {
  program
    .command("swarm")
    .description("Start N real node processes on this machine (loopback TCP) that train one model together")
    .addOption(presetOption())
    .addOption(specOption())
    .addOption(iterationsOption())
    .option("--nodes <n>", "number of node processes", intIn(1, 64), 3)
    .option("--stop-at <n>", "stop after n iterations (default: the run length)", intIn(1, 1e9))
    .option("--data-dir <dir>", "parent of the nodes' data dirs and logs (<dir>/swarm/node-i)", defaultDataDir())
    .addOption(new Option("--backend <name>", "tensor backend").choices(["auto", ...BACKENDS]).default("auto"))
    .option(
      "--node-backends <list>",
      "comma-separated backend per node (node i takes the i-th, overriding --backend; e.g. cpu,wasm,wasm)",
      backendList,
    )
    .addOption(lmForwardOption())
    .addOption(threadsOption("this machine's cores shared among the nodes"))
    .addOption(new Option("--log-level <level>", "log level").choices(LOG_LEVELS).default("info"))
    .option("--eval-limit <n>", "each node's test accuracy subset: the first n test examples (default: the node's, 1,000)", intIn(1, 1e9))
    .option("--model-dir <dir>", "transformer runs: the Hugging Face checkpoint every node starts from (the spec names its weights by hash)")
    .option("--data-file <file>", "transformer runs: the JSONL/CSV text file the spec names by hash")
    .option("--idx-dir <dir>", "IDX image runs: the directory of the four IDX files the spec names by hash")
    .option("--http-base-port <port>", "node i serves its dashboard on 127.0.0.1:(port + i); 0: free ports", intIn(0, 65535))
    .addHelpText(
      "after",
      `
Examples:
  $ seedswarm swarm                       # 3 nodes, MNIST, one-byte SPSA
  $ seedswarm swarm --nodes 4 --preset tiny-spsa
  $ seedswarm swarm --http-base-port 9090    # dashboards on http://127.0.0.1:9090/, :9091/, ...
  $ seedswarm swarm --node-backends cpu,wasm,wasm   # node 0 on the pure-JS backend: a straggler
  $ seedswarm swarm --preset lm-demo-spam --model-dir seedswarm-demo/model --data-file seedswarm-demo/spam.jsonl`,
    )
    .action(async (flags: SwarmFlags) => {
      const log = createLogger({ level: flags.logLevel });
      const spec = resolveSpec(flags);
      if (flags.httpBasePort && flags.httpBasePort + flags.nodes - 1 > 65535) {
        throw new InvalidArgumentError(`--http-base-port ${flags.httpBasePort} + ${flags.nodes} nodes goes past port 65535`);
      }
      if (flags.nodeBackends && flags.nodeBackends.length > flags.nodes) {
        throw new InvalidArgumentError(`--node-backends names ${flags.nodeBackends.length} backends for ${flags.nodes} nodes`);
      }
      await checkWritableDir(flags.dataDir, "data dir");
      const specArgs = flags.spec ? ["--spec", flags.spec] : ["--preset", flags.preset];
      if (flags.iterations !== undefined) specArgs.push("--iterations", String(flags.iterations));
      const controller = new AbortController();
      const onSignal = () => {
        if (controller.signal.aborted) process.exit(130);
        log.warn({}, "stopping the swarm (signal again to exit at once)");
        controller.abort();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      const { runLocalSwarm } = await import("../node/local/local-swarm.js");
      const result = await runLocalSwarm(
        {
          nodes: flags.nodes,
          dataDir: flags.dataDir,
          backend: flags.backend,
          // The nodes share this machine: each takes its share of the cores unless told.
          lmForward: lmForwardOf(flags, 1 / flags.nodes),
          nodeBackends: flags.nodeBackends ?? [],
          stopAt: Math.min(flags.stopAt ?? spec.iterations, spec.iterations),
          specArgs,
          spec,
          cli: process.argv[1],
          signal: controller.signal,
          httpBasePort: flags.httpBasePort ?? null,
          ...(flags.evalLimit === undefined ? {} : { evalLimit: flags.evalLimit }),
          sources: {
            ...(flags.modelDir === undefined ? {} : { modelDir: resolve(flags.modelDir) }),
            ...(flags.dataFile === undefined ? {} : { dataFile: resolve(flags.dataFile) }),
            ...(flags.idxDir === undefined ? {} : { idxDir: resolve(flags.idxDir) }),
          },
        },
        log,
      );
      process.stdout.write(`${JSON.stringify(result)}\n`);
      if (!result.agree) process.exit(1);
    });
}

/** Parses `--node-backends`: known backend names (or auto), comma-separated. */
function backendList(v: string): BackendChoice[] {
  const names = v.split(",").map((s) => s.trim());
  const known: readonly string[] = ["auto", ...BACKENDS];
  const bad = names.filter((n) => !known.includes(n));
  if (names.length === 0 || bad.length > 0) throw new InvalidArgumentError(`unknown backend(s) ${bad.join(", ")}; known: ${known.join(", ")}`);
  return names as BackendChoice[];
}
