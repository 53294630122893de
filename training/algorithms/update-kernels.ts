/**
 * Which kernels run the canonical SPSA update and the seeded perturbation in this process: the
 * WebAssembly kernels by default, WGSL on the WebGPU device when selected (training/gpu/), or
 * none (the JavaScript reference). Every choice gives the same bytes; only the speed differs.
 */
import type { ParamLayout, TensorLayout } from "../params.js";
import type { Seed } from "../rng/seeds.js";
import { sharedKernels } from "./spsa-kernels.js";
import type { MatrixUpdate } from "./lowrank.js";
import type { ClassPlan } from "./spsa-update.js";

export interface UpdateKernels {
  /** What runs them, for the backend log line: "wasm" or "webgpu (<adapter>)". */
  readonly description: string;
  /** The canonical update of one pass (planUpdate) on `weights` in place. */
  apply(weights: Float32Array, layout: ParamLayout, plans: readonly ClassPlan[]): void;
  /** out = weights + sign * eps * z for the seed's direction z; `eps` a float32 value. */
  perturb(out: Float32Array, weights: Float32Array, layout: ParamLayout, seed: Seed, eps: number, sign: 1 | -1): void;
  /** The same for one tensor (index `ti` of its layout), written to `out` from index `outBase`. */
  perturbTensor(out: Float32Array, outBase: number, weights: Float32Array, t: TensorLayout, ti: number, seed: Seed, eps: number, sign: 1 | -1): void;
}

let selected: UpdateKernels | null | undefined;

/** Selects the kernels of algorithms created from now on (null: the JavaScript reference). */
export function useUpdateKernels(kernels: UpdateKernels | null): void {
  selected = kernels;
}

/**
 * The kernels of the low-rank update's matrices (lowrank.ts MatrixUpdate): the WebAssembly ones
 * whatever runs the full-rank update (WGSL has no low-rank kernel), none with the JS reference.
 */
export function lowRankKernels(): MatrixUpdate | null {
  return selected === null ? null : sharedKernels();
}

/** The selected kernels; by default the WebAssembly ones, or null where they cannot load. */
export function updateKernels(): UpdateKernels | null {
  return selected !== undefined ? selected : sharedKernels();
}
