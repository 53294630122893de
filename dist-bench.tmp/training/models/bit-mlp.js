import { fillUniformInt } from "../rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../rng/seeds.js";
/** Word 0 of the state: the active stage. */
export const STAGE_WORD = 0;
export function bitGeometry(spec) {
    const ternary = spec.weights === "ternary";
    const planes = ternary ? 2 : 1;
    const [h, w, c] = spec.inputShape;
    const features = h * w * c;
    let word = 1;
    let weight = 0;
    const matrix = (rows, cols) => {
        const wpr = Math.ceil(cols / 32);
        const m = { rows, cols, wpr, word, planeWords: rows * wpr, firstWeight: weight };
        word += planes * rows * wpr;
        weight += rows * cols;
        return m;
    };
    let inputs = features;
    const layers = spec.hidden.map((units) => {
        const kernel = matrix(units, inputs);
        const head = matrix(spec.classes, units);
        const l = { inputs, units, kernel, head };
        inputs = units;
        return l;
    });
    return { spec, ternary, planes, features, layers, words: word, weightCount: weight };
}
/** The value (-1, 0 or +1) of weight (row, col) of a matrix. */
export function weightAt(state, g, m, row, col) {
    const at = m.word + row * m.wpr + (col >>> 5);
    const bit = 1 << (col & 31);
    if (g.ternary && (state[at + m.planeWords] & bit) === 0)
        return 0;
    return state[at] & bit ? -1 : 1;
}
/** Sets weight (row, col) to v (-1, 0 or +1; 0 only for trits), keeping the canonical form. */
export function setWeight(state, g, m, row, col, v) {
    const at = m.word + row * m.wpr + (col >>> 5);
    const bit = 1 << (col & 31);
    if (v < 0)
        state[at] |= bit;
    else
        state[at] &= ~bit;
    if (g.ternary) {
        if (v === 0)
            state[at + m.planeWords] &= ~bit;
        else
            state[at + m.planeWords] |= bit;
    }
    else if (v === 0)
        throw new RangeError("a binary weight cannot be 0");
}
/**
 * Initial state from a seed: each weight uniform over its values (binary: +/-1; ternary: -1, 0,
 * +1 from uniform integers), stage 0. Integer draws only, so every machine starts identical.
 */
export function initBits(g, seed) {
    const state = new Uint32Array(g.words);
    const s = seedFrom("seedswarm/bitmlp-init/1", [seed]);
    let stream = 0;
    for (const l of g.layers) {
        for (const m of [l.kernel, l.head]) {
            const draws = new Uint32Array(m.rows * m.cols);
            fillUniformInt(streamOf(s, Purpose.Init, stream++), g.ternary ? 3 : 2, draws);
            for (let r = 0; r < m.rows; r++)
                for (let c = 0; c < m.cols; c++) {
                    const d = draws[r * m.cols + c];
                    setWeight(state, g, m, r, c, g.ternary ? d - 1 : d === 0 ? 1 : -1);
                }
        }
    }
    return state;
}
/**
 * Why `state` is not a canonical state of this geometry (wrong length, a stage out of range,
 * padding bits set, a ternary zero with its sign bit set), or null.
 */
