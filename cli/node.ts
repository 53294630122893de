/** `seedswarm node`: run a swarm daemon. */

import { multiaddr } from "@multiformats/multiaddr";
import { type Command, InvalidArgumentError, Option } from "commander";
import { defaultNetworkOptions } from "../node/libp2p.js";
import { createLogger, LOG_LEVELS, type LogLevel } from "../node/logger.js";
import { defaultNodeOptions, SwarmDaemon } from "../node/node.js";
import { BACKENDS, type BackendChoice } from "../training/engine.js";
import { runIdOf } from "../protocol/run-spec.js";
import { loadOrCreateIdentity } from "../node/identity.js";
import { checkHttpExposure, parseHostPort } from "./http-options.js";
import type { HttpOptions } from "../node/http-server.js";
import { isRunId } from "../protocol/codec.js";
import { intIn } from "./parse.js";
import { defaultDataDir, iterationsOption, presetOption, resolveSpec, specOption } from "./spec-options.js";

/** A repeatable multiaddr flag, validated as it is parsed. */
function addr(raw: string, prev: string[] = []): string[] {
  try {
    multiaddr(raw);
  } catch (err) {
    throw new InvalidArgumentError(`not a multiaddr: "${raw}" (${(err as Error).message})`);
  }
  return [...prev, raw];
}

/** A runId flag: 64 lowercase hex digits. */
function runIdArg(raw: string): string {
  if (!isRunId(raw)) throw new InvalidArgumentError(`not a runId (64 lowercase hex digits): "${raw}"`);
  return raw;
}

interface NodeFlags {
  run?: string;
  preset: string;
  spec?: string;
  iterations?: number;
  stopAt?: number;
  listen?: string[];
  bootstrap: string[];
  mdns: boolean;
  dataDir: string;
  backend: BackendChoice;
  checkEvery: number;
  checkpointEvery: number;
  joinWait: number;
  minPeers: number;
  leaveDeadline: number;
  logLevel: LogLevel;
  http?: HttpOptions;
  httpPublic: boolean;
  evalEvery: number;
}

export function nodeCommand(program: Command): void {
  const d = defaultNodeOptions;
  program
    .command("node")
    .description("Run a swarm node: join (or start) the run, train, stay bit-identical with peers")
    .addOption(presetOption())
    .addOption(specOption())
    .addOption(iterationsOption())
    .addOption(
      new Option("--run <runId>", "join a run by id: its spec comes from a peer (or our checkpoint)")
        .argParser(runIdArg)
        .conflicts(["spec", "preset", "iterations"]),
    )
    .option(
      "--stop-at <n>",
      "leave after n applied iterations (default: the run length)",
      intIn(0, 1e9),
    )
    .option("--listen <multiaddr>", "address to listen on (repeatable)", addr)
    .option(
      "--bootstrap <multiaddr>",
      "peer to dial at start, ending in /p2p/<id> (repeatable)",
      addr,
      [],
    )
    .option("--no-mdns", "do not discover peers on the local network")
    .option("--data-dir <dir>", "identity, checkpoints", defaultDataDir())
    .addOption(
      new Option("--backend <name>", "tensor backend")
        .choices(["auto", ...BACKENDS])
        .default(d.backend),
    )
    .option(
      "--check-every <n>",
      "verify the checksum with a random peer every n iterations",
      intIn(1, 1e6),
      d.checkEvery,
    )
    .option(
      "--checkpoint-every <n>",
      "checkpoint period in iterations (0: only when leaving)",
      intIn(0, 1e9),
      d.checkpointEvery,
    )
    .option(
      "--join-wait <ms>",
      "how long to look for peers before starting alone",
      intIn(0, 600_000),
      d.joinWaitMs,
    )
    .option("--min-peers <n>", "wait (up to --join-wait) for n peers before training", intIn(0, 1024), d.minPeers)
    .option(
      "--leave-deadline <ms>",
      "time from a stop signal to exit",
      intIn(100, 3_600_000),
      d.leaveDeadlineMs,
    )
    .addOption(new Option("--log-level <level>", "log level").choices(LOG_LEVELS).default("info"))
    // Observability (README "Observability").
    .option("--http <host:port>", "serve /status, /metrics, /healthz and the dashboard (port 0: any free port)", (v: string) => parseHostPort(v))
    .option("--http-public", "allow --http on a non-loopback address", false)
    .option("--eval-every <n>", "test accuracy on a fixed subset every n iterations (0: never)", intIn(0, 1e9), d.evalEvery)
    .addHelpText(
      "after",
      `
Examples:
  $ seedswarm node --listen /ip4/0.0.0.0/tcp/4001
  $ seedswarm node --bootstrap /ip4/10.0.0.5/tcp/4001/p2p/12D3KooW... --data-dir /data
  $ seedswarm node --preset tiny-spsa --no-mdns --listen /ip4/127.0.0.1/tcp/0
  $ seedswarm node --run <runId> --bootstrap /ip4/10.0.0.5/tcp/4001/p2p/12D3KooW...
  $ seedswarm node --http 127.0.0.1:9090     # then open http://127.0.0.1:9090/`,
    )
    .action(async (flags: NodeFlags) => {
      const spec = flags.run ? undefined : resolveSpec(flags);
      const http = checkHttpExposure(flags.http, flags.httpPublic);
      // Every line names the run and this node (remote peers appear as "peer").
      const self = (await loadOrCreateIdentity(flags.dataDir)).peerId.toString();
      const runId = spec ? runIdOf(spec) : (flags.run as string);
      const log = createLogger({ level: flags.logLevel }).child({ run: runId.slice(0, 16), self });
      const daemon = new SwarmDaemon(
        {
          ...(spec ? { spec } : { runId: flags.run }),
          dataDir: flags.dataDir,
          backend: flags.backend,
          network: {
            ...defaultNetworkOptions,
            listen: flags.listen ?? defaultNetworkOptions.listen,
            bootstrap: flags.bootstrap,
            mdns: flags.mdns,
          },
          checkEvery: flags.checkEvery,
          // Capped at the run length by the daemon once it knows the spec.
          stopAt: flags.stopAt ?? Number.MAX_SAFE_INTEGER,
          joinWaitMs: flags.joinWait,
          minPeers: flags.minPeers,
          leaveDeadlineMs: flags.leaveDeadline,
          checkpointEvery: flags.checkpointEvery,
          http,
          evalEvery: flags.evalEvery,
        },
        log,
      );
      let signals = 0;
      const onSignal = (sig: NodeJS.Signals) => {
        signals += 1;
        if (signals > 1) {
          log.warn({ signal: sig }, "second signal: exiting now");
          process.exit(130);
        }
        setTimeout(() => {
          log.error({ deadlineMs: flags.leaveDeadline }, "leave deadline passed; exiting");
          process.exit(1);
        }, flags.leaveDeadline).unref();
        void daemon.stop(sig);
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      await daemon.start();
      const result = await daemon.stopped;
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    });
}
