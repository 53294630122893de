/**
 * The handshake between a thread that must stay synchronous (SPSA's contribute and apply) and a
 * worker that owns an asynchronous engine (the WebGPU device: gpu/update-worker.ts,
 * gpu/lm-worker.ts; an onnxruntime session: onnx/pairs-worker.ts): the caller posts a request and
 * waits on `control` (Atomics) while the worker's event loop awaits the engine, then reads the
 * reply there.
 */
import type { Worker } from "node:worker_threads";

/** control (Int32Array): [0] state, [1] reply length; bytes from 8: the reply (UTF-8). */
export const PENDING = 0;
export const DONE = 1;
export const FAILED = 2;

/** Worker side: publishes the reply and wakes the caller. */
export function reply(control: SharedArrayBuffer, state: number, text: string): void {
  const head = new Int32Array(control, 0, 2);
  const body = new TextEncoder().encode(text).subarray(0, control.byteLength - 8);
  new Uint8Array(control, 8).set(body);
  head[1] = body.length;
  Atomics.store(head, 0, state);
  Atomics.notify(head, 0);
}

/** Caller side: posts `message` (with `control`; `transfer`'s buffers moved, not copied) and blocks until the reply; `ok` false when the worker failed, null when it did not answer in time. */
export function callWorker(worker: Worker, control: SharedArrayBuffer, message: object, timeoutMs: number, transfer: ArrayBuffer[] = []): { ok: boolean; text: string } | null {
  const head = new Int32Array(control, 0, 2);
  Atomics.store(head, 0, PENDING);
  worker.postMessage({ ...message, control }, transfer);
  if (Atomics.wait(head, 0, PENDING, timeoutMs) === "timed-out") return null;
  const text = new TextDecoder().decode(new Uint8Array(control, 8, head[1]).slice());
  return { ok: Atomics.load(head, 0) === DONE, text };
}
