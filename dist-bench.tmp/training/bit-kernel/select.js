/** The popcount kernel to train with: WebAssembly SIMD when its build output loads, else plain JS (same integers). */
import { jsKernel } from "./kernel.js";
import { KernelError, wasmKernel } from "./wasm-kernel.js";
export function bitKernel() {
    try {
        return wasmKernel();
    }
    catch (err) {
        if (err instanceof KernelError)
            return jsKernel;
        throw err;
    }
}
//# sourceMappingURL=select.js.map