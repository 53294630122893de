/**
 * Causal language-model loss: the cross-entropy (natural log) of predicting token t+1 from
 * positions <= t, for every position whose token and next token are both real (not padding).
 * The vocabulary projection runs only on those rows.
 */
import * as tf from "@tensorflow/tfjs-core";
import { tokenBatch } from "./models/transformer.js";
/** Per-sequence next-token losses: entry t of sequence b is -log p(token t+1 | tokens <= t), over real tokens only. */
export function nextTokenLosses(model, weights, batch) {
    const T = batch.length;
    const rows = [];
    const targets = [];
    const counts = new Array(batch.size).fill(0);
    for (let b = 0; b < batch.size; b++) {
        for (let t = 0; t + 1 < T; t++) {
            const i = b * T + t;
            if (batch.mask[i] && batch.mask[i + 1]) {
                rows.push(i);
                targets.push(batch.ids[i + 1]);
                counts[b]++;
            }
        }
    }
    const flat = rows.length === 0
        ? new Float32Array(0)
        : tf.tidy(() => {
            const h = tf.gather(model.hidden(weights, batch), tf.tensor1d(rows, "int32"));
            const logits = model.head(weights, h);
            const picked = tf.gatherND(logits, tf.tensor2d(targets.flatMap((y, r) => [r, y]), [rows.length, 2], "int32"));
            return tf.sub(tf.logSumExp(logits, 1), picked);
        }).dataSync();
    const out = [];
    let at = 0;
    for (const n of counts) {
        out.push(flat.slice(at, at + n));
        at += n;
    }
    return out;
}
/** Mean next-token loss over every predicted position of a batch, and how many there were. */
export function meanNextTokenLoss(model, weights, batch) {
    let sum = 0;
    let tokens = 0;
    for (const seq of nextTokenLosses(model, weights, batch)) {
        for (const l of seq)
            sum += l;
        tokens += seq.length;
    }
    return { loss: tokens === 0 ? Number.NaN : sum / tokens, tokens };
}
/** Splits a token stream into consecutive windows of at most `length` tokens (the last may be shorter; a 1-token tail predicts nothing and is dropped). */
export function windowsOf(ids, length) {
    if (!(Number.isInteger(length) && length >= 2))
        throw new RangeError(`window length must be an integer >= 2, got ${length}`);
    const out = [];
    for (let s = 0; s < ids.length; s += length) {
        const w = ids.slice(s, s + length);
        if (w.length >= 2)
            out.push(w);
    }
    return out;
}
/**
 * Next-token losses of many sequences, `batchSize` at a time (right-padded to the longest of each
 * batch): the same per-sequence values as `nextTokenLosses` on each alone.
 */
export function scoreSequences(model, weights, sequences, batchSize, onBatch) {
    const out = [];
    for (let s = 0; s < sequences.length; s += batchSize) {
        out.push(...nextTokenLosses(model, weights, tokenBatch(sequences.slice(s, s + batchSize))));
        onBatch?.(Math.min(s + batchSize, sequences.length), sequences.length);
    }
    return out;
}
//# sourceMappingURL=next-token-loss.js.map