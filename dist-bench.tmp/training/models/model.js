/**
 * Models defined from a ModelSpec: the parameter layout, deterministic initialization, and a
 * forward pass from explicit weight tensors. Knows nothing of data sources, I/O or the network.
 */
import * as tf from "@tensorflow/tfjs-core";
import { layoutOf } from "../params.js";
import { fillUniform24 } from "../rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../rng/seeds.js";
import { bitGeometry, initBits, STAGE_WORD, unpackLayer } from "./bit-mlp.js";
/** Epsilon of the instance norm; the layers-format export uses the same. */
export const INSTANCE_NORM_EPSILON = 1e-5;
/** Composes the layers: the plain forward pass. */
function forwardOf(layers) {
    return (weights, x) => {
        let a = x;
        for (const l of layers)
            a = l.apply(l.tensors.map((i) => weights[i]), a);
        return a;
    };
}
function dense(name, inputs, outputs) {
    return [
        { name: `${name}/kernel`, shape: [inputs, outputs], fanIn: inputs, init: "he" },
        { name: `${name}/bias`, shape: [outputs], fanIn: inputs, init: "zeros" },
    ];
}
function conv(name, k, cin, cout) {
    return [
        { name: `${name}/kernel`, shape: [k, k, cin, cout], fanIn: k * k * cin, init: "he" },
        { name: `${name}/bias`, shape: [cout], fanIn: k * k * cin, init: "zeros" },
    ];
}
/** Instance norm without affine parameters: per example and channel over height and width. */
export function instanceNorm(x) {
    const { mean, variance } = tf.moments(x, [1, 2], true);
    return tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, INSTANCE_NORM_EPSILON)));
}
function mlp(spec) {
    const [h, w, c] = spec.inputShape;
    const widths = [h * w * c, ...spec.hidden, spec.classes];
    const entries = widths.slice(1).flatMap((out, i) => dense(`dense${i}`, widths[i], out));
    const count = widths.length - 1;
    const layers = widths.slice(1).map((out, i) => ({
        name: `dense${i}`,
        tensors: [2 * i, 2 * i + 1],
        macs: widths[i] * out,
        apply([k, b], x) {
            const a = x.rank === 2 ? x : tf.reshape(x, [x.shape[0], widths[i]]);
            const z = tf.add(tf.matMul(a, k), b);
            return i < count - 1 ? tf.relu(z) : z;
        },
    }));
    return { spec, layout: layoutOf(entries), layers, forward: forwardOf(layers) };
}
/** The Marketplace article's MNIST CNN (28x28 -> 24 -> 20 -> pool 10 -> 8 -> 6 -> pool 3; 3*3*64 = 576). */
function cnn(spec) {
    const cin = spec.inputShape[2];
    const entries = [
        ...conv("conv0", 5, cin, 32),
        ...conv("conv1", 5, 32, 32),
        ...conv("conv2", 3, 32, 64),
        ...conv("conv3", 3, 64, 64),
        ...dense("dense0", 576, spec.classes),
    ];
    const convRelu = (x, k, b) => tf.relu(tf.add(tf.conv2d(x, k, 1, "valid"), b));
    /** conv k x k, cin -> cout at output size `out`, then relu; `pool`: instance norm, max pool 2. */
    const convLayer = (i, k, cinL, cout, out, pool) => ({
        name: `conv${i}`,
        tensors: [2 * i, 2 * i + 1],
        macs: out * out * cout * k * k * cinL,
        apply([kernel, bias], x) {
            const a = convRelu(x, kernel, bias);
            return pool ? tf.maxPool(instanceNorm(a), 2, 2, "valid") : a;
        },
    });
    const layers = [
        convLayer(0, 5, cin, 32, 24, false),
        convLayer(1, 5, 32, 32, 20, true),
        convLayer(2, 3, 32, 64, 8, false),
        convLayer(3, 3, 64, 64, 6, true),
        {
            name: "dense0",
            tensors: [8, 9],
            macs: 576 * spec.classes,
            apply([kernel, bias], x) {
                const flat = tf.reshape(x, [x.shape[0], 576]);
                return tf.add(tf.matMul(flat, kernel), bias);
            },
        },
    ];
    return { spec, layout: layoutOf(entries), layers, forward: forwardOf(layers) };
}
/**
 * The model for the tf-based paths (evaluation, the backend copy): its layout's entries are the
 * state's words (so every Weights-sized check holds) and `toTensors` unpacks them; `forward` is
 * the same integer computation in float32 (sums of +/-1 products are exact), on the active stage.
 */
