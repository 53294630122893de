/**
 * What an algorithm measures a loss on, apart from the model kind: a task turns a seed into the
 * minibatch every replica draws for it, and a minibatch plus backend weights into a mean loss.
 * SPSA's `contribute` sees only this, so image classifiers and language models train alike.
 */
import type * as tf from "@tensorflow/tfjs-core";
import type { Seed } from "../rng/seeds.js";

/** A minibatch ready for forward passes (its tensors, if any, live until `dispose`). */
export interface TaskBatch {
  /** Mean loss of the model with these backend weights (layout order) on the batch. */
  loss(weights: readonly tf.Tensor[]): number;
  dispose(): void;
}

export interface Task {
  /** The minibatch of `size` examples that `seed` picks: the same on every machine. */
  batch(seed: Seed, size: number): TaskBatch;
}
