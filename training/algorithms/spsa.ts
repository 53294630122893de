/**
 * SPSA / MeZO with shared randomness, one byte per projected gradient.
 *
 * contribute: for each of k perturbations j, seed_j = H(run, t, author, joinedAt, j) picks a
 *   minibatch and a Rademacher direction z_j (one Philox stream per tensor); the author measures
 *   g_j = (L(w + eps z_j) - L(w - eps z_j)) / (2 eps) and sends byte_j = quantize(g_j).
 * apply: with m = the number of bytes applied this iteration (all contributions together), the
 *   non-zero bytes in timestamp order (contribution, then j) give steps
 *     c_q = fround(fround(-lr_t * dequant(byte_q)) / m)
 *   taken in consecutive groups of GROUP = 4. For each group and each weight (all tensors):
 *     delta = the float32 sum, in order, of (z_q ? c_q : -c_q) over the group;  w = fround(w + delta)
 *   Zero bytes are no step at all. Grouping is part of the canonical rule (it sums small steps
 *   before they meet the weight, and it is 1.5x faster than one pass per byte).
 */
import * as tf from "@tensorflow/tfjs";
import { dequantizeGradient, gradientPayloadProblem, quantizeGradient } from "../../protocol/gradient-byte.js";
import { algorithmOf, type RunSpec, type SpsaSpec } from "../../protocol/run-spec.js";
import { type Split, sampleBatch } from "../data/dataset.js";
import { batchTensors, lossOn } from "../evaluate.js";
import type { Model } from "../models/model.js";
import { floatWeights, toTensors, type Weights } from "../params.js";
import type { Replica } from "../replica.js";
import { rademacherBits } from "../rng/noise.js";
import { type Author, contributionSeed, Purpose, type Seed, streamOf } from "../rng/seeds.js";
import { lrAt } from "../schedule.js";
import type { Algorithm, Contribution } from "./algorithm.js";

/** One measured perturbation, kept for diagnostics and benchmarks. */
export interface Measurement {
  readonly lossPlus: number;
  readonly lossMinus: number;
  readonly gradient: number;
  readonly byte: number;
}

/** Steps applied per pass over the weights (see applyGroup). Part of the canonical update. */
const GROUP = 4;

export class Spsa implements Algorithm {
  readonly kind = "spsa";
  readonly maxPayloadBytes: number;
  private readonly cfg: SpsaSpec;
  private readonly bits: Uint32Array;
  private readonly plus: Float32Array;
  private readonly minus: Float32Array;
  /** [-eps, +eps] indexed by a noise bit. */
  private readonly pm = new Float64Array(2);
  /** Deltas of one apply group, indexed by the group's noise bits. */
  private readonly table = new Float64Array(1 << GROUP);
  /** Noise bits of each step of an apply group, for one tensor. */
  private readonly groupBits: Uint32Array[];
  /** The measurements of the last `contribute` call. */
  lastMeasurements: Measurement[] = [];

  get lastLoss(): number {
    const ms = this.lastMeasurements;
    if (ms.length === 0) return Number.NaN;
    return ms.reduce((s, m) => s + (m.lossPlus + m.lossMinus) / 2, 0) / ms.length;
  }

  constructor(
    private readonly runId: string,
    private readonly spec: RunSpec,
    private readonly model: Model,
    private readonly train: Split,
  ) {
    this.cfg = algorithmOf(spec, "spsa");
    this.maxPayloadBytes = this.cfg.perturbations;
    const largest = Math.max(...model.layout.tensors.map((t) => t.size));
    this.bits = new Uint32Array(Math.ceil(largest / 32));
    this.plus = new Float32Array(model.layout.size);
    this.minus = new Float32Array(model.layout.size);
    this.groupBits = Array.from({ length: GROUP }, () => new Uint32Array(this.bits.length));
  }

  /**
   * Writes w + eps z and w - eps z for the seed's direction into `plus` and `minus`.
   * Exposed for the noise-budget benchmark.
   */
  perturb(weights: Float32Array, seed: Seed): void {
    const { plus, minus, bits, pm } = this;
    const eps = Math.fround(this.cfg.eps);
    pm[0] = -eps;
    pm[1] = eps;
    for (const [ti, t] of this.model.layout.tensors.entries()) {
      rademacherBits(streamOf(seed, Purpose.Noise, ti), t.size, bits);
      // Branch-free (a sign taken from random bits defeats branch prediction), one word of
      // signs held in a register for its 32 weights.
      const words = Math.ceil(t.size / 32);
      for (let w = 0; w < words; w++) {
        const word = bits[w];
        const base = t.offset + 32 * w;
        const n = Math.min(32, t.size - 32 * w);
        for (let j = 0; j < n; j++) {
          const d = pm[(word >>> j) & 1];
          const v = weights[base + j];
          plus[base + j] = v + d;
          minus[base + j] = v - d;
        }
      }
    }
  }

