/** `seedswarm node`: run a swarm daemon. */

import { type Command, InvalidArgumentError, Option } from "commander";
import { createLogger, LOG_LEVELS, type LogLevel } from "../node/ground/index.js";
import { defaultOptions } from "../node/options.js";
import {
  PREEMPTION_PROVIDERS,
  type PreemptionProvider,
  watchPreemption,
} from "../node/ops/preemption-watch.js";
import {
  ALLOCATOR_ENV,
  allocatorUnset,
  GC_ON_MAIN_THREAD_FLAG,
  gcOnMainThread,
  preferSmallHeap,
  YOUNG_GENERATION_FLAG,
  youngGenerationCapped,
} from "../node/ops/heap-policy.js";
import { checkListenAddrs, checkWritableDir, explainStartError } from "../node/ops/preflight.js";
import { BACKENDS, type BackendChoice } from "../training/backends.js";
import type { HttpOptions } from "../node/observe/http-server.js";
import { readSwarmKey } from "../node/network/swarm-key.js";
import { loadOrCreateIdentity } from "../node/store/identity.js";
import { isRunId } from "../protocol/run-id.js";
import { runIdOf } from "../protocol/run-spec.js";
import { repeatable } from "./config.js";
import { checkHttpExposure, parseHostPort } from "./http-options.js";
import { type LmForwardFlags, lmForwardOf, lmForwardOption, threadsOption } from "./engine-options.js";
import { httpUrl, intIn, numberIn, peerMultiaddr, tcpMultiaddr } from "./parse.js";
import { defaultDataDir, iterationsOption, memberOption, presetOption, resolveSpec, specOption } from "./spec-options.js";

/** A runId flag: 64 lowercase hex digits. */
function runIdArg(raw: string): string {
  if (!isRunId(raw)) throw new InvalidArgumentError(`not a runId (64 lowercase hex digits): "${raw}"`);
  return raw;
}

interface NodeFlags extends LmForwardFlags {
  run?: string;
  preset: string;
  spec?: string;
  iterations?: number;
  member?: string[];
  stopAt?: number;
  listen: string[];
  announce: string[];
  bootstrap: string[];
  mdns: boolean;
  relay: boolean;
  behindNat: boolean;
  swarmKey?: string;
  maxConnectionsPerIp: number;
  maxStoredPeers: number;
  smallHeap: boolean;
  dataDir: string;
  modelDir?: string;
  dataFile?: string;
  idxDir?: string;
  backend: BackendChoice;
  checkEvery: number;
  checkpointEvery: number;
  joinWait: number;
  minPeers: number;
  leaveDeadline: number;
  logLevel: LogLevel;
  preemptionWatch: PreemptionProvider;
  metadataUrl?: string;
  preemptionPoll: number;
  http?: HttpOptions;
  httpPublic: boolean;
  evalEvery: number;
  evalLimit: number;
  auditBudget: number;
}

