/**
 * The tensor backends by name, apart from the engine that loads them: the CLI lists them as flag
 * choices without loading TensorFlow.js.
 */
/**
 * Backends in preference order. "tensorflow" is tfjs-node's native CPU backend; "webgpu" is
 * tfjs-backend-webgpu on Dawn (npm `webgpu`), which `auto` skips (engine.ts says why).
 */
export const BACKENDS = ["tensorflow-gpu", "webgpu", "tensorflow", "wasm", "cpu"];
//# sourceMappingURL=backends.js.map