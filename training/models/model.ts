/**
 * Models defined from a ModelSpec: the parameter layout, deterministic initialization, and a
 * forward pass from explicit weight tensors. Knows nothing of data sources, I/O or the network.
 */
import * as tf from "@tensorflow/tfjs";
import type { ModelSpec } from "../../protocol/run-spec.js";
import { layoutOf, type ParamLayout } from "../params.js";
import { fillUniform24 } from "../rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../rng/seeds.js";

/** Epsilon of the instance norm; the layers-format export uses the same. */
export const INSTANCE_NORM_EPSILON = 1e-5;

export interface Model {
  readonly spec: ModelSpec;
  readonly layout: ParamLayout;
  /** Logits [batch, classes] for inputs x [batch, h, w, c], from weights in layout order. */
  forward(weights: readonly tf.Tensor[], x: tf.Tensor4D): tf.Tensor2D;
}

type Entry = { name: string; shape: number[]; fanIn: number; init: "he" | "zeros" };

function dense(name: string, inputs: number, outputs: number): Entry[] {
  return [
    { name: `${name}/kernel`, shape: [inputs, outputs], fanIn: inputs, init: "he" },
    { name: `${name}/bias`, shape: [outputs], fanIn: inputs, init: "zeros" },
  ];
}

function conv(name: string, k: number, cin: number, cout: number): Entry[] {
  return [
    { name: `${name}/kernel`, shape: [k, k, cin, cout], fanIn: k * k * cin, init: "he" },
    { name: `${name}/bias`, shape: [cout], fanIn: k * k * cin, init: "zeros" },
  ];
}

/** Instance norm without affine parameters: per example and channel over height and width. */
export function instanceNorm(x: tf.Tensor4D): tf.Tensor4D {
  const { mean, variance } = tf.moments(x, [1, 2], true);
  return tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, INSTANCE_NORM_EPSILON)));
}

function mlp(spec: Extract<ModelSpec, { kind: "mlp" }>): Model {
  const [h, w, c] = spec.inputShape;
  const widths = [h * w * c, ...spec.hidden, spec.classes];
  const entries = widths.slice(1).flatMap((out, i) => dense(`dense${i}`, widths[i], out));
  return {
    spec,
    layout: layoutOf(entries),
    forward(weights, x) {
      let a: tf.Tensor2D = tf.reshape(x, [x.shape[0], widths[0]]);
      const layers = widths.length - 1;
      for (let i = 0; i < layers; i++) {
        const z = tf.add(
          tf.matMul(a, weights[2 * i] as tf.Tensor2D),
          weights[2 * i + 1],
        ) as tf.Tensor2D;
        a = i < layers - 1 ? tf.relu(z) : z;
      }
      return a;
    },
  };
}

/** The Marketplace article's MNIST CNN (28x28 -> 24 -> 20 -> pool 10 -> 8 -> 6 -> pool 3; 3*3*64 = 576). */
function cnn(spec: Extract<ModelSpec, { kind: "cnn" }>): Model {
  const cin = spec.inputShape[2];
  const entries = [
    ...conv("conv0", 5, cin, 32),
    ...conv("conv1", 5, 32, 32),
    ...conv("conv2", 3, 32, 64),
    ...conv("conv3", 3, 64, 64),
    ...dense("dense0", 576, spec.classes),
  ];
  const convRelu = (x: tf.Tensor4D, k: tf.Tensor, b: tf.Tensor) =>
    tf.relu(tf.add(tf.conv2d(x, k as tf.Tensor4D, 1, "valid"), b)) as tf.Tensor4D;
  return {
    spec,
    layout: layoutOf(entries),
    forward(wt, x) {
      let a = convRelu(x, wt[0], wt[1]);
      a = convRelu(a, wt[2], wt[3]);
      a = tf.maxPool(instanceNorm(a), 2, 2, "valid");
      a = convRelu(a, wt[4], wt[5]);
      a = convRelu(a, wt[6], wt[7]);
      a = tf.maxPool(instanceNorm(a), 2, 2, "valid");
      const flat = tf.reshape(a, [x.shape[0], 576]) as tf.Tensor2D;
      return tf.add(tf.matMul(flat, wt[8] as tf.Tensor2D), wt[9]) as tf.Tensor2D;
    },
  };
}

/** Builds the model a spec describes. */
export function buildModel(spec: ModelSpec): Model {
  return spec.kind === "mlp" ? mlp(spec) : cnn(spec);
}

/**
 * Initial weights from a seed: He-uniform kernels (+/- sqrt(6 / fanIn)) from exact uniform24
 * draws, zero biases. Every operation is float32-exact or correctly rounded (sqrt), so every
 * machine starts from the same bytes.
 */
export function initWeights(layout: ParamLayout, seed: number): Float32Array {
  const weights = new Float32Array(layout.size);
  const s = seedFrom("seedswarm/init/1", [seed]);
  layout.tensors.forEach((t, i) => {
    if (t.init === "zeros") return;
    const u = weights.subarray(t.offset, t.offset + t.size);
    fillUniform24(streamOf(s, Purpose.Init, i), u);
    const limit = Math.fround(Math.sqrt(6 / t.fanIn));
    for (let j = 0; j < u.length; j++)
      u[j] = Math.fround(Math.fround(Math.fround(2 * u[j]) - 1) * limit);
  });
  return weights;
}

/** Mean softmax cross-entropy of logits against integer labels. */
export function crossEntropy(logits: tf.Tensor2D, labels: tf.Tensor1D): tf.Scalar {
  const logp = tf.logSoftmax(logits);
  const onehot = tf.oneHot(labels, logits.shape[1]);
  return tf.neg(tf.mean(tf.sum(tf.mul(logp, onehot), 1)));
}
