/**
 * Export to the TensorFlow.js layers format (model.json + weights.bin), loadable with
 * `tf.loadLayersModel` (by tfjs-node as file://.../model.json, or by `layersModelFromDir` here).
 * The exported model ends in softmax, so it outputs class probabilities.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs";
import type { ModelSpec } from "../../protocol/run-spec.js";
import type { ParamLayout } from "../params.js";
import { toTensors } from "../params.js";
import { INSTANCE_NORM_EPSILON } from "./model.js";

/** A tf.LayersModel with the same architecture and weights as our functional model. */
export function toLayersModel(
  spec: ModelSpec,
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

/** Writes model.json and weights.bin into `dir` (each file atomically) and returns their paths. */
export async function saveLayersModel(
  model: tf.LayersModel,
  dir: string,
): Promise<{ modelJson: string; weightsBin: string }> {
  await mkdir(dir, { recursive: true });
  const modelJson = join(dir, "model.json");
  const weightsBin = join(dir, "weights.bin");
  await model.save(
    tf.io.withSaveHandler(async (artifacts) => {
      const data = artifacts.weightData;
      const bytes = data === undefined ? new ArrayBuffer(0) : tf.io.CompositeArrayBuffer.join(data);
      const json = {
        format: "layers-model",
        generatedBy: `seedswarm (TensorFlow.js ${tf.version.tfjs})`,
        convertedBy: null,
        modelTopology: artifacts.modelTopology,
        weightsManifest: [{ paths: ["weights.bin"], weights: artifacts.weightSpecs ?? [] }],
      };
      await writeFile(`${weightsBin}.tmp`, new Uint8Array(bytes));
      await rename(`${weightsBin}.tmp`, weightsBin);
      await writeFile(`${modelJson}.tmp`, JSON.stringify(json));
      await rename(`${modelJson}.tmp`, modelJson);
      return {
        modelArtifactsInfo: {
          dateSaved: new Date(),
          modelTopologyType: "JSON",
          weightDataBytes: bytes.byteLength,
        },
      };
    }),
  );
  return { modelJson, weightsBin };
}

/** An IOHandler that reads a layers-format model.json and its weight files from disk. */
export function fileLoadHandler(modelJsonPath: string): tf.io.IOHandler {
  return {
    async load() {
      const json = JSON.parse(await readFile(modelJsonPath, "utf8"));
      const dir = join(modelJsonPath, "..");
      const specs: tf.io.WeightsManifestEntry[] = [];
      const parts: Uint8Array[] = [];
      for (const group of json.weightsManifest as tf.io.WeightsManifestConfig) {
        specs.push(...group.weights);
        for (const p of group.paths) parts.push(await readFile(join(dir, p)));
      }
      const all = Buffer.concat(parts);
      return {
        modelTopology: json.modelTopology,
        format: json.format,
        generatedBy: json.generatedBy,
        weightSpecs: specs,
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
      };
    },
  };
}
