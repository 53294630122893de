/**
 * Backprop (tfjs autograd, Adam) for transformers: pretraining the demo's model from scratch and
 * the baseline that one-byte SPSA fine-tuning is compared with. Like training/backprop.ts it never
 * enters the replicated state: its result becomes a checkpoint that a run then names by hash.
 */
import * as tf from "@tensorflow/tfjs";
import { tokenBatch } from "./models/transformer.js";
import { fillSigned24 } from "./rng/noise.js";
import { Purpose, seedFrom, streamOf } from "./rng/seeds.js";
export const defaultLanguageBackpropOptions = { lr: 3e-3, clipNorm: 1 };
/**
 * GPT-2's initialization from a seed: weights uniform with standard deviation 0.02 (exact
 * 24-bit draws), zero biases, norm gains of one; the same bytes on every machine.
 */
export function pretrainInit(model, seed) {
    const weights = new Float32Array(model.layout.size);
    const s = seedFrom("seedswarm/lm-pretrain-init/1", [seed]);
    // A uniform on [-a, a] has standard deviation a / sqrt(3).
    const a = Math.fround(0.02 * Math.sqrt(3));
    model.layout.tensors.forEach((t, i) => {
        const w = weights.subarray(t.offset, t.offset + t.size);
        if (t.init === "ones")
            w.fill(1);
        if (t.init !== "he")
            return;
        fillSigned24(streamOf(s, Purpose.Init, i), w);
        for (let j = 0; j < w.length; j++)
            w[j] = Math.fround(w[j] * a);
    });
    return weights;
}
/**
 * tfjs differentiates gather through UnsortedSegmentSum, a kernel tfjs-wasm lacks. Where it is
 * missing, GatherV2's gradient is registered again as a one-hot matrix product (OneHot, MatMul
 * and Transpose run on every backend): the same sums for the batchDims 0 gathers our models use.
 * Only gradients change: forward passes, and so SPSA, never run it.
 */
function ensureGatherGradient() {
    if (tf.getKernel("UnsortedSegmentSum", tf.getBackend()) !== undefined || gatherGradientSet)
        return;
    gatherGradientSet = true;
    tf.registerGradient({
        kernelName: "GatherV2",
        inputsToSave: ["x", "indices"],
        gradFunc: (dy, saved, attrs) => {
            const [x, indices] = saved;
            const axis = attrs.axis < 0 ? attrs.axis + x.rank : attrs.axis;
            if (attrs.batchDims)
                throw new Error("GatherV2 gradient: batchDims is not supported");
            const dyT = Array.isArray(dy) ? dy[0] : dy;
            return {
                x: () => {
                    const n = indices.size;
                    const outer = x.shape.slice(0, axis);
                    const inner = x.shape.slice(axis + 1);
                    // dy as [n, outer..., inner...] flattened to [n, rest].
                    const values = tf.reshape(dyT, [...outer, n, ...inner]);
                    const perm = [outer.length, ...outer.map((_, i) => i), ...inner.map((_, i) => outer.length + 1 + i)];
                    const moved = tf.transpose(values, perm);
                    const rest = moved.size / n;
                    const onehot = tf.oneHot(tf.reshape(indices, [n]), x.shape[axis]);
                    const summed = tf.matMul(tf.transpose(onehot), tf.reshape(moved, [n, rest]));
                    const back = tf.reshape(summed, [x.shape[axis], ...outer, ...inner]);
                    const undo = perm.map((_, i) => perm.indexOf(i));
                    return tf.transpose(back, undo);
                },
                indices: () => indices,
            };
        },
    });
}
let gatherGradientSet = false;
/** The last two axes swapped, materialized (rank 2 or 3). */
const swapLast = (x) => tf.transpose(x, x.rank === 2 ? [1, 0] : [0, 2, 1]);
/**
 * tfjs-wasm multiplies a transposed operand (a matMul transpose flag) 10 to 50 times slower than a
 * plain one (measured: [1024, 64]^T x [1024, 2048] 401 ms, with the transpose done first 12 ms),
 * and tfjs's MatMul gradient uses those flags. On wasm it is registered again with the
 * transposes done first: the same products, summed by the fast kernel.
 */