export function bitStateProblem(state, g) {
    if (state.length !== g.words)
        return `state has ${state.length} words, the model needs ${g.words}`;
    if (state[STAGE_WORD] >= g.layers.length)
        return `active stage ${state[STAGE_WORD]} is not below ${g.layers.length}`;
    for (const l of g.layers) {
        for (const m of [l.kernel, l.head]) {
            const tail = m.cols & 31;
            const pad = tail === 0 ? 0 : ~((1 << tail) - 1);
            for (let r = 0; r < m.rows; r++) {
                const last = m.word + r * m.wpr + m.wpr - 1;
                for (let p = 0; p < g.planes; p++)
                    if (state[last + p * m.planeWords] & pad)
                        return `padding bits set in row ${r} of a matrix at word ${m.word}`;
                if (g.ternary)
                    for (let k = 0; k < m.wpr; k++) {
                        const at = m.word + r * m.wpr + k;
                        if (state[at] & ~state[at + m.planeWords])
                            return `a zero trit has its sign bit set (word ${at})`;
                    }
            }
        }
    }
    return null;
}
/** Packs a batch of features as +/-1 bits (set = below the threshold), `wpr` words per example. */
export function binarizeInputs(x, batch, features, threshold) {
    const wpr = Math.ceil(features / 32);
    const out = new Uint32Array(batch * wpr);
    // float32 like the features (and the tf forward, which subtracts it from them).
    const t = Math.fround(threshold);
    for (let b = 0; b < batch; b++) {
        const xo = b * features;
        for (let i = 0; i < features; i++)
            if (!(x[xo + i] >= t))
                out[b * wpr + (i >>> 5)] |= 1 << (i & 31);
    }
    return out;
}
/** Per-row count of non-zero weights (ternary) or the row width (binary). */
export function rowWeights(state, g, m) {
    const out = new Int32Array(m.rows);
    for (let r = 0; r < m.rows; r++) {
        if (!g.ternary) {
            out[r] = m.cols;
            continue;
        }
        let c = 0;
        for (let k = 0; k < m.wpr; k++) {
            let v = state[m.word + m.planeWords + r * m.wpr + k];
            while (v) {
                v &= v - 1;
                c++;
            }
        }
        out[r] = c;
    }
    return out;
}
/**
 * Integer sums of a matrix applied to packed +/-1 rows: out[b * rows + j] = sum_i m_ji x_bi.
 * The kernel gives the popcounts; the sum is (weights of the row) - 2 popcount.
 */
export function matrixSums(kernel, state, g, m, xBits, batch, out) {
    const plane = state.subarray(m.word, m.word + m.planeWords);
    const mask = g.ternary ? state.subarray(m.word + m.planeWords, m.word + 2 * m.planeWords) : null;
    kernel.xorPopcount(xBits, batch, plane, m.rows, m.wpr, mask, out);
    const nnz = rowWeights(state, g, m);
    for (let b = 0; b < batch; b++)
        for (let j = 0; j < m.rows; j++)
            out[b * m.rows + j] = nnz[j] - 2 * out[b * m.rows + j];
}
/** Packs activations: bit set where the sum is < 0. */
export function activationBits(sums, batch, units) {
    const wpr = Math.ceil(units / 32);
    const out = new Uint32Array(batch * wpr);
    for (let b = 0; b < batch; b++)
        for (let j = 0; j < units; j++)
            if (sums[b * units + j] < 0)
                out[b * wpr + (j >>> 5)] |= 1 << (j & 31);
    return out;
}
/** The packed input of layer `layer` for a batch: binarized features through the layers below. */
export function layerInput(kernel, state, g, layer, x, batch) {
    let bits = binarizeInputs(x, batch, g.features, g.spec.inputThreshold);
    for (let l = 0; l < layer; l++) {
        const k = g.layers[l].kernel;
        const sums = new Int32Array(batch * k.rows);
        matrixSums(kernel, state, g, k, bits, batch, sums);
        bits = activationBits(sums, batch, k.rows);
    }
    return bits;
}
/** Logits [batch, classes] (float64, exact: integer sums times a power of two) of the active stage. */
export function bitLogits(kernel, state, g, x, batch) {
    const stage = state[STAGE_WORD];
    const l = g.layers[stage];
    const input = layerInput(kernel, state, g, stage, x, batch);
    const sums = new Int32Array(batch * l.units);
    matrixSums(kernel, state, g, l.kernel, input, batch, sums);
    const h = activationBits(sums, batch, l.units);
    const z = new Int32Array(batch * g.spec.classes);
    matrixSums(kernel, state, g, l.head, h, batch, z);
    return Float64Array.from(z, (v) => v * g.spec.logitScale);
}
/** The weights of a packed state as float matrices [inputs, units] and [units, classes] (tf layout). */
export function unpackLayer(state, g, layer) {
    const l = g.layers[layer];
    const kernel = new Float32Array(l.inputs * l.units);
    for (let j = 0; j < l.units; j++)
        for (let i = 0; i < l.inputs; i++)
            kernel[i * l.units + j] = weightAt(state, g, l.kernel, j, i);
    const classes = g.spec.classes;
    const head = new Float32Array(l.units * classes);
    for (let c = 0; c < classes; c++)
        for (let j = 0; j < l.units; j++)
            head[j * classes + c] = weightAt(state, g, l.head, c, j);
    return { kernel, head };
}
//# sourceMappingURL=bit-mlp.js.map