import { activationBits, layerInput, matrixSums, weightAt } from "./bit-mlp.js";
/** Cross-entropy of logits z (offset o, C classes) against label y, float64. */
function crossEntropy(z, o, classes, y) {
    let max = -Infinity;
    for (let c = 0; c < classes; c++)
        max = Math.max(max, z[o + c]);
    let sum = 0;
    for (let c = 0; c < classes; c++)
        sum += Math.exp(z[o + c] - max);
    return max + Math.log(sum) - z[o + y];
}
/** Mean head loss of a stage on a batch (the quantity the deltas change). */
export function stageLoss(kernel, state, g, stage, x, y, batch) {
    const { z } = stageForward(kernel, state, g, stage, x, batch);
    let loss = 0;
    for (let b = 0; b < batch; b++)
        loss += crossEntropy(z, b * g.spec.classes, g.spec.classes, y[b]);
    return loss / batch;
}
function stageForward(kernel, state, g, stage, x, batch) {
    const l = g.layers[stage];
    const input = layerInput(kernel, state, g, stage, x, batch);
    const s = new Int32Array(batch * l.units);
    matrixSums(kernel, state, g, l.kernel, input, batch, s);
    const h = activationBits(s, batch, l.units);
    const zi = new Int32Array(batch * g.spec.classes);
    matrixSums(kernel, state, g, l.head, h, batch, zi);
    const z = Float64Array.from(zi, (v) => v * g.spec.logitScale);
    return { input, s, h, z };
}
export function stageDeltas(kernel, state, g, stage, x, y, batch) {
    const l = g.layers[stage];
    const C = g.spec.classes;
    const H = l.units;
    const n = l.inputs;
    const alpha = g.spec.logitScale;
    const per = g.ternary ? 2 : 1;
    const { input, s, h, z } = stageForward(kernel, state, g, stage, x, batch);
    const deltas = new Float64Array(per * (n * H + H * C));
    const headBase = per * n * H;
    // Softmax, per-example loss.
    const p = new Float64Array(batch * C);
    let loss = 0;
    for (let b = 0; b < batch; b++) {
        const o = b * C;
        let max = -Infinity;
        for (let c = 0; c < C; c++)
            max = Math.max(max, z[o + c]);
        let sum = 0;
        for (let c = 0; c < C; c++)
            sum += Math.exp(z[o + c] - max);
        for (let c = 0; c < C; c++)
            p[o + c] = Math.exp(z[o + c] - max) / sum;
        loss += max + Math.log(sum) - z[o + y[b]];
    }
    loss /= batch;
    // Head: tabulate, for each (b, c), the loss change for a logit change of +step and -step.
    const step = g.ternary ? alpha : 2 * alpha;
    const up = new Float64Array(batch * C);
    const down = new Float64Array(batch * C);
    const eUp = Math.expm1(step);
    const eDown = Math.expm1(-step);
    for (let b = 0; b < batch; b++)
        for (let c = 0; c < C; c++) {
            const hit = y[b] === c ? 1 : 0;
            up[b * C + c] = Math.log1p(p[b * C + c] * eUp) - hit * step;
            down[b * C + c] = Math.log1p(p[b * C + c] * eDown) - hit * -step;
        }
    const hw = Math.ceil(H / 32);
    for (let c = 0; c < C; c++)
        for (let j = 0; j < H; j++) {
            // sumPos: total of `up` over examples with h_bj = +1 (and `down` where -1), and vice versa.
            let plusUp = 0;
            let minusUp = 0;
            for (let b = 0; b < batch; b++) {
                const neg = (h[b * hw + (j >>> 5)] >>> (j & 31)) & 1;
                if (neg) {
                    plusUp += down[b * C + c];
                    minusUp += up[b * C + c];
                }
                else {
                    plusUp += up[b * C + c];
                    minusUp += down[b * C + c];
                }
            }
            // plusUp: the logit moves by +step * h_bj; minusUp: by -step * h_bj.
            const v = weightAt(state, g, l.head, c, j);
            const k = headBase + per * (c * H + j);
            if (!g.ternary)
                deltas[k] = (v > 0 ? minusUp : plusUp) / batch;
            else {
                deltas[k] = v < 1 ? plusUp / batch : Number.NaN;
                deltas[k + 1] = v > -1 ? minusUp / batch : Number.NaN;
            }
        }
    // Hidden: only examples within one step of a unit's threshold.
    const iw = Math.ceil(n / 32);
    const zz = new Float64Array(C);
    const signs = state.subarray(l.kernel.word, l.kernel.word + l.kernel.planeWords);
    const nz = g.ternary ? state.subarray(l.kernel.word + l.kernel.planeWords, l.kernel.word + 2 * l.kernel.planeWords) : null;
    for (let b = 0; b < batch; b++) {
        const o = b * C;
        const base = crossEntropy(z, o, C, y[b]);
        for (let j = 0; j < H; j++) {
            const sj = s[b * H + j];
            // goDown: the unit is +1 and a move can take it to -1; else it is -1 and can go to +1.
            let goDown;
            if (g.ternary) {
                if (sj !== 0 && sj !== -1)
                    continue;
                goDown = sj === 0;
            }
            else {
                if (sj < -2 || sj > 1)
                    continue;
                goDown = sj >= 0;
            }
            const dh = goDown ? -2 : 2;
            for (let c = 0; c < C; c++)
                zz[c] = z[o + c] + alpha * weightAt(state, g, l.head, c, j) * dh;
            const d = (crossEntropy(zz, 0, C, y[b]) - base) / batch;
            if (d === 0)
                continue;
            const row = j * iw;
            const xo = b * iw;
            for (let k = 0; k < iw; k++) {
                const xk = input[xo + k];
                if (!g.ternary) {
                    // A flip of w_ji moves s by -2 w_ji x_bi: down needs w x = +1 (equal bits), up w x = -1.
                    const differ = xk ^ signs[row + k];
                    let m = goDown ? ~differ : differ;
                    if (32 * k + 32 > n)
                        m &= (1 << (n - 32 * k)) - 1;
                    while (m) {
                        const t = m & -m;
                        deltas[j * n + 32 * k + (31 - Math.clz32(t))] += d;
                        m ^= t;
                    }
                }
                else {
                    // A move d moves s by d x_bi: down needs d = -x_bi, up d = x_bi. Bit set = -1.
                    let m = 32 * k + 32 > n ? (1 << (n - 32 * k)) - 1 : -1;
                    const sign = signs[row + k];
                    const nzk = nz[row + k];
                    while (m) {
                        const t = m & -m;
                        m ^= t;
                        const xNeg = (xk & t) !== 0;
                        const dPlus = goDown ? xNeg : !xNeg; // the move that crosses is +1
                        const w = nzk & t ? (sign & t ? -1 : 1) : 0;
                        if (dPlus ? w === 1 : w === -1)
                            continue; // already at the limit: not a move
                        const i = 32 * k + (31 - Math.clz32(t));
                        deltas[2 * (j * n + i) + (dPlus ? 0 : 1)] += d;
                    }
                }
            }
        }
    }
    // Ternary kernel moves past the limit are not moves.
    if (g.ternary)
        for (let j = 0; j < H; j++)
            for (let i = 0; i < n; i++) {
                const w = weightAt(state, g, l.kernel, j, i);
                if (w === 1)
                    deltas[2 * (j * n + i)] = Number.NaN;
                if (w === -1)
                    deltas[2 * (j * n + i) + 1] = Number.NaN;
            }
    return { loss, deltas };
}
//# sourceMappingURL=bit-flip-deltas.js.map