/**
 * Our functional model as a TensorFlow.js layers model (for export: node/offline/layers-files.ts
 * writes it as model.json + weights.bin, loadable with `tf.loadLayersModel`). The exported model
 * ends in softmax, so it outputs class probabilities.
 */
import * as tf from "@tensorflow/tfjs";
import { floatWeights, toTensors } from "../params.js";
import { bitGeometry, STAGE_WORD, unpackLayer } from "./bit-mlp.js";
import { INSTANCE_NORM_EPSILON } from "./model.js";
/**
 * Input scale of the exported binarization: a feature x becomes hardSigmoid(2^20 (x - t) + 2.5),
 * exactly 1 for x >= t and exactly 0 for x <= t - 5 / 2^20 (MNIST's pixels are 1/255 apart).
 */
const INPUT_GAIN = 2 ** 20;
/** Gain K of the exported step: hardSigmoid(K (u + 1)) is exactly [u >= 0] on even integers u (K >= 2.5). */
const STEP_GAIN = 4;
/**
 * A bitmlp as stock layers (loadable by plain tf.loadLayersModel, no custom layers), computing the
 * same integers up to the active stage. Activations are 0/1 (1 = +1), so a layer with +/-1
 * weights W (trits: also 0) on them computes s = 2 W a - sum(W); u = s - (non-zero weights mod 2)
 * is even and u >= 0 exactly when s >= 0, so a dense layer with kernel 2KW and bias
 * K (1 - parity - sum(W)) followed by hardSigmoid gives the step exactly. The head's kernel is
 * 2 logitScale V and its bias -logitScale sum(V), then softmax.
 */
function bitLayersModel(spec, state) {
    const g = bitGeometry(spec);
    const stage = state[STAGE_WORD];
    const [, , channels] = spec.inputShape;
    const m = tf.sequential();
    m.add(tf.layers.conv2d({ inputShape: [...spec.inputShape], filters: channels, kernelSize: 1, activation: "hardSigmoid" }));
    m.add(tf.layers.flatten());
    const weights = [];
    const eye = new Float32Array(channels * channels);
    for (let c = 0; c < channels; c++)
        eye[c * channels + c] = INPUT_GAIN;
    weights.push(tf.tensor4d(eye, [1, 1, channels, channels]), tf.fill([channels], Math.fround(-INPUT_GAIN * Math.fround(spec.inputThreshold) + 2.5)));
    /** Kernel [in, out] gain * 2 * W and bias gain * (offset - sum(W) - parity) per output. */
    const folded = (w, inputs, outputs, gain, offset, parity) => {
        const kernel = new Float32Array(w.length);
        const bias = new Float32Array(outputs);
        for (let o = 0; o < outputs; o++) {
            let sum = 0;
            let nnz = 0;
            for (let i = 0; i < inputs; i++) {
                const v = w[i * outputs + o];
                kernel[i * outputs + o] = gain * 2 * v;
                sum += v;
                if (v !== 0)
                    nnz++;
            }
            bias[o] = gain * (offset - sum - (parity ? nnz & 1 : 0));
        }
        return [tf.tensor2d(kernel, [inputs, outputs]), tf.tensor1d(bias)];
    };
    for (let l = 0; l <= stage; l++) {
        const layer = g.layers[l];
        const { kernel, head } = unpackLayer(state, g, l);
        m.add(tf.layers.dense({ units: layer.units, activation: "hardSigmoid" }));
        weights.push(...folded(kernel, layer.inputs, layer.units, STEP_GAIN, 1, true));
        if (l === stage) {
            m.add(tf.layers.dense({ units: spec.classes, activation: "softmax" }));
            weights.push(...folded(head, layer.units, spec.classes, spec.logitScale, 0, false));
        }
    }
    m.setWeights(weights);
    tf.dispose(weights);
    return m;
}
/** A tf.LayersModel with the same architecture and weights as our functional model. */
export function toLayersModel(spec, layout, state) {
    if (spec.kind === "bitmlp")
        return bitLayersModel(spec, state);
    const weights = floatWeights(state);
    const inputShape = [...spec.inputShape];
    const m = tf.sequential();
    if (spec.kind === "mlp") {
        m.add(tf.layers.flatten({ inputShape }));
        for (const units of spec.hidden)
            m.add(tf.layers.dense({ units, activation: "relu" }));
    }
    else {
        const conv = (filters, kernelSize, first = false) => tf.layers.conv2d({
            filters,
            kernelSize,
            activation: "relu",
            padding: "valid",
            ...(first ? { inputShape } : {}),
        });
        // Instance norm without affine: normalize each example and channel over height and width.
        const norm = () => tf.layers.layerNormalization({
            axis: [1, 2],
            center: false,
            scale: false,
            epsilon: INSTANCE_NORM_EPSILON,
        });
        m.add(conv(32, 5, true));
        m.add(conv(32, 5));
        m.add(norm());
        m.add(tf.layers.maxPooling2d({ poolSize: 2 }));
        m.add(conv(64, 3));
        m.add(conv(64, 3));
        m.add(norm());
        m.add(tf.layers.maxPooling2d({ poolSize: 2 }));
        m.add(tf.layers.flatten());
    }
    m.add(tf.layers.dense({ units: spec.classes, activation: "softmax" }));
    const tensors = toTensors(layout, weights);
    m.setWeights(tensors);
    tf.dispose(tensors);
    return m;
}
//# sourceMappingURL=export.js.map