import * as tf from "@tensorflow/tfjs-core";
import { sliceBatch } from "./data/dataset.js";
import { crossEntropy } from "./models/model.js";
/** Backend tensors for a batch: x [size, h, w, c] and integer labels. */
export function batchTensors(batch, shape) {
    return {
        x: tf.tensor4d(batch.x, [batch.size, shape[0], shape[1], shape[2]]),
        y: tf.tensor1d(batch.y, "int32"),
    };
}
/** Mean cross-entropy of the model with the given weights on a batch already on the backend. */
export function lossOn(model, weights, x, y) {
    return tf.tidy(() => crossEntropy(model.forward(weights, x), y)).dataSync()[0];
}
/**
 * Sums a chunk score (summed loss, correct answers) over the first `limit` examples of a split, in
 * chunks to bound memory; `score` runs inside tf.tidy with the chunk on the backend.
 */
function overChunks(shape, split, limit, chunk, score) {
    const features = shape[0] * shape[1] * shape[2];
    const n = Math.min(limit, split.n);
    let lossSum = 0;
    let correct = 0;
    for (let start = 0; start < n; start += chunk) {
        const batch = sliceBatch(split, features, start, Math.min(chunk, n - start));
        const [l, c] = tf.tidy(() => {
            const { x, y } = batchTensors(batch, shape);
            const [loss, hits] = score(x, y, batch.size);
            return [loss.dataSync()[0], hits.dataSync()[0]];
        });
        lossSum += l;
        correct += c;
    }
    return { loss: lossSum / n, accuracy: correct / n, examples: n };
}
/** Loss and accuracy over the first `limit` examples of a split, in chunks to bound memory. */
export function evaluate(model, weights, split, limit = split.n, chunk = 1000) {
    return overChunks(model.spec.inputShape, split, limit, chunk, (x, y, size) => {
        const logits = model.forward(weights, x);
        const loss = tf.mul(crossEntropy(logits, y), size);
        const hits = tf.sum(tf.cast(tf.equal(tf.argMax(logits, 1), y), "float32"));
        return [loss, hits];
    });
}
/**
 * Loss and accuracy of a model that outputs class probabilities (an exported or loaded
 * tf.LayersModel), over the first `limit` examples of a split: the same figures as `evaluate`
 * gives for the functional model with the same weights.
 */
export function evaluateLayersModel(model, shape, split, limit = split.n, chunk = 1000) {
    return overChunks(shape, split, limit, chunk, (x, y) => {
        const probs = model.predict(x);
        // Cross-entropy from probabilities, clipped so that a zero probability stays finite.
        const picked = tf.sum(tf.mul(probs, tf.oneHot(y, probs.shape[1])), 1);
        const loss = tf.neg(tf.sum(tf.log(tf.maximum(picked, 1e-12))));
        const hits = tf.sum(tf.cast(tf.equal(tf.argMax(probs, 1), y), "float32"));
        return [loss, hits];
    });
}
//# sourceMappingURL=evaluate.js.map