/**
 * Backprop baseline (tfjs autograd with SGD or Adam) on the same models and data, for comparison
 * only: it is not deterministic across backends and never enters the replicated state.
 */
import * as tf from "@tensorflow/tfjs";
import { batchTensors } from "./evaluate.js";
import { crossEntropy } from "./models/model.js";
/** Sensible defaults for MNIST-sized models. */
export const defaultBackpropOptions = { optimizer: "adam", lr: 1e-3 };
export class BackpropTrainer {
    model;
    vars;
    opt;
    shape;
    constructor(model, weights, opts = defaultBackpropOptions) {
        this.model = model;
        this.vars = model.layout.tensors.map((t) => tf.variable(tf.tensor(weights.slice(t.offset, t.offset + t.size), [...t.shape]), true, `bp/${t.name}`));
        this.opt = opts.optimizer === "adam" ? tf.train.adam(opts.lr) : tf.train.sgd(opts.lr);
        this.shape = model.spec.inputShape;
    }
    /** One optimizer step on a batch; returns the batch loss before the step. */
    step(batch) {
        const { x, y } = batchTensors(batch, this.shape);
        const loss = this.opt.minimize(() => crossEntropy(this.model.forward(this.vars, x), y), true, this.vars);
        const value = loss?.dataSync()[0] ?? Number.NaN;
        tf.dispose([x, y]);
        loss?.dispose();
        return value;
    }
    /** The current weights as backend tensors (the variables themselves; do not dispose). */
    get tensors() {
        return this.vars;
    }
    dispose() {
        tf.dispose(this.vars);
        this.opt.dispose();
    }
}
//# sourceMappingURL=backprop.js.map