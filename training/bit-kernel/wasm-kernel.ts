/**
 * The WebAssembly SIMD popcount kernel (bit-kernel.wat, compiled by build.ts into
 * bit-kernel.wasm beside this module). Operands are copied into the module's memory, which grows
 * to fit the largest call; results are the same integers as the JS kernel's.
 */
import { readFileSync } from "node:fs";
import { SeedswarmError } from "../../protocol/errors.js";
import type { PopcountKernel } from "./kernel.js";

export class KernelError extends SeedswarmError<"KERNEL_UNAVAILABLE"> {}

/** The few WebAssembly JS API members used here (lib "dom" is not in this Node build's types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const WebAssembly = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface Exports {
  readonly memory: WasmMemory;
  xorPopcount(a: number, aRows: number, b: number, bRows: number, wpr: number, mask: number, out: number): void;
}

let cached: PopcountKernel | null = null;

/** The wasm kernel, compiled on first use. @throws KernelError when the build output is missing or SIMD is off. */
export function wasmKernel(): PopcountKernel {
  if (cached) return cached;
  const url = new URL("./bit-kernel.wasm", import.meta.url);
  let exports: Exports;
  try {
    const module = new WebAssembly.Module(readFileSync(url));
    exports = new WebAssembly.Instance(module, {}).exports as unknown as Exports;
  } catch (err) {
    throw new KernelError("KERNEL_UNAVAILABLE", `bit kernel ${url.pathname} unavailable (run npm run build): ${(err as Error).message}`, {
      path: url.pathname,
    });
  }
  const { memory } = exports;
  cached = {
    name: "wasm",
    xorPopcount(a, aRows, b, bRows, wpr, mask, out) {
      const aBytes = 4 * aRows * wpr;
      const bBytes = 4 * bRows * wpr;
      const outBytes = 4 * aRows * bRows;
      // Layout: A | B | mask | out, each 16-byte aligned; byte 0..15 left unused so mask 0 means none.
      const align = (n: number) => (n + 15) & ~15;
      const aAt = 16;
      const bAt = aAt + align(aBytes);
      const mAt = bAt + align(bBytes);
      const oAt = mAt + (mask ? align(bBytes) : 0);
      const need = oAt + outBytes;
      if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
      const heap = new Uint32Array(memory.buffer);
      heap.set(a.subarray(0, aRows * wpr), aAt >>> 2);
      heap.set(b.subarray(0, bRows * wpr), bAt >>> 2);
      if (mask) heap.set(mask.subarray(0, bRows * wpr), mAt >>> 2);
      exports.xorPopcount(aAt, aRows, bAt, bRows, wpr, mask ? mAt : 0, oAt);
      out.set(new Int32Array(memory.buffer, oAt, aRows * bRows));
    },
  };
  return cached;
}
