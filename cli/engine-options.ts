/**
 * The flags that choose how this machine computes (node-local, never in the RunSpec), shared by
 * `train`, `node` and `swarm`: the language-model forward engine and its cores.
 */
import { availableParallelism } from "node:os";
import { Option } from "commander";
import { LM_FORWARDS, type LmForwardChoice, type LmForwardOptions } from "../training/backends.js";
import { intIn } from "./parse.js";

export interface LmForwardFlags {
  lmForward: LmForwardChoice;
  threads?: number;
}

export const lmForwardOption = (
  help = "what measures a transformer run's contributions: auto (onnx where the run is low-rank causal-lm, else tfjs), tfjs, onnx (onnxruntime CPU), webgpu",
  choices: readonly LmForwardChoice[] = LM_FORWARDS,
) => new Option("--lm-forward <engine>", help).choices(choices).default("auto");

/** 1 to this machine's cores: more threads than cores only makes them take turns. */
export const threadsOption = (defaultHelp = "all of this machine's") =>
  new Option("--threads <n>", `cores the onnx engine may use (default: ${defaultHelp}, ${availableParallelism()} here)`).argParser(
    intIn(1, availableParallelism()),
  );

/** The engine settings of `flags`; threads default to `share` of the machine's cores (at least 1). */
export function lmForwardOf(flags: LmForwardFlags, share = 1): LmForwardOptions {
  return { forward: flags.lmForward, threads: flags.threads ?? Math.max(1, Math.floor(availableParallelism() * share)) };
}
