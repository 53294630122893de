/**
 * Marketplace (LaunchPlatform's forward-only training, V1 and V2) with shared randomness.
 *
 * The model's layers are grouped into N specs. At iteration t each author has M vendors per spec:
 * vendor 0 is the current weights; vendor v > 0 of spec s adds the delta s_t * r, where
 * r = 2u - 1 (u exact uniform-24 from vendorSeed(run, t, author, s, v), one stream per tensor) and
 * s_t = fround(lr_t * probeScale). Weights of a vendor: fround(w + fround(s_t * r)).
 *
 * contribute: evaluates the paths of `marketplace-paths.ts` on the iteration's SHARED batch (seed
 *   from run and t only, so losses compare across authors). Each spec's output is computed once
 *   per (vendor, upstream product) and reused by every path below it: vendor v of spec s runs on
 *   its upstream products stacked along the batch dimension, so the work is M calls of 2D
 *   matmul / conv on big batches, never a batched rank-3 matmul (slow on wasm).
 * V1 apply: the lowest loss over all contributions wins (strict <, so ties go to the earlier
 *   contribution in timestamp order); its vendors' deltas are regenerated and added, spec by
 *   spec, tensor by tensor: w = fround(w + fround(s_t * r)), exactly the weights it evaluated.
 * audit: recomputes an author's paths and checks its claimed losses (and, V1, its choice).
 * V2 apply (optimizers.py compute_direction_vectors, per_spec mode): with all n decoded losses L_j
 *   (timestamp order, then path order), in float32 with fround after every operation:
 *     mean = sum / n; var = sum((L - mean)^2) / (n - 1); std = sqrt(var)
 *     score_j = -(L_j - mean) / std
 *   Per spec s the direction d_s = sum_j score_j r(author_j, s, vendor_j(s)) is formed grouped:
 *     c(a, s, v) = sum of score_j over a's paths through vendor v at s (path order)
 *     d_s = sum over authors (timestamp order), vendors v = 1..M-1 of c(a, s, v) * r(a, s, v)
 *   (vendor 0 has no delta; the scale s_t cancels in the normalization, so r is used unscaled).
 *   Then norm = sqrt(sum d_s^2) and w = fround(w + fround(fround(lr_t / norm) * d_s)) per spec.
 *   No update when n < 2, std = 0 or norm = 0. Nothing overflows: losses are at most 2^32
 *   (validation; `scores` rescales larger ones), |score| < sqrt(n), and since sum |c| <=
 *   sum |score_j| <= sqrt(n (n - 1)) < n, |d[k]| < n < 2^23 and sum d^2 < 2^46 * parameters.
 */
import * as tf from "@tensorflow/tfjs-core";
import { decodeV1, decodeV2, encodeV1, encodeV2, MAX_PATH_LOSS, v1PayloadProblem, v1PayloadSize, v2PayloadProblem, v2PayloadSize, } from "../../protocol/marketplace-payload.js";
import { algorithmOf } from "../../protocol/run-spec.js";
import { sampleBatch } from "../data/dataset.js";
import { batchTensors } from "../evaluate.js";
import { floatWeights } from "../params.js";
import { fillSigned24 } from "../rng/noise.js";
import { Purpose, sharedBatchSeed, streamOf, upstreamSeed, vendorSeed, } from "../rng/seeds.js";
import { lrAt } from "../schedule.js";
import { AUDIT_LOSS_TOLERANCE } from "./audit-tolerance.js";
import { basePathIndex, planPaths } from "./marketplace-paths.js";
/**
 * Multiply-accumulates of one author's path evaluation relative to one plain forward pass (per
 * example, kernels only): each spec's layers run once per product of that spec.
 */
