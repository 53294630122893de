/** What `seedswarm demo` makes and how big: options beside the code (node/offline/lm-demo.ts), light to import. */
import { SeedswarmError } from "../../protocol/errors.js";
export class LmDemoError extends SeedswarmError {
}
/** The demo's model and pretraining budget: 0.24 M parameters, minutes on 2 cores. */
export const defaultLmDemoOptions = { steps: 600, batch: 16, context: 64, vocab: 2048, hidden: 64, layers: 2, seed: 1 };
//# sourceMappingURL=lm-demo-options.js.map