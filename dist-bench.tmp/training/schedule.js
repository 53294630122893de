/** lr at iteration t (0-based) of a run of `total` iterations: linear warmup, then linear decay. */
export function lrAt(s, t, total) {
    const f = Math.fround;
    const lr = f(s.lr);
    if (t < s.warmup)
        return f(f(lr * f(t + 1)) / f(s.warmup));
    const span = Math.max(1, total - s.warmup);
    const progress = f(Math.min(1, f(t - s.warmup) / f(span)));
    const factor = f(f(1) - f(f(f(1) - f(s.minFactor)) * progress));
    return f(lr * factor);
}
/**
 * The factor on lr_t for a commit of m bytes when each node sends `perturbations` (RunSpec
 * `lrScaling`): 1, sqrt(m / perturbations) or m / perturbations, at most `cap`; float32, and
 * sqrt is correctly rounded (IEEE), so every replica gets the same value.
 */
export function lrScale(s, m, perturbations) {
    const f = Math.fround;
    if (s === undefined || s.rule === "none")
        return 1;
    const rho = f(m / perturbations);
    const g = s.rule === "sqrt" ? f(Math.sqrt(rho)) : rho;
    return s.cap === undefined ? g : Math.min(g, f(s.cap));
}
//# sourceMappingURL=schedule.js.map