export function marketplaceMacRatio(model, a, products) {
    let first = 0;
    let plain = 0;
    let market = 0;
    a.specs.forEach((count, s) => {
        const macs = model.layers.slice(first, first + count).reduce((sum, l) => sum + l.macs, 0);
        first += count;
        plain += macs;
        market += products[s] * macs;
    });
    return market / plain;
}
export class Marketplace {
    runId;
    spec;
    model;
    train;
    kind = "marketplace";
    maxPayloadBytes;
    cfg;
    /** Layers of each spec. */
    specLayers;
    /** Layout tensor indices of each spec. */
    specTensors;
    /** [start, end) of each spec in the canonical weights (its tensors are consecutive). */
    specRange;
    /** The plan when it does not depend on the author (no upstream sampling). */
    fixedPlan;
    /** Scratch: noise r, and vendor weights / V2 direction, both in layout positions. */
    r;
    scratch;
    /** The last `contribute` evaluation, for diagnostics, tests and benchmarks. */
    lastEvaluation = null;
    constructor(runId, spec, model, train) {
        this.runId = runId;
        this.spec = spec;
        this.model = model;
        this.train = train;
        this.cfg = algorithmOf(spec, "marketplace");
        let first = 0;
        this.specLayers = this.cfg.specs.map((count) => {
            const layers = model.layers.slice(first, first + count);
            first += count;
            return layers;
        });
        this.specTensors = this.specLayers.map((ls) => ls.flatMap((l) => l.tensors));
        this.specRange = this.specTensors.map((ts) => {
            const first = model.layout.tensors[ts[0]];
            const last = model.layout.tensors[ts[ts.length - 1]];
            return [first.offset, last.offset + last.size];
        });
        this.fixedPlan = this.cfg.upstreamSampling === undefined ? planPaths(this.cfg) : null;
        const paths = this.planFor(0, { id: "", joinedAt: 0 }).products.at(-1);
        this.maxPayloadBytes = this.cfg.version === 1 ? v1PayloadSize(this.cfg.specs.length) : v2PayloadSize(paths);
        this.r = new Float32Array(model.layout.size);
        this.scratch = new Float32Array(model.layout.size);
    }
    get lastLoss() {
        const e = this.lastEvaluation;
        if (!e)
            return Number.NaN;
        const base = basePathIndex(e.plan);
        return base >= 0 ? e.losses[base] : Math.min(...e.losses);
    }
    /** The paths `author` evaluates at iteration t. */
    planFor(iteration, author) {
        return this.fixedPlan ?? planPaths(this.cfg, upstreamSeed(this.runId, iteration, author));
    }
    /** Vendor delta scale s_t = fround(lr_t * probeScale). */
    scaleAt(iteration) {
        return Math.fround(lrAt(this.cfg.schedule, iteration, this.spec.iterations) * Math.fround(this.cfg.probeScale));
    }
    /**
     * Writes r = 2u - 1 (exact in float32: a multiple of 2^-23 in [-1, 1)) of a vendor into
     * `this.r` at the positions of spec s's tensors, one stream per tensor.
     */
    noise(seed, s) {
        for (const ti of this.specTensors[s]) {
            const t = this.model.layout.tensors[ti];
            fillSigned24(streamOf(seed, Purpose.Vendor, ti), this.r.subarray(t.offset, t.offset + t.size));
        }
    }
    /**
     * Backend tensors of vendor v of spec s (v > 0): fround(w + fround(scale * r)), exactly what
     * V1's apply writes when this vendor wins.
     */
    vendorTensors(weights, seed, s, scale) {
        const f = Math.fround;
        this.noise(seed, s);
        const { r, scratch } = this;
        const [start, end] = this.specRange[s];
        for (let i = start; i < end; i++)
            scratch[i] = f(weights[i] + f(scale * r[i]));
        return this.specTensors[s].map((ti) => {
            const t = this.model.layout.tensors[ti];
            return tf.tensor(scratch.subarray(t.offset, t.offset + t.size), [...t.shape], "float32");
        });
    }
    /** Evaluates every path of `author`'s plan for the replica's iteration on the shared batch. */
    evaluatePaths(replica, author) {
        const t = replica.iteration;
        const plan = this.planFor(t, author);
        const scale = this.scaleAt(t);
        const shape = this.model.spec.inputShape;
        const features = shape[0] * shape[1] * shape[2];
        const batch = sampleBatch(this.train, features, sharedBatchSeed(this.runId, t), this.cfg.batchSize);
        const { x, y } = batchTensors(batch, shape);
        const b = batch.size;
        const m = this.cfg.vendors;
        let prev = x; // the previous spec's products, stacked along the batch dimension
        for (let s = 0; s < this.specLayers.length; s++) {
            const outs = [];
            for (let v = 0; v < m; v++) {
                outs.push(tf.tidy(() => {
                    const w = v === 0
                        ? this.specTensors[s].map((ti) => replica.backend.tensors[ti])
                        : this.vendorTensors(floatWeights(replica.weights), vendorSeed(this.runId, t, author, s, v), s, scale);
                    let a = prev;
                    if (!plan.takesAll[s]) {
                        // This vendor's sampled upstream products, gathered and stacked [take * b, ...].
                        const k = plan.products[s - 1];
                        const rest = prev.shape.slice(1);
                        const idx = tf.tensor1d(Int32Array.from(plan.inputs[s][v]), "int32");
                        a = tf.reshape(tf.gather(tf.reshape(prev, [k, -1]), idx), [idx.shape[0] * b, ...rest]);
                    }
                    let offset = 0;
                    for (const layer of this.specLayers[s]) {
                        a = layer.apply(w.slice(offset, offset + layer.tensors.length), a);
                        offset += layer.tensors.length;
                    }
                    return a;
                }));
            }
            const next = outs.length === 1 ? outs[0] : tf.concat(outs, 0);
            if (outs.length > 1)
                tf.dispose(outs);
            if (prev !== x)
                prev.dispose();
            prev = next;
        }
        const paths = plan.products[plan.products.length - 1];
        const losses = tf.tidy(() => {
            const classes = prev.shape[1];
            const logp = tf.reshape(tf.logSoftmax(prev), [paths, b, classes]);
            const onehot = tf.oneHot(y, classes);
            return tf.neg(tf.mean(tf.sum(tf.mul(logp, onehot), 2), 1)).dataSync();
        });
        tf.dispose([prev, x, y]);
        return { plan, losses: Float32Array.from(losses) };
    }
    contribute(replica, author, iteration = replica.iteration) {
        if (iteration !== replica.iteration)
            throw new RangeError(`the Marketplace measures on the state of its own iteration (${replica.iteration}), not for ${iteration}`);
        const e = this.evaluatePaths(replica, author);
        this.lastEvaluation = e;
        if (this.cfg.version === 2)
            return encodeV2(e.losses);
        let best = basePathIndex(e.plan);
        let bestLoss = best >= 0 && Number.isFinite(e.losses[best]) ? e.losses[best] : Number.POSITIVE_INFINITY;
        for (let j = 0; j < e.losses.length; j++) {
            if (e.losses[j] < bestLoss) {
                best = j;
                bestLoss = e.losses[j];
            }
        }
        const n = e.plan.specs;
        // Nothing finite: the base path, with the worst loss a payload may claim.
        if (best < 0)
            return encodeV1(MAX_PATH_LOSS, new Uint8Array(n));
        const claimed = Number.isFinite(bestLoss) ? Math.min(bestLoss, MAX_PATH_LOSS) : MAX_PATH_LOSS;
        return encodeV1(claimed, e.plan.paths.subarray(best * n, best * n + n));
    }
    /**
     * Recomputes the author's paths on the shared batch. V1: the claimed path must be one of the
     * author's, its claimed loss its loss, and no other path of the author's lower (an honest
     * author sends its best); V2: every decoded loss within one quantization step of ours. Losses
     * may differ by AUDIT_LOSS_TOLERANCE (relative, at least 1) between honest machines. A liar
     * claiming loss 0 to win every V1 iteration fails the first check of its claim.
     */
    audit(replica, author, claimed) {
        const problem = this.payloadProblem(claimed);
        if (problem)
            return problem;
        const e = this.evaluatePaths(replica, author);
        const slack = (l) => AUDIT_LOSS_TOLERANCE * Math.max(1, Math.abs(l));
        if (this.cfg.version === 2) {
            const got = decodeV2(claimed);
            const step = new DataView(claimed.buffer, claimed.byteOffset + 4, 4).getFloat32(0, true);
            for (let j = 0; j < got.length; j++) {
                const l = e.losses[j];
                if (!Number.isFinite(l))
                    continue;
                if (Math.abs(got[j] - l) > step + slack(l))
                    return `path ${j}: claimed loss ${got[j]}, recomputed ${l}`;
            }
            return null;
        }
        const { loss, path } = decodeV1(claimed);
        const n = e.plan.specs;
        let j = 0;
        while (j < e.losses.length && !path.every((v, s) => e.plan.paths[j * n + s] === v))
            j++;
        if (j === e.losses.length)
            return `path ${[...path].join(",")} is not one of the author's`;
        const ours = e.losses[j];
        if (Number.isFinite(ours) && Math.abs(Math.min(ours, MAX_PATH_LOSS) - loss) > slack(ours))
            return `claimed loss ${loss} for path ${j}, recomputed ${ours}`;
        const best = Math.min(...e.losses.filter(Number.isFinite));
        if (best < ours - slack(ours) - slack(best))
            return `path ${j} (loss ${ours}) is not the author's best (${best})`;
        return null;
    }
    payloadProblem(payload) {
        return this.cfg.version === 1
            ? v1PayloadProblem(payload, this.cfg.specs.length, this.cfg.vendors)
            : v2PayloadProblem(payload, this.maxPayloadBytes - 8);
    }
    apply(state, iteration, contributions) {
        const weights = floatWeights(state);
        for (const c of contributions) {
            const problem = this.payloadProblem(c.payload);
            if (problem)
                throw new RangeError(`contribution of ${c.author.id}: ${problem}`);
        }
        if (contributions.length === 0)
            return;
        if (this.cfg.version === 1)
            this.applyV1(weights, iteration, contributions);
        else
            this.applyV2(weights, iteration, contributions);
    }
    applyV1(weights, iteration, contributions) {
        const f = Math.fround;
        let best = 0;
        for (let i = 1; i < contributions.length; i++)
            if (decodeV1(contributions[i].payload).loss < decodeV1(contributions[best].payload).loss)
                best = i;
        const { author, payload } = contributions[best];
        const { path } = decodeV1(payload);
        const scale = this.scaleAt(iteration);
        const r = this.r;
        for (let s = 0; s < path.length; s++) {
            if (path[s] === 0)
                continue;
            this.noise(vendorSeed(this.runId, iteration, author, s, path[s]), s);
            const [start, end] = this.specRange[s];
            for (let i = start; i < end; i++)
                weights[i] = f(weights[i] + f(scale * r[i]));
        }
    }
    /**
     * z-scores of all losses in order (Bessel-corrected std), or null when there is no spread or a
     * loss is not finite. Overflow-safe for any finite float32 losses: validated payloads decode to
     * at most MAX_PATH_LOSS (2^32), where nothing below can overflow (marketplace-payload.ts); larger
     * ones are first scaled by a power of two 2^-16k to at most 2^32, which z-scores do not see
     * (exact unless a loss 2^126 times smaller than the largest underflows, identically everywhere).
     */
    static scores(raw) {
        const f = Math.fround;
        let top = 0;
        for (const ls of raw)
            for (const l of ls) {
                if (!Number.isFinite(l))
                    return null;
                top = Math.max(top, Math.abs(l));
            }
        let scale = 1;
        while (top * scale > MAX_PATH_LOSS)
            scale *= 2 ** -16;
        const losses = scale === 1 ? raw : raw.map((ls) => ls.map((l) => f(l * scale)));
        let n = 0;
        let sum = 0;
        for (const ls of losses)
            for (const l of ls) {
                sum = f(sum + l);
                n++;
            }
        if (n < 2)
            return null;
        const mean = f(sum / n);
        let acc = 0;
        for (const ls of losses)
            for (const l of ls) {
                const d = f(l - mean);
                acc = f(acc + f(d * d));
            }
        const std = f(Math.sqrt(f(acc / (n - 1))));
        if (!(std > 0) || !Number.isFinite(std))
            return null;
        return losses.map((ls) => ls.map((l) => f(-f(f(l - mean) / std))));
    }
    applyV2(weights, iteration, contributions) {
        const f = Math.fround;
        const m = this.cfg.vendors;
        const n = this.cfg.specs.length;
        const scores = Marketplace.scores(contributions.map((c) => decodeV2(c.payload)));
        if (!scores)
            return;
        // c(a, s, v): the summed scores of author a's paths through vendor v at spec s.
        const coefs = contributions.map((c, i) => {
            const { paths } = this.planFor(iteration, c.author);
            const out = new Float32Array(n * m);
            const sc = scores[i];
            for (let j = 0; j < sc.length; j++)
                for (let s = 0; s < n; s++) {
                    const k = s * m + paths[j * n + s];
                    out[k] = f(out[k] + sc[j]);
                }
            return out;
        });
        const lr = lrAt(this.cfg.schedule, iteration, this.spec.iterations);
        const d = this.scratch;
        const r = this.r;
        for (let s = 0; s < n; s++) {
            const [start, end] = this.specRange[s];
            d.fill(0, start, end);
            for (let i = 0; i < contributions.length; i++) {
                for (let v = 1; v < m; v++) {
                    const coef = coefs[i][s * m + v];
                    if (coef === 0)
                        continue;
                    this.noise(vendorSeed(this.runId, iteration, contributions[i].author, s, v), s);
                    for (let k = start; k < end; k++)
                        d[k] = f(d[k] + f(coef * r[k]));
                }
            }
            let sq = 0;
            for (let k = start; k < end; k++)
                sq = f(sq + f(d[k] * d[k]));
            const norm = f(Math.sqrt(sq));
            if (!(norm > 0) || !Number.isFinite(norm))
                continue;
            const step = f(lr / norm);
            for (let k = start; k < end; k++)
                weights[k] = f(weights[k] + f(step * d[k]));
        }
    }
}
//# sourceMappingURL=marketplace.js.map