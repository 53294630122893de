/**
 * Resolves the TensorFlow.js backend at run time. The native bindings download libtensorflow at
 * install time and are optional dependencies, so any of them may be missing: try the fastest that
 * loads, or exactly the one asked for.
 */
import * as tf from "@tensorflow/tfjs-core";
// The cpu backend, always registered (the fallback). Core and backends only, not the
// @tensorflow/tfjs union: its layers, converter and data packages (and gradients, which nothing
// forward-only needs) doubled a node's start-up import time; backprop code imports the union.
import "@tensorflow/tfjs-backend-cpu";
import { kernelsProblem } from "./algorithms/spsa-kernels.js";
import { SeedswarmError } from "../protocol/errors.js";
import { useUpdateKernels, updateKernels } from "./algorithms/update-kernels.js";
import { GpuUpdateKernels } from "./gpu/gpu-update-kernels.js";
import { openWebGpu } from "./gpu/webgpu.js";
import { BACKENDS } from "./backends.js";
export { BACKENDS };
export class BackendError extends SeedswarmError {
}
/** The npm package that provides each backend, for error messages. */
const PACKAGE = {
    "tensorflow-gpu": "@tensorflow/tfjs-node-gpu",
    webgpu: "webgpu @tensorflow/tfjs-backend-webgpu",
    tensorflow: "@tensorflow/tfjs-node",
    wasm: "@tensorflow/tfjs-backend-wasm",
    cpu: "@tensorflow/tfjs-backend-cpu",
};
/**
 * Backends `auto` passes over, and why. tfjs-webgpu reads a tensor synchronously (dataSync) only
 * through OffscreenCanvas, which Node lacks, and the training loop reads every loss that way
 * (Algorithm.contribute and apply are synchronous), so a node cannot train on it yet; it serves the
 * asynchronous paths (the gpu benchmark, the WGSL update kernels) when asked for by name. Besides,
 * on a software driver (lavapipe) its forward passes are slower than wasm (docs/architecture.md).
 */
const AUTO_SKIPS = {
    webgpu: "tfjs-webgpu cannot read tensors synchronously in Node; choose it by name",
};
/** What the log says about the device of a backend, e.g. the WebGPU adapter. */
let deviceName;
async function tryLoad(name) {
    try {
        if (name === "webgpu") {
            // Dawn's globals and navigator.gpu first: tfjs-webgpu looks for them when it initializes.
            const gpu = await openWebGpu();
            deviceName = `${gpu.adapterName}${gpu.software ? " (software)" : ""}`;
            await import("@tensorflow/tfjs-backend-webgpu");
            return "webgpu";
        }
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
    }
    catch (err) {
        return `!${err.message.split("\n")[0]}`;
    }
}
let active = null;
// Production mode skips tfjs debug checks and its console banner suggesting tfjs-node: we log
// the backend in use ourselves, and library code never writes to the console.
tf.enableProdMode();
/**
 * Activates a backend: the one named, or the first of BACKENDS that loads. Throws BackendError
 * naming the package to install when an explicitly requested backend cannot load.
 */
export async function useBackend(choice = "auto", log) {
    if (choice !== "auto" && !BACKENDS.includes(choice)) {
        throw new BackendError("BACKEND_UNKNOWN", `unknown backend "${choice}"; choose one of auto, ${BACKENDS.join(", ")}`, {
            choice,
        });
    }
    const candidates = choice === "auto" ? BACKENDS : [choice];
    const failures = {};
    for (const name of candidates) {
        const skip = choice === "auto" ? AUTO_SKIPS[name] : undefined;
        if (skip) {
            failures[name] = skip;
            log?.debug({ backend: name, reason: skip }, "backend skipped");
            continue;
        }
        deviceName = undefined;
        const registered = await tryLoad(name);
        if (registered === null || registered.startsWith("!")) {
            failures[name] = registered?.slice(1) ?? "not loadable";
            log?.debug({ backend: name, reason: failures[name] }, "backend unavailable");
            continue;
        }
        // setBackend answers false, or falls back to cpu silently, when a backend fails to initialize.
        if ((await tf.setBackend(registered)) && tf.getBackend() === registered) {
            await tf.ready();
            active = name;
            if (name === "webgpu")
                refuseSyncReads();
            // The canonical update runs in WebAssembly where its kernels load, in plain JS otherwise
            // (the same bytes, ~25x slower), or in WGSL where selected: said here, so a slow node says why.
            selectUpdateKernels();
            const kernels = updateKernels();
            const updateWith = kernels ? kernels.description : `js (${kernelsProblem() || "selected"})`;
            log?.info({ backend: name, ...(deviceName ? { device: deviceName } : {}), tried: Object.keys(failures), updateKernels: updateWith }, "backend in use");
            return name;
        }
        failures[name] = "setBackend failed";
    }
    const wanted = candidates[0];
    throw new BackendError("BACKEND_UNAVAILABLE", `backend "${wanted}" is not available: ${failures[wanted]}; install ${PACKAGE[wanted]} (npm install ${PACKAGE[wanted]}) or use --backend auto`, { choice, failures });
}
/**
 * SEEDSWARM_UPDATE_KERNELS=webgpu|wasm|js picks what runs the canonical update and the seeded
 * noise, apart from the tensor backend (default: wasm). "webgpu" runs the update in WGSL on the
 * WebGPU device (Dawn; the noise for host-side forward passes stays in wasm), so a node whose
 * forward passes run on wasm or cpu still updates on the GPU. Experimental: the weights cross to
 * the device and back on every update.
 */
let kernelsChosen = false;
function selectUpdateKernels() {
    const wanted = process.env.SEEDSWARM_UPDATE_KERNELS;
    if (kernelsChosen || wanted === undefined || wanted === "" || wanted === "wasm")
        return;
    if (wanted === "js")
        useUpdateKernels(null);
    else if (wanted === "webgpu") {
        try {
            useUpdateKernels(new GpuUpdateKernels());
        }
        catch (err) {
            throw new BackendError("BACKEND_UNAVAILABLE", `SEEDSWARM_UPDATE_KERNELS=webgpu: ${err.message}`, { updateKernels: wanted });
        }
    }
    else
        throw new BackendError("BACKEND_UNKNOWN", `SEEDSWARM_UPDATE_KERNELS="${wanted}": choose webgpu, wasm or js`, { updateKernels: wanted });
    kernelsChosen = true;
}
/**
 * Makes a synchronous read on tfjs-webgpu fail with a typed error naming the problem, instead of
 * "OffscreenCanvas is not defined" from deep inside tfjs.
 */
function refuseSyncReads() {
    const backend = tf.backend();
    const readSync = backend.readSync.bind(backend);
    backend.readSync = (dataId) => {
        if (backend.tensorMap.get(dataId)?.values != null)
            return readSync(dataId);
        throw new BackendError("BACKEND_NO_SYNC_READ", "tfjs-webgpu cannot read a tensor synchronously in Node (dataSync needs OffscreenCanvas): use await tensor.data(), or another backend for training", {});
    };
}
/** The backend activated by useBackend, or null before. */
export function activeBackend() {
    return active;
}
//# sourceMappingURL=engine.js.map