export function nodeCommand(program: Command): void {
  const d = defaultOptions.node;
  const net = defaultOptions.network;
  const pre = defaultOptions.preemption;
  program
    .command("node")
    .description("Run a swarm node: join (or start) the run, train, stay bit-identical with peers")
    .addOption(presetOption())
    .addOption(specOption())
    .addOption(iterationsOption())
    .addOption(memberOption())
    .addOption(
      new Option("--run <runId>", "join a run by id: its spec comes from a peer (or our checkpoint)")
        .argParser(runIdArg)
        .conflicts(["spec", "preset", "iterations", "member"]),
    )
    .option(
      "--stop-at <n>",
      "leave after n applied iterations (default: the run length)",
      intIn(0, 1e9),
    )
    .addOption(
      repeatable(
        new Option("--listen <multiaddr>", "TCP address to listen on (repeatable)").default([...net.listen]),
        tcpMultiaddr,
      ),
    )
    .addOption(
      repeatable(
        new Option("--announce <multiaddr>", "address to advertise instead of the listen addresses (NAT, containers; repeatable)").default([]),
        tcpMultiaddr,
      ),
    )
    .addOption(
      repeatable(
        new Option("--bootstrap <multiaddr>", "peer to dial at start, ending in /p2p/<id> (repeatable)").default([...net.bootstrap]),
        peerMultiaddr,
      ),
    )
    .option("--no-mdns", "do not discover peers on the local network")
    .option("--relay", "offer circuit relay v2 to nodes behind NAT (needs a reachable address)", net.relay)
    .option("--behind-nat", "reserve a slot on a relay among the peers, and ask the gateway for a UPnP port mapping", net.behindNat)
    .option("--swarm-key <file>", "private swarm: connect only to peers with this key file (seedswarm swarm-key makes one)")
    .option(
      "--max-connections-per-ip <n>",
      "inbound connections one remote IP (IPv6: /64) may hold open; loopback is exempt (0: no limit)",
      intIn(0, 65536),
      net.maxConnectionsPerIp,
    )
    .option(
      "--max-stored-peers <n>",
      "peer records kept (addresses, keys); past it the least needed are deleted, never connected, DHT routing-table or bootstrap peers",
      intIn(16, 1_000_000),
      net.maxStoredPeers,
    )
    .option(
      "--small-heap",
      "V8 heap that tracks the live set (--optimize-for-size): bounds memory under a flood of hostile messages, at more CPU per iteration",
      false,
    )
    .option("--data-dir <dir>", "identity, checkpoints", defaultDataDir())
    .option("--model-dir <dir>", "transformer runs: the Hugging Face checkpoint whose weights the spec names by hash")
    .option("--data-file <file>", "transformer runs: the JSONL/CSV text file the spec names by hash")
    .option("--idx-dir <dir>", "IDX image runs: the directory of the four IDX files the spec names by hash")
    .addOption(
      new Option("--backend <name>", "tensor backend")
        .choices(["auto", ...BACKENDS])
        .default(d.backend),
    )
    .addOption(lmForwardOption())
    .addOption(threadsOption())
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
    .addOption(
      new Option("--preemption-watch <cloud>", "poll the cloud's spot/preemption notice and leave early")
        .choices(PREEMPTION_PROVIDERS)
        .default(pre.provider),
    )
    .option(
      "--metadata-url <url>",
      "metadata service base URL for --preemption-watch (default: the cloud's own)",
      httpUrl,
    )
    .option("--preemption-poll <ms>", "preemption notice poll period", intIn(100, 600_000), pre.pollMs)
    .addOption(new Option("--log-level <level>", "log level").choices(LOG_LEVELS).default(defaultOptions.logger.level))
    // Observability (README "Observability").
    .option("--http <host:port>", "serve /status, /metrics, /healthz and the dashboard (port 0: any free port)", (v: string) => parseHostPort(v))
    .option("--http-public", "allow --http on a non-loopback address", false)
    .option("--eval-every <n>", "test accuracy on a fixed subset every n iterations (0: never)", intIn(0, 1e9), d.evalEvery)
    .option("--eval-limit <n>", "test examples in that subset (the first n of the test set)", intIn(1, 1e9), d.evalLimit)
    .option(
      "--audit-budget <share>",
      "share of this node's CPU for recomputing others' contributions (0: none; proofs in commits are checked regardless)",
      numberIn(0, 1),
      d.auditBudget,
    )
    .addHelpText(
      "after",
      `
Examples:
  $ seedswarm node --listen /ip4/0.0.0.0/tcp/4001
  $ seedswarm node --bootstrap /ip4/10.0.0.5/tcp/4001/p2p/12D3KooW... --data-dir /data
  $ seedswarm node --preset tiny-spsa --no-mdns --listen /ip4/127.0.0.1/tcp/0
  $ seedswarm node --preset tiny-lm --model-dir test/fixtures/lm/llama-tiny --data-file test/fixtures/lm/tiny-text/text.jsonl
  $ seedswarm node --run <runId> --bootstrap /ip4/10.0.0.5/tcp/4001/p2p/12D3KooW...
  $ seedswarm node --http 127.0.0.1:9090     # then open http://127.0.0.1:9090/
  $ seedswarm node --listen /ip4/0.0.0.0/tcp/4001 --announce /ip4/203.0.113.7/tcp/4001 \\
      --preemption-watch aws                     # an AWS spot instance with a public IP
  $ seedswarm node --relay --listen /ip4/0.0.0.0/tcp/4001     # a public node that relays for others
  $ seedswarm node --swarm-key swarm.key --member 12D3KooWA... --member 12D3KooWB...   # a private member run
  $ seedswarm node --behind-nat --bootstrap /dns4/relay.example.org/tcp/4001/p2p/12D3KooW...
  $ SEEDSWARM_BOOTSTRAP=/dns4/boot/tcp/4001/p2p/12D3KooW... seedswarm node --config node.json`,
    )
    .action(async (flags: NodeFlags) => {
      // A heap that tracks what is live, so a flood of refused messages cannot grow it (see there).
      if (flags.smallHeap) preferSmallHeap();
      const spec = flags.run ? undefined : resolveSpec(flags);
      const http = checkHttpExposure(flags.http, flags.httpPublic);
      // Before anything is written or bound: a clear error, and nothing half-made.
      await checkWritableDir(flags.dataDir, "data dir");
      await checkListenAddrs(flags.listen);
      const swarmKey = flags.swarmKey === undefined ? undefined : await readSwarmKey(flags.swarmKey);
      // Every line names the run and this node (remote peers appear as "peer").
      const self = (await loadOrCreateIdentity(flags.dataDir)).peerId.toString();
      const runId = spec ? runIdOf(spec) : (flags.run as string);
      const log = createLogger({ level: flags.logLevel }).child({ run: runId.slice(0, 16), self });
      // The CLI's shebang, the swarm launcher and the images pass it; `node dist/cli/main.js` does not.
      if (!gcOnMainThread(process.execArgv))
        log.info({ hint: `node ${GC_ON_MAIN_THREAD_FLAG}` }, "garbage collection runs on background threads, which take CPU from other nodes on this machine (set at process start)");
      if (flags.smallHeap && !youngGenerationCapped(process.execArgv, process.env.NODE_OPTIONS))
        log.info({ hint: `NODE_OPTIONS=${YOUNG_GENERATION_FLAG}` }, "small heap: the young generation is not capped (set at process start)");
      const unset = flags.smallHeap ? allocatorUnset(process.env) : [];
      if (unset.length > 0)
        log.info({ hint: unset.map((k) => `${k}=${ALLOCATOR_ENV[k]}`).join(" ") }, "small heap: glibc's allocator is not set to give large buffers back (set at process start)");
      const network = {
        ...net,
        listen: flags.listen,
        announce: flags.announce,
        bootstrap: flags.bootstrap,
        mdns: flags.mdns,
        relay: flags.relay,
        behindNat: flags.behindNat,
        maxConnectionsPerIp: flags.maxConnectionsPerIp,
        maxStoredPeers: flags.maxStoredPeers,
        ...(swarmKey ? { swarmKey } : {}),
      };
      // libp2p and TensorFlow.js load only now: --help and --print-config stay fast.
      const { SwarmDaemon } = await import("../node/node.js");
      const daemon = new SwarmDaemon(
        {
          ...(spec ? { spec } : { runId: flags.run }),
          dataDir: flags.dataDir,
          modelDir: flags.modelDir,
          dataFile: flags.dataFile,
          idxDir: flags.idxDir,
          backend: flags.backend,
          lmForward: lmForwardOf(flags),
          network,
          checkEvery: flags.checkEvery,
          // Capped at the run length by the daemon once it knows the spec.
          stopAt: flags.stopAt ?? Number.MAX_SAFE_INTEGER,
          joinWaitMs: flags.joinWait,
          minPeers: flags.minPeers,
          leaveDeadlineMs: flags.leaveDeadline,
          checkpointEvery: flags.checkpointEvery,
          http,
          evalEvery: flags.evalEvery,
          evalLimit: flags.evalLimit,
          auditBudget: flags.auditBudget,
        },
        log,
      );
      let leaving = false;
      /** A stop signal or a preemption notice: leave within the deadline; a second signal exits now. */
      const leave = (reason: string) => {
        if (leaving) {
          log.warn({ reason }, "second signal: exiting now");
          process.exit(130);
        }
        leaving = true;
        setTimeout(() => {
          log.error({ deadlineMs: flags.leaveDeadline }, "leave deadline passed; exiting");
          process.exit(1);
        }, flags.leaveDeadline).unref();
        void daemon.stop(reason);
      };
      process.on("SIGINT", leave);
      process.on("SIGTERM", leave);
      // Process guard. Every detached promise in node/ has an owner that logs, so a rejection
      // reaching here is one missed owner: it ran beside the state, not inside a change of it
      // (chain and replica change synchronously), so the node logs and goes on. An uncaught
      // exception unwound a synchronous path that may have been mid-change (a listener applying a
      // commit): the node leaves as on a stop signal (checkpoint, leave notice) and exits 1; after
      // a restart its periodic checksum checks against peers repair what the checkpoint got wrong.
      process.on("unhandledRejection", (reason) => log.error({ err: reason }, "unhandled rejection; node goes on"));
      let crashed = false;
      process.on("uncaughtException", (err) => {
        log.fatal({ err }, "uncaught exception; leaving with a checkpoint");
        if (crashed || leaving) process.exit(1);
        crashed = true;
        leave("uncaught exception");
      });
      try {
        await daemon.start();
      } catch (err) {
        throw explainStartError(err, flags.listen);
      }
      const watch = watchPreemption(
        {
          provider: flags.preemptionWatch,
          metadataUrl: flags.metadataUrl,
          pollMs: flags.preemptionPoll,
          requestTimeoutMs: pre.requestTimeoutMs,
        },
        () => {
          if (!leaving) leave("preemption");
        },
        log,
      );
      const result = await daemon.stopped;
      watch.stop();
      process.stdout.write(`${JSON.stringify(result)}\n`);
      // Exit 1 when the leaving checkpoint could not be written (logged: "checkpoint failed"): the
      // operator should know; the previous checkpoint and the commit log still resume the node.
      process.exit(crashed || !result.checkpointed ? 1 : 0);
    });
}
