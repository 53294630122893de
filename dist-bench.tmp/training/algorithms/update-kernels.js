import { sharedKernels } from "./spsa-kernels.js";
let selected;
/** Selects the kernels of algorithms created from now on (null: the JavaScript reference). */
export function useUpdateKernels(kernels) {
    selected = kernels;
}
/** The selected kernels; by default the WebAssembly ones, or null where they cannot load. */
export function updateKernels() {
    return selected !== undefined ? selected : sharedKernels();
}
//# sourceMappingURL=update-kernels.js.map