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

export class GpuError extends SeedswarmError<"GPU_UNAVAILABLE" | "GPU_OUT_OF_RANGE" | "GPU_FAILED"> {}

/** A string, so that TypeScript does not resolve the optional package at build time. */
const DAWN_PACKAGE = "webgpu";

export interface WebGpu {
  readonly gpu: GPU;
  readonly adapter: GPUAdapter;
  readonly device: GPUDevice;
  /** The adapter as its driver describes it, e.g. "llvmpipe: Mesa 25.0.7 ..." or "NVIDIA H100 ...". */
  readonly adapterName: string;
  /** A software rasterizer (lavapipe, SwiftShader): works everywhere, slower than wasm. */
  readonly software: boolean;
}

let opened: Promise<WebGpu> | undefined;

function describe(adapter: GPUAdapter): { name: string; software: boolean } {
  const info = adapter.info;
  const name = [info.description, info.device, info.vendor].find((s) => s && s.length > 0) ?? "unnamed adapter";
  const fallback = (info as GPUAdapterInfo & { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
  return { name, software: fallback || info.architecture === "software" || /llvmpipe|lavapipe|swiftshader/i.test(name) };
}

async function open(): Promise<WebGpu> {
  let dawn: { create(options: string[]): GPU; globals: object };
  try {
    dawn = (await import(DAWN_PACKAGE)) as typeof dawn;
  } catch (err) {
    throw new GpuError("GPU_UNAVAILABLE", `WebGPU unavailable: the optional package ${DAWN_PACKAGE} does not load (${(err as Error).message.split("\n")[0]}); npm install ${DAWN_PACKAGE}`, { package: DAWN_PACKAGE });
  }
  // tfjs-backend-webgpu looks for the browser's globals (GPUBufferUsage, navigator.gpu, ...).
  Object.assign(globalThis, dawn.globals);
  // Expert knob: Dawn's own flags, ';'-separated (e.g. "enable-dawn-features=disable_robustness").
  const flags = (process.env.SEEDSWARM_DAWN_FLAGS ?? "").split(";").filter((f) => f.length > 0);
  const gpu = dawn.create(flags);
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
export function openWebGpu(): Promise<WebGpu> {
  opened ??= open();
  opened.catch(() => {
    opened = undefined;
  });
  return opened;
}
