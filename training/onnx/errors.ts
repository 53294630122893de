/** The onnx engine's errors, apart from onnxruntime itself: the main thread of a worker-run engine (lm-pairs.ts) names them without loading it. */
import { SeedswarmError } from "../../protocol/errors.js";

export class OnnxSessionError extends SeedswarmError<"ONNX_SESSION_FAILED" | "ONNX_RUN_FAILED"> {}
