/**
 * The tensor backends and the language-model forward engines by name, apart from the code that
 * loads them: the CLI lists them as flag choices without loading TensorFlow.js or onnxruntime.
 */

/**
 * Backends in preference order. "tensorflow" is tfjs-node's native CPU backend; "webgpu" is
 * tfjs-backend-webgpu on Dawn (npm `webgpu`), which `auto` skips (engine.ts says why).
 */
export const BACKENDS = ["tensorflow-gpu", "webgpu", "tensorflow", "wasm", "cpu"] as const;
export type BackendName = (typeof BACKENDS)[number];
export type BackendChoice = BackendName | "auto";

/**
 * What measures a transformer run's SPSA pairs (lm-forward.ts). auto: onnxruntime's CPU provider
 * where the run's pairs are what its graph measures (low-rank directions of a causal-lm task),
 * else tfjs; tfjs: the tensor backend's passes; onnx, webgpu: that engine or an error naming why not.
 */
export const LM_FORWARDS = ["auto", "tfjs", "onnx", "webgpu"] as const;
export type LmForwardChoice = (typeof LM_FORWARDS)[number];

export interface LmForwardOptions {
  readonly forward: LmForwardChoice;
  /** Cores the onnx engine's session may use (its intra-op pool). */
  readonly threads: number;
}

/** One thread unless told: a library caller does not get every core unasked (the CLI gives all). */
export const defaultLmForward: LmForwardOptions = { forward: "auto", threads: 1 };