function bitMlp(spec) {
    const g = bitGeometry(spec);
    const entries = [
        { name: "stage", shape: [1], fanIn: 1, init: "zeros" },
    ];
    g.layers.forEach((l, i) => {
        entries.push({ name: `bitdense${i}/kernel`, shape: [g.planes * l.kernel.planeWords], fanIn: l.inputs, init: "zeros" });
        entries.push({ name: `bithead${i}/kernel`, shape: [g.planes * l.head.planeWords], fanIn: l.units, init: "zeros" });
    });
    const base = layoutOf(entries);
    const layout = {
        ...base,
        packed: true,
        toTensors(weights) {
            const state = weights;
            const out = [tf.scalar(state[STAGE_WORD], "int32")];
            g.layers.forEach((l, i) => {
                const { kernel, head } = unpackLayer(state, g, i);
                out.push(tf.tensor2d(kernel, [l.inputs, l.units]), tf.tensor2d(head, [l.units, spec.classes]));
            });
            return out;
        },
    };
    const sign = (t) => tf.sub(tf.mul(tf.cast(tf.greaterEqual(t, 0), "float32"), 2), 1);
    return {
        spec,
        layout,
        layers: [],
        forward(weights, x) {
            const stage = weights[0].dataSync()[0];
            return tf.tidy(() => {
                let a = sign(tf.sub(tf.reshape(x, [x.shape[0], g.features]), spec.inputThreshold));
                for (let l = 0; l <= stage; l++) {
                    const s = tf.matMul(a, weights[1 + 2 * l]);
                    a = sign(s);
                }
                return tf.mul(tf.matMul(a, weights[2 + 2 * stage]), spec.logitScale);
            });
        },
    };
}
/** Builds the model a spec describes. */
export function buildModel(spec) {
    if (spec.kind === "bitmlp")
        return bitMlp(spec);
    return spec.kind === "mlp" ? mlp(spec) : cnn(spec);
}
/** The initial state of a model from the run's seed: float weights, or packed bits. */
export function initialWeights(model, seed) {
    if (model.spec.kind === "bitmlp")
        return initBits(bitGeometry(model.spec), seed);
    return initWeights(model.layout, seed);
}
/**
 * Initial weights from a seed: He-uniform kernels (+/- sqrt(6 / fanIn)) from exact uniform24
 * draws, zero biases, norm gains of one. Every operation is float32-exact or correctly rounded (sqrt), so every
 * machine starts from the same bytes.
 */
export function initWeights(layout, seed) {
    const weights = new Float32Array(layout.size);
    const s = seedFrom("seedswarm/init/1", [seed]);
    layout.tensors.forEach((t, i) => {
        if (t.init === "zeros")
            return;
        if (t.init === "ones") {
            weights.fill(1, t.offset, t.offset + t.size);
            return;
        }
        const u = weights.subarray(t.offset, t.offset + t.size);
        fillUniform24(streamOf(s, Purpose.Init, i), u);
        const limit = Math.fround(Math.sqrt(6 / t.fanIn));
        for (let j = 0; j < u.length; j++)
            u[j] = Math.fround(Math.fround(Math.fround(2 * u[j]) - 1) * limit);
    });
    return weights;
}
/** Mean softmax cross-entropy of logits against integer labels. */
export function crossEntropy(logits, labels) {
    const logp = tf.logSoftmax(logits);
    const onehot = tf.oneHot(labels, logits.shape[1]);
    return tf.neg(tf.mean(tf.sum(tf.mul(logp, onehot), 1)));
}
//# sourceMappingURL=model.js.map