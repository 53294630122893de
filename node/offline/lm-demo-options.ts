/** What `seedswarm demo` makes and how big: options beside the code (node/offline/lm-demo.ts), light to import. */
import { SeedswarmError } from "../../protocol/errors.js";

export class LmDemoError extends SeedswarmError<"LM_DEMO_DATA_MISSING" | "LM_DEMO_EXISTS"> {}

export interface LmDemoOptions {
  /** Backprop steps of pretraining (batch `batch` windows of `context` tokens). */
  readonly steps: number;
  readonly batch: number;
  readonly context: number;
  readonly vocab: number;
  readonly hidden: number;
  readonly layers: number;
  readonly seed: number;
}

/** The demo's model and pretraining budget: 0.24 M parameters, minutes on 2 cores. */
export const defaultLmDemoOptions: LmDemoOptions = { steps: 600, batch: 16, context: 64, vocab: 2048, hidden: 64, layers: 2, seed: 1 };
