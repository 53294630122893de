/**
 * Resolves the TensorFlow.js backend at run time. The native bindings download libtensorflow at
 * install time and are optional dependencies, so any of them may be missing: try the fastest that
 * loads, or exactly the one asked for.
 */
import * as tf from "@tensorflow/tfjs";
import { kernelsProblem } from "./algorithms/spsa-kernels.js";
import { SeedswarmError } from "../protocol/errors.js";

import { BACKENDS, type BackendChoice, type BackendName } from "./backends.js";

export { BACKENDS, type BackendChoice, type BackendName };

export class BackendError extends SeedswarmError<"BACKEND_UNAVAILABLE" | "BACKEND_UNKNOWN"> {}

/** The npm package that provides each backend, for error messages. */
const PACKAGE: Record<BackendName, string> = {
  "tensorflow-gpu": "@tensorflow/tfjs-node-gpu",
  tensorflow: "@tensorflow/tfjs-node",
  wasm: "@tensorflow/tfjs-backend-wasm",
  cpu: "@tensorflow/tfjs",
};

/** Minimal logger shape so training/ does not depend on the node's logger setup. */
export interface EngineLog {
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

async function tryLoad(name: BackendName): Promise<string | null> {
  try {
    if (name === "tensorflow-gpu") {
      await import(PACKAGE[name]);
      return "tensorflow";
    }
    if (name === "tensorflow") {
      await import(PACKAGE[name]);
      return "tensorflow";
    }
    if (name === "wasm") {
      await import("@tensorflow/tfjs-backend-wasm");
      return "wasm";
    }
    return "cpu";
  } catch (err) {
    return `!${(err as Error).message.split("\n")[0]}`;
  }
}

let active: BackendName | null = null;

// Production mode skips tfjs debug checks and its console banner suggesting tfjs-node: we log
// the backend in use ourselves, and library code never writes to the console.
tf.enableProdMode();

/**
 * Activates a backend: the one named, or the first of BACKENDS that loads. Throws BackendError
 * naming the package to install when an explicitly requested backend cannot load.
 */
export async function useBackend(
  choice: BackendChoice = "auto",
  log?: EngineLog,
): Promise<BackendName> {
  if (choice !== "auto" && !BACKENDS.includes(choice)) {
    throw new BackendError(
      "BACKEND_UNKNOWN",
      `unknown backend "${choice}"; choose one of auto, ${BACKENDS.join(", ")}`,
      {
        choice,
      },
    );
  }
  const candidates = choice === "auto" ? BACKENDS : [choice];
  const failures: Record<string, string> = {};
  for (const name of candidates) {
    const registered = await tryLoad(name);
    if (registered === null || registered.startsWith("!")) {
      failures[name] = registered?.slice(1) ?? "not loadable";
      log?.debug({ backend: name, reason: failures[name] }, "backend unavailable");
      continue;
    }
    if (await tf.setBackend(registered)) {
      await tf.ready();
      active = name;
      // The canonical update runs in WebAssembly where its kernels load, in plain JS otherwise
      // (the same bytes, ~25x slower): said here, so a slow node says why.
      const problem = kernelsProblem();
      log?.info({ backend: name, tried: Object.keys(failures), updateKernels: problem ? `js (${problem})` : "wasm" }, "backend in use");
      return name;
    }
    failures[name] = "setBackend failed";
  }
  const wanted = candidates[0];
  throw new BackendError(
    "BACKEND_UNAVAILABLE",
    `backend "${wanted}" is not available: ${failures[wanted]}; install ${PACKAGE[wanted]} (npm install ${PACKAGE[wanted]}) or use --backend auto`,
    { choice, failures },
  );
}

/** The backend activated by useBackend, or null before. */
export function activeBackend(): BackendName | null {
  return active;
}
