/**
 * Our functional model as a TensorFlow.js layers model (for export: node/offline/layers-files.ts
 * writes it as model.json + weights.bin, loadable with `tf.loadLayersModel`). The exported model
 * ends in softmax, so it outputs class probabilities.
 */
import * as tf from "@tensorflow/tfjs";
import type { ImageModelSpec } from "../../protocol/run-spec.js";
import type { ParamLayout } from "../params.js";
import { toTensors } from "../params.js";
import { INSTANCE_NORM_EPSILON } from "./model.js";

/** A tf.LayersModel with the same architecture and weights as our functional model. */
export function toLayersModel(
  spec: ImageModelSpec,
  layout: ParamLayout,
  weights: Float32Array,
): tf.LayersModel {
  const inputShape = [...spec.inputShape];
  const m = tf.sequential();
  if (spec.kind === "mlp") {
    m.add(tf.layers.flatten({ inputShape }));
    for (const units of spec.hidden) m.add(tf.layers.dense({ units, activation: "relu" }));
  } else {
    const conv = (filters: number, kernelSize: number, first = false) =>
      tf.layers.conv2d({
        filters,
        kernelSize,
        activation: "relu",
        padding: "valid",
        ...(first ? { inputShape } : {}),
      });
    // Instance norm without affine: normalize each example and channel over height and width.
    const norm = () =>
      tf.layers.layerNormalization({
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
