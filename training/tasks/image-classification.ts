/** Image classification (the MLP and CNN runs): minibatches of a Split, mean cross-entropy. */
import { type Split, sampleBatch } from "../data/dataset.js";
import { batchTensors, lossOn } from "../evaluate.js";
import type { Model } from "../models/model.js";
import type { Task } from "./task.js";

export function imageClassificationTask(model: Model, train: Split): Task {
  const shape = model.spec.inputShape;
  const features = shape[0] * shape[1] * shape[2];
  return {
    batch(seed, size) {
      const { x, y } = batchTensors(sampleBatch(train, features, seed, size), shape);
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