function ensureFastMatMulGradient() {
    if (tf.getBackend() !== "wasm" || matMulGradientSet)
        return;
    matMulGradientSet = true;
    tf.registerGradient({
        kernelName: "BatchMatMul",
        inputsToSave: ["a", "b"],
        gradFunc: (dy, saved, attrs) => {
            const [a, b] = saved;
            const { transposeA, transposeB } = attrs;
            const g = Array.isArray(dy) ? dy[0] : dy;
            if (a.rank !== b.rank)
                throw new Error("MatMul gradient: broadcast batch dimensions are not supported");
            const mm = (x, y) => tf.matMul(x, y);
            const T = swapLast;
            if (!transposeA && !transposeB)
                return { a: () => mm(g, T(b)), b: () => mm(T(a), g) };
            if (!transposeA && transposeB)
                return { a: () => mm(g, b), b: () => mm(T(g), a) };
            if (transposeA && !transposeB)
                return { a: () => mm(b, T(g)), b: () => mm(a, g) };
            return { a: () => mm(T(b), T(g)), b: () => mm(T(g), T(a)) };
        },
    });
}
let matMulGradientSet = false;
export class LanguageBackprop {
    model;
    opts;
    vars;
    opt;
    constructor(model, weights, opts = defaultLanguageBackpropOptions) {
        this.model = model;
        this.opts = opts;
        this.vars = model.layout.tensors.map((t, i) => {
            const x = tf.tensor(weights.subarray(t.offset, t.offset + t.size), [...t.shape]);
            const y = t.backendTransposed ? tf.transpose(x) : x;
            if (y !== x)
                x.dispose();
            return tf.variable(y, true, `lm-bp/${i}`);
        });
        this.opt = tf.train.adam(opts.lr);
        ensureGatherGradient();
        ensureFastMatMulGradient();
    }
    /** One step on sequences of token ids (next-token loss over every real position); returns the loss before it. */
    stepCausal(sequences) {
        const batch = tokenBatch(sequences);
        const rows = [];
        const targets = [];
        for (let i = 0; i + 1 < batch.ids.length; i++) {
            if (batch.mask[i] && batch.mask[i + 1] && (i + 1) % batch.length !== 0) {
                rows.push(i);
                targets.push(batch.ids[i + 1]);
            }
        }
        return this.step(() => {
            const h = tf.gather(this.model.hidden(this.vars, batch), tf.tensor1d(rows, "int32"));
            return this.crossEntropy(this.model.head(this.vars, h), targets);
        });
    }
    /** One step on prompts: cross-entropy over the label words' logits at each prompt's last token. */
    stepPrompts(prompts, labels, labelIds) {
        const batch = tokenBatch(prompts);
        const rows = prompts.map((p, b) => b * batch.length + p.length - 1);
        return this.step(() => {
            const h = tf.gather(this.model.hidden(this.vars, batch), tf.tensor1d(rows, "int32"));
            const logits = tf.gather(this.model.head(this.vars, h), tf.tensor1d([...labelIds], "int32"), 1);
            return this.crossEntropy(logits, labels);
        });
    }
    /** Mean cross-entropy of logit rows against target columns (one-hot: GatherNd has no gradient in tfjs). */
    crossEntropy(logits, targets) {
        const onehot = tf.oneHot(tf.tensor1d([...targets], "int32"), logits.shape[1]);
        return tf.neg(tf.mean(tf.sum(tf.mul(tf.logSoftmax(logits), onehot), 1)));
    }
    step(lossFn) {
        const value = tf.tidy(() => {
            const { value: loss, grads } = tf.variableGrads(lossFn, this.vars);
            const names = Object.keys(grads);
            const norm = tf.sqrt(tf.addN(names.map((n) => tf.sum(tf.square(grads[n]))))).dataSync()[0];
            const scale = norm > this.opts.clipNorm ? this.opts.clipNorm / norm : 1;
            this.opt.applyGradients(Object.fromEntries(names.map((n) => [n, scale === 1 ? grads[n] : tf.mul(grads[n], scale)])));
            return loss.dataSync()[0];
        });
        return value;
    }
    /** The variables as backend weights (layout order); valid until dispose. */
    get tensors() {
        return this.vars;
    }
    /** The weights in canonical (layout) order and orientation. */
    weights() {
        const out = new Float32Array(this.model.layout.size);
        this.model.layout.tensors.forEach((t, i) => {
            const data = tf.tidy(() => (t.backendTransposed ? tf.transpose(this.vars[i]) : this.vars[i]).dataSync());
            out.set(data, t.offset);
        });
        return out;
    }
    dispose() {
        tf.dispose(this.vars);
        this.opt.dispose();
    }
}
//# sourceMappingURL=lm-backprop.js.map