/**
 * The WebGPU device of this process, through Dawn (npm `webgpu`, an optional dependency: any
 * vendor's GPU through Vulkan, Metal or D3D12 with no vendor toolkit). Opened once and shared by
 * the tfjs-webgpu backend and the SPSA kernels, so both see the same adapter.
 *
 * On Linux Dawn needs libvulkan1 and a Vulkan driver: the GPU vendor's ICD, or Mesa's lavapipe
 * (a software driver, `VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.json`; Mesa 24 or later,
 * Debian 12's 22.3 is rejected by Dawn).
 */
/// <reference types="@webgpu/types" />
import { SeedswarmError } from "../../protocol/errors.js";
export class GpuError extends SeedswarmError {
}
/** A string, so that TypeScript does not resolve the optional package at build time. */
const DAWN_PACKAGE = "webgpu";
let opened;
function describe(adapter) {
    const info = adapter.info;
    const name = [info.description, info.device, info.vendor].find((s) => s && s.length > 0) ?? "unnamed adapter";
    const fallback = info.isFallbackAdapter === true;
    return { name, software: fallback || info.architecture === "software" || /llvmpipe|lavapipe|swiftshader/i.test(name) };
}
async function open() {
    let dawn;
    try {
        dawn = (await import(DAWN_PACKAGE));
    }
    catch (err) {
        throw new GpuError("GPU_UNAVAILABLE", `WebGPU unavailable: the optional package ${DAWN_PACKAGE} does not load (${err.message.split("\n")[0]}); npm install ${DAWN_PACKAGE}`, { package: DAWN_PACKAGE });
    }
    // tfjs-backend-webgpu looks for the browser's globals (GPUBufferUsage, navigator.gpu, ...).
    Object.assign(globalThis, dawn.globals);
    const gpu = dawn.create([]);
    Object.defineProperty(globalThis, "navigator", { value: { gpu }, configurable: true, writable: true });
    const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
    if (!adapter)
        throw new GpuError("GPU_UNAVAILABLE", "WebGPU unavailable: no adapter (Linux needs libvulkan1 and a Vulkan driver: the GPU's, or Mesa's lavapipe selected with VK_DRIVER_FILES)", { vkDriverFiles: process.env.VK_DRIVER_FILES ?? null });
    const device = await adapter.requestDevice({
        requiredLimits: {
            maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
            maxBufferSize: adapter.limits.maxBufferSize,
        },
    });
    const { name, software } = describe(adapter);
    return { gpu, adapter, device, adapterName: name, software };
}
/** The process's WebGPU device (opened on first call). @throws GpuError GPU_UNAVAILABLE */
export function openWebGpu() {
    opened ??= open();
    opened.catch(() => {
        opened = undefined;
    });
    return opened;
}
//# sourceMappingURL=webgpu.js.map