import { tokenBatch } from "../models/transformer.js";
import { meanNextTokenLoss } from "../next-token-loss.js";
import { sampleIndices } from "../data/dataset.js";
/** A task over token sequences (e.g. windows of a tokenized text), each of at least 2 tokens. */
export function causalLmTask(model, sequences) {
    if (sequences.some((s) => s.length < 2))
        throw new RangeError("every sequence needs at least 2 tokens to predict one");
    return {
        batch(seed, size) {
            const batch = tokenBatch(Array.from(sampleIndices(sequences.length, seed, size), (i) => sequences[i]));
            return { loss: (weights) => meanNextTokenLoss(model, weights, batch).loss, dispose: () => { } };
        },
    };
}
//# sourceMappingURL=causal-lm.js.map