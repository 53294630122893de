/**
 * The recorded form of a language-model pass (lm-forward.ts builds it once per batch shape): the
 * tensors' places, the steps with their pipelines and bind groups, and the buffers they use.
 */
/// <reference types="@webgpu/types" />
import type { MatmulOptions } from "./lm-matmul-wgsl.js";

/** What a tensor of the layout is to the pass. */
export interface Slot {
  readonly ti: number;
  /** Matrices: index among matrices (sign-table column); vectors: float offset in the vector block. */
  readonly at: number;
  readonly rows: number;
  readonly cols: number;
}

export interface Step {
  /** What the step computes (the pipeline's key), for profiles. */
  readonly label: string;
  /** A matrix product's kind (qkv, proj, fc, down, head): the unit of tuning. */
  readonly kind?: string;
  readonly pipeline: GPUComputePipeline;
  readonly group: GPUBindGroup;
  readonly grid: readonly [number, number];
}

/** The buffers and recorded steps of one batch shape (perturbations x sequences x length). */
export interface Plan {
  readonly key: string;
  readonly P: number;
  readonly rows: number;
  readonly buffers: GPUBuffer[];
  readonly ids: GPUBuffer;
  readonly target: GPUBuffer;
  readonly keyMask: GPUBuffer;
  readonly vecs: GPUBuffer;
  readonly seeds: GPUBuffer;
  readonly scales: GPUBuffer;
  readonly loss: GPUBuffer;
  readonly nll: GPUBuffer;
  readonly readLoss: GPUBuffer;
  readonly steps: Step[];
  /** The matrix product steps by kind, for tuning. */
  readonly products: { kind: string; opts: MatmulOptions; dims: number[]; entries: GPUBindGroupEntry[] }[];
}
