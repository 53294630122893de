/**
 * The transformer forward on onnxruntime's CPU provider: a graph built in TypeScript from a
 * TransformerConfig, one session, next-token losses from the canonical weights.
 */
export { type BuildStats, OnnxTransformer, type OnnxTransformerOptions } from "./forward.js";
export { OnnxGraphError, type OnnxGraphErrorCode, type WeightPlacement } from "./graph.js";
export { defaultSessionOptions, OnnxSessionError, type SessionOptions } from "./session.js";
export { OnnxLmPairs } from "./lm-pairs.js";
