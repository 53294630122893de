/** Image classification (the MLP and CNN runs): minibatches of a Split, mean cross-entropy. */
import { sampleBatch } from "../data/dataset.js";
import { batchTensors, lossOn } from "../evaluate.js";
import { backendCopiesValues } from "../params.js";
export function imageClassificationTask(model, train) {
    const shape = model.spec.inputShape;
    const features = shape[0] * shape[1] * shape[2];
    // Rows are gathered here when the backend copies them into the tensor at once (SPSA draws 16
    // batches an iteration); elsewhere each tensor keeps its own array.
    let scratch = new Float32Array(0);
    return {
        batch(seed, size) {
            let into;
            if (backendCopiesValues()) {
                if (scratch.length < size * features)
                    scratch = new Float32Array(size * features);
                into = scratch;
            }
            const { x, y } = batchTensors(sampleBatch(train, features, seed, size, into), shape);
            return {
                loss: (weights) => lossOn(model, weights, x, y),
                dispose: () => {
                    x.dispose();
                    y.dispose();
                },
            };
        },
    };
}
//# sourceMappingURL=image-classification.js.map