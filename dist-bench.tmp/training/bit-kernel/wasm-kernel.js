/**
 * The WebAssembly SIMD popcount kernel (bit-kernel.wat, compiled by build.ts into
 * bit-kernel.wasm beside this module). Operands are copied into the module's memory, which grows
 * to fit the largest call; results are the same integers as the JS kernel's.
 */
import { readFileSync } from "node:fs";
import { SeedswarmError } from "../../protocol/errors.js";
export class KernelError extends SeedswarmError {
}
const WebAssembly = globalThis.WebAssembly;
let cached = null;
/** The wasm kernel, compiled on first use. @throws KernelError when the build output is missing or SIMD is off. */
export function wasmKernel() {
    if (cached)
        return cached;
    const url = new URL("./bit-kernel.wasm", import.meta.url);
    let exports;
    try {
        const module = new WebAssembly.Module(readFileSync(url));
        exports = new WebAssembly.Instance(module, {}).exports;
    }
    catch (err) {
        throw new KernelError("KERNEL_UNAVAILABLE", `bit kernel ${url.pathname} unavailable (run npm run build): ${err.message}`, {
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
            const align = (n) => (n + 15) & ~15;
            const aAt = 16;
            const bAt = aAt + align(aBytes);
            const mAt = bAt + align(bBytes);
            const oAt = mAt + (mask ? align(bBytes) : 0);
            const need = oAt + outBytes;
            if (need > memory.buffer.byteLength)
                memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
            const heap = new Uint32Array(memory.buffer);
            heap.set(a.subarray(0, aRows * wpr), aAt >>> 2);
            heap.set(b.subarray(0, bRows * wpr), bAt >>> 2);
            if (mask)
                heap.set(mask.subarray(0, bRows * wpr), mAt >>> 2);
            exports.xorPopcount(aAt, aRows, bAt, bRows, wpr, mask ? mAt : 0, oAt);
            out.set(new Int32Array(memory.buffer, oAt, aRows * bRows));
        },
    };
    return cached;
}
//# sourceMappingURL=wasm-kernel.js.map