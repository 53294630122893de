/**
 * Backprop baseline (tfjs autograd with SGD or Adam) on the same models and data, for comparison
 * only: it is not deterministic across backends and never enters the replicated state.
 */
import * as tf from "@tensorflow/tfjs";
import type { InputShape } from "../protocol/model-spec.js";
import type { Batch } from "./data/dataset.js";
import { batchTensors } from "./evaluate.js";
import { crossEntropy, type Model } from "./models/model.js";

export interface BackpropOptions {
  readonly optimizer: "sgd" | "adam";
  readonly lr: number;
}

/** Sensible defaults for MNIST-sized models. */
export const defaultBackpropOptions: BackpropOptions = { optimizer: "adam", lr: 1e-3 };

export class BackpropTrainer {
  private readonly vars: tf.Variable[];
  private readonly opt: tf.Optimizer;
  private readonly shape: InputShape;

  constructor(
    private readonly model: Model,
    weights: Float32Array,
    opts: BackpropOptions = defaultBackpropOptions,
  ) {
    this.vars = model.layout.tensors.map((t) =>
      tf.variable(
        tf.tensor(weights.slice(t.offset, t.offset + t.size), [...t.shape]),
        true,
        `bp/${t.name}`,
      ),
    );
    this.opt = opts.optimizer === "adam" ? tf.train.adam(opts.lr) : tf.train.sgd(opts.lr);
    this.shape = model.spec.inputShape;
  }

  /** One optimizer step on a batch; returns the batch loss before the step. */
  step(batch: Batch): number {
    const { x, y } = batchTensors(batch, this.shape);
    const loss = this.opt.minimize(
      () => crossEntropy(this.model.forward(this.vars, x), y),
      true,
      this.vars,
    );
    const value = loss?.dataSync()[0] ?? Number.NaN;
    tf.dispose([x, y]);
    loss?.dispose();
    return value;
  }

  /** The current weights as backend tensors (the variables themselves; do not dispose). */
  get tensors(): readonly tf.Tensor[] {
    return this.vars;
  }

  dispose(): void {
    tf.dispose(this.vars);
    this.opt.dispose();
  }
}
