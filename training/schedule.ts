/**
 * Learning-rate schedule as a pure function of the iteration. Only +, -, *, / and fround, so the
 * value is bit-identical on every machine (no Math.cos: engines may round transcendentals
 * differently, and the rate enters the canonical update).
 */
import type { LrSchedule } from "../protocol/run-spec.js";

/** lr at iteration t (0-based) of a run of `total` iterations: linear warmup, then linear decay. */
export function lrAt(s: LrSchedule, t: number, total: number): number {
  const f = Math.fround;
  const lr = f(s.lr);
  if (t < s.warmup) return f(f(lr * f(t + 1)) / f(s.warmup));
  const span = Math.max(1, total - s.warmup);
  const progress = f(Math.min(1, f(t - s.warmup) / f(span)));
  const factor = f(f(1) - f(f(f(1) - f(s.minFactor)) * progress));
  return f(lr * factor);
}