  contribute(replica: Replica, author: Author): Uint8Array {
    const payload = new Int8Array(this.cfg.perturbations);
    const shape = this.model.spec.inputShape;
    const features = shape[0] * shape[1] * shape[2];
    const eps = Math.fround(this.cfg.eps);
    this.lastMeasurements = [];
    for (let j = 0; j < payload.length; j++) {
      const seed = contributionSeed(this.runId, replica.iteration, author, j);
      const batch = sampleBatch(this.train, features, seed, this.cfg.batchSize);
      this.perturb(floatWeights(replica.weights), seed);
      const { x, y } = batchTensors(batch, shape);
      const wp = toTensors(this.model.layout, this.plus);
      const lossPlus = lossOn(this.model, wp, x, y);
      tf.dispose(wp);
      const wm = toTensors(this.model.layout, this.minus);
      const lossMinus = lossOn(this.model, wm, x, y);
      tf.dispose([...wm, x, y]);
      const gradient = (lossPlus - lossMinus) / (2 * eps);
      payload[j] = quantizeGradient(gradient);
      this.lastMeasurements.push({ lossPlus, lossMinus, gradient, byte: payload[j] });
    }
    return new Uint8Array(payload.buffer);
  }

  payloadProblem(payload: Uint8Array): string | null {
    return gradientPayloadProblem(payload, this.maxPayloadBytes);
  }

  apply(state: Weights, iteration: number, contributions: readonly Contribution[]): void {
    const weights = floatWeights(state);
    const f = Math.fround;
    const lr = lrAt(this.cfg.schedule, iteration, this.spec.iterations);
    let m = 0;
    for (const c of contributions) {
      const problem = this.payloadProblem(c.payload);
      if (problem) throw new RangeError(`contribution of ${c.author.id}: ${problem}`);
      m += c.payload.length;
    }
    // The non-zero steps of the iteration in canonical order (timestamp order, then byte index).
    const steps: { coef: number; seed: Seed }[] = [];
    for (const c of contributions) {
      for (let j = 0; j < c.payload.length; j++) {
        const byte = (c.payload[j] << 24) >> 24;
        const coef = f(f(-lr * dequantizeGradient(byte)) / m);
        if (coef !== 0)
          steps.push({ coef, seed: contributionSeed(this.runId, iteration, c.author, j) });
      }
    }
    for (let g = 0; g < steps.length; g += GROUP)
      this.applyGroup(weights, steps.slice(g, g + GROUP));
  }

  /**
   * Applies up to GROUP steps in one pass: per element, delta = the float32 sum (in order) of
   * +/-coef_q over the group's steps q, then w = fround(w + delta). The 2^GROUP possible deltas
   * are tabulated once with exactly that rounding, so the pass is a table lookup and one add.
   * A missing step (short last group) contributes +/-0, which leaves every sum unchanged.
   */
  private applyGroup(weights: Float32Array, group: readonly { coef: number; seed: Seed }[]): void {
    const f = Math.fround;
    const table = this.table;
    for (let p = 0; p < table.length; p++) {
      let acc = 0;
      for (let q = 0; q < GROUP; q++) {
        const c = q < group.length ? group[q].coef : 0;
        const term = (p >>> q) & 1 ? c : -c;
        acc = q === 0 ? term : f(acc + term);
      }
      table[p] = acc;
    }
    const [b0, b1, b2, b3] = this.groupBits;
    for (const [ti, t] of this.model.layout.tensors.entries()) {
      for (let q = 0; q < GROUP; q++) {
        if (q < group.length)
          rademacherBits(streamOf(group[q].seed, Purpose.Noise, ti), t.size, this.groupBits[q]);
        else this.groupBits[q].fill(0);
      }
      // 32 weights per word: the four words stay in registers while their bits are used.
      const off = t.offset;
      const words = Math.ceil(t.size / 32);
      for (let w = 0; w < words; w++) {
        const a = b0[w];
        const b = b1[w];
        const c = b2[w];
        const d = b3[w];
        const base = off + 32 * w;
        const n = Math.min(32, t.size - 32 * w);
        for (let j = 0; j < n; j++) {
          const idx = ((a >>> j) & 1) | (((b >>> j) & 1) << 1) | (((c >>> j) & 1) << 2) | (((d >>> j) & 1) << 3);
          weights[base + j] = f(weights[base + j] + table[idx]);
        }
      }
    }
  }
}
