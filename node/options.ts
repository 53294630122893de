/**
 * Every default in one place, composed from the `defaultXOptions` each subsystem exports beside
 * its code (where each default's reason is written). The CLI only overrides these; config files
 * and SEEDSWARM_* variables override them too (cli/config.ts), never by editing this file.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { defaultNetworkOptions } from "./network/network-options.js";
import { defaultLocalTrainOptions } from "./local/local-train-options.js";
import { defaultLoggerOptions } from "./ground/index.js";
import { defaultNodeOptions } from "./node-options.js";
import { defaultPreemptionWatchOptions } from "./ops/preemption-watch.js";

/** Identity, checkpoints and commit logs live here unless --data-dir says otherwise. */
export const defaultDataDir = join(homedir(), ".seedswarm");

export const defaultOptions = {
  dataDir: defaultDataDir,
  node: defaultNodeOptions,
  network: defaultNetworkOptions,
  train: defaultLocalTrainOptions,
  preemption: defaultPreemptionWatchOptions,
  logger: defaultLoggerOptions,
  // `seedswarm swarm`: three nodes show agreement (a majority exists) and fit on two cores.
  swarmNodes: 3,
  // `seedswarm init`: the RunSpec file written when -o is not given.
  specFile: "run.json",
} as const;
