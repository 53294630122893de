/**
 * Binary Learning: one-bit (or ternary) weights trained by voting on single-weight moves.
 *
 * contribute: the author draws its minibatch from seed H(run, t, author, joinedAt, 0), computes the
 *   exact loss delta of every move of the current stage (training/models/bit-flip-deltas.ts) and
 *   sends the `maxEntries` most negative ones (only a negative sum is ever applied) as a sparse
 *   one-byte payload (protocol/sparse-payload.ts), indices global (protocol/run-spec.ts
 *   `bitStageRanges`).
 * apply: with the stage of iteration t, the votes of all contributions are summed per move in
 *   timestamp order, each value fround(scale * dequant(byte)) and each sum fround(sum + value);
 *   the moves with a negative sum, sorted by (sum, index), are taken in that order until
 *   `flipsPerIteration` are done: a trit move past +/-1, or a second move of a weight already
 *   moved this iteration, is dropped. Word 0 of the state becomes t's stage. Integer and float32
 *   operations only, no forward pass: every replica gets the same bits.
 */
import { MAX_PAYLOAD_BYTES } from "../../protocol/limits.js";
import { bitStageRanges } from "../../protocol/model-spec.js";
import { algorithmOf } from "../../protocol/run-spec.js";
import { decodeSparsePayload, encodeSparsePayload, sparsePayloadProblem, sparseValue, } from "../../protocol/sparse-payload.js";
import { bitKernel } from "../bit-kernel/select.js";
import { sampleBatch } from "../data/dataset.js";
import { bitGeometry, STAGE_WORD, setWeight, weightAt } from "../models/bit-mlp.js";
import { stageDeltas } from "../models/bit-flip-deltas.js";
import { contributionSeed } from "../rng/seeds.js";
/** The stage of iteration t under a schedule of stage lengths (past the end: the last stage). */
export function stageAt(stages, iteration) {
    let end = 0;
    for (let s = 0; s < stages.length; s++) {
        end += stages[s];
        if (iteration < end)
            return s;
    }
    return stages.length - 1;
}
/** The k-th smallest value of `a` (0-based), reordering `a` (Hoare's selection, expected O(n)). */
function select(a, k) {
    let lo = 0;
    let hi = a.length - 1;
    while (lo < hi) {
        const pivot = a[(lo + hi) >>> 1];
        let i = lo;
        let j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                const t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}
/** The most negative finite deltas (at most `max`), as ascending local indices. */
export function mostNegative(deltas, max) {
    let count = 0;
    for (let k = 0; k < deltas.length; k++)
        if (deltas[k] < 0)
            count++;
    const picked = [];
    if (count <= max) {
        for (let k = 0; k < deltas.length; k++)
            if (deltas[k] < 0)
                picked.push(k);
        return Uint32Array.from(picked);
    }
    const neg = new Float64Array(count);
    for (let k = 0, i = 0; k < deltas.length; k++)
        if (deltas[k] < 0)
            neg[i++] = deltas[k];
    const cut = select(neg, max - 1);
    let below = 0;
    for (let i = 0; i < count; i++)
        if (neg[i] < cut)
            below++;
    let atCut = max - below;
    for (let k = 0; k < deltas.length; k++) {
        const d = deltas[k];
        if (d < cut)
            picked.push(k);
        else if (d === cut && atCut > 0) {
            picked.push(k);
            atCut--;
        }
    }
    return Uint32Array.from(picked);
}
export class Binary {
    runId;
    spec;
    train;
    kind = "binary";
    maxPayloadBytes = MAX_PAYLOAD_BYTES;
    cfg;
    geometry;
    ranges;
    kernel;
    lastLoss = Number.NaN;
    /** Entries of the last `contribute` payload. */
    lastEntries = 0;
    /** Moves applied by the last `apply`. */
    lastFlips = 0;
    /** Summed votes of one apply, per move of the largest stage (zeroed after use). */
    sums;
    touched;
    constructor(runId, spec, model, train, kernel) {
        this.runId = runId;
        this.spec = spec;
        this.train = train;
        this.cfg = algorithmOf(spec, "binary");
        this.geometry = bitGeometry(model.spec);
        this.ranges = bitStageRanges(model.spec);
        this.kernel = kernel ?? bitKernel();
        const largest = Math.max(...this.ranges.map((r) => r.end - r.start));
        this.sums = new Float32Array(largest);
        this.touched = new Uint8Array(largest);
    }
    stageAt(iteration) {
        return stageAt(this.cfg.stages, iteration);
    }
    limits(iteration) {
        const r = this.ranges[this.stageAt(iteration)];
        return { maxBytes: MAX_PAYLOAD_BYTES, maxEntries: this.cfg.maxEntries, minIndex: r.start, endIndex: r.end };
    }
    /** The exact deltas of every move of the replica's stage on this author's minibatch. */
    deltasFor(state, iteration, author) {
        const g = this.geometry;
        const seed = contributionSeed(this.runId, iteration, author, 0);
        const batch = sampleBatch(this.train, g.features, seed, this.cfg.batchSize);
        return stageDeltas(this.kernel, state, g, this.stageAt(iteration), batch.x, batch.y, batch.size);
    }
    contribute(replica, author, iteration = replica.iteration) {
        const t = replica.iteration;
        if (iteration !== t)
            throw new RangeError(`binary learning measures on the state of its own iteration (${t}), not for ${iteration}`);
        const { loss, deltas } = this.deltasFor(replica.weights, t, author);
        this.lastLoss = loss;
        const local = mostNegative(deltas, this.cfg.maxEntries);
        const start = this.ranges[this.stageAt(t)].start;
        const values = Float64Array.from(local, (k) => deltas[k]);
        const indices = Uint32Array.from(local, (k) => k + start);
        this.lastEntries = indices.length;
        return encodeSparsePayload(indices, values);
    }
    payloadProblem(payload, iteration) {
        return sparsePayloadProblem(payload, this.limits(iteration));
    }
    apply(weights, iteration, contributions) {
        if (!(weights instanceof Uint32Array))
            throw new RangeError("binary learning needs a packed state");
        const f = Math.fround;
        const stage = this.stageAt(iteration);
        const { start } = this.ranges[stage];
        const limits = this.limits(iteration);
        const { sums, touched } = this;
        const moves = [];
        try {
            for (const c of contributions) {
                const p = decodeSparsePayload(c.payload, limits);
                for (let k = 0; k < p.indices.length; k++) {
                    const m = p.indices[k] - start;
                    sums[m] = f(sums[m] + sparseValue(p, k));
                    if (!touched[m]) {
                        touched[m] = 1;
                        moves.push(m);
                    }
                }
            }
            const negative = moves.filter((m) => sums[m] < 0);
            negative.sort((a, b) => sums[a] - sums[b] || a - b);
            this.lastFlips = this.applyMoves(weights, stage, negative);
        }
        finally {
            for (const m of moves) {
                sums[m] = 0;
                touched[m] = 0;
            }
        }
        weights[STAGE_WORD] = stage;
    }
    /** Applies moves (local indices, best first) until flipsPerIteration are done; returns how many. */
    applyMoves(state, stage, ordered) {
        const g = this.geometry;
        const l = g.layers[stage];
        const per = g.ternary ? 2 : 1;
        const kernelMoves = per * l.kernel.rows * l.kernel.cols;
        const moved = new Set();
        let done = 0;
        for (const m of ordered) {
            if (done === this.cfg.flipsPerIteration)
                break;
            const weight = Math.floor(m / per);
            if (moved.has(weight))
                continue;
            const inKernel = m < kernelMoves;
            const matrix = inKernel ? l.kernel : l.head;
            const w = inKernel ? weight : weight - l.kernel.rows * l.kernel.cols;
            const row = Math.floor(w / matrix.cols);
            const col = w % matrix.cols;
            const v = weightAt(state, g, matrix, row, col);
            let next;
            if (!g.ternary)
                next = -v;
            else {
                next = v + (m % 2 === 0 ? 1 : -1);
                if (next > 1 || next < -1)
                    continue; // a vote pushing a trit past its limit
            }
            setWeight(state, g, matrix, row, col, next);
            moved.add(weight);
            done++;
        }
        return done;
    }
}
//# sourceMappingURL=binary.js.map