/**
 * SPSA / MeZO with shared randomness, one byte per projected gradient.
 *
 * contribute: for each of k perturbations j, seed_j = H(run, t, author, joinedAt, j) picks a
 *   minibatch and a Rademacher direction z_j (one Philox stream per tensor); the author measures
 *   g_j = (L(w + eps z_j) - L(w - eps z_j)) / (2 eps) and sends byte_j = quantize(g_j).
 * apply: with m = the number of bytes applied this iteration (all contributions together),
 *   for each contribution in timestamp order, each j, each tensor, each element:
 *     c_j = fround(fround(-lr_t * dequant(byte_j)) / m);  w = fround(w + (z ? c_j : -c_j))
 *   Bytes that decode to 0 are skipped (adding 0 changes no float32 that is not -0, and no
 *   weight is ever -0: x + (-x) rounds to +0).
 */
import * as tf from "@tensorflow/tfjs";
import { dequantizeGradient, quantizeGradient } from "../../protocol/gradient-byte.js";
import type { RunSpec, SpsaSpec } from "../../protocol/run-spec.js";
import { type Split, sampleBatch } from "../data/dataset.js";
import { batchTensors, lossOn } from "../evaluate.js";
import type { Model } from "../models/model.js";
import { toTensors } from "../params.js";
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

export class Spsa implements Algorithm {
  readonly kind = "spsa";
  readonly payloadSize: number;
  private readonly cfg: SpsaSpec;
  private readonly bits: Uint32Array;
  private readonly plus: Float32Array;
  private readonly minus: Float32Array;
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
    this.cfg = spec.algorithm;
    this.payloadSize = this.cfg.perturbations;
    const largest = Math.max(...model.layout.tensors.map((t) => t.size));
    this.bits = new Uint32Array(Math.ceil(largest / 32));
    this.plus = new Float32Array(model.layout.size);
    this.minus = new Float32Array(model.layout.size);
  }

  /**
   * Writes w + eps z and w - eps z for the seed's direction into `plus` and `minus`.
   * Exposed for the noise-budget benchmark.
   */
  perturb(weights: Float32Array, seed: Seed): void {
    const eps = Math.fround(this.cfg.eps);
    const { plus, minus, bits } = this;
    this.model.layout.tensors.forEach((t, ti) => {
      rademacherBits(streamOf(seed, Purpose.Noise, ti), t.size, bits);
      const off = t.offset;
      for (let i = 0; i < t.size; i++) {
        const w = weights[off + i];
        const d = (bits[i >>> 5] >>> (i & 31)) & 1 ? eps : -eps;
        plus[off + i] = w + d;
        minus[off + i] = w - d;
      }
    });
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
      this.perturb(replica.weights, seed);
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
    if (payload.length !== this.payloadSize) {
      return `payload has ${payload.length} bytes, the run needs ${this.payloadSize}`;
    }
    for (const b of payload) if (b === 0x80) return "payload holds the invalid byte -128";
    return null;
  }

  apply(weights: Float32Array, iteration: number, contributions: readonly Contribution[]): void {
    const f = Math.fround;
    const lr = lrAt(this.cfg.schedule, iteration, this.spec.iterations);
    let m = 0;
    for (const c of contributions) {
      const problem = this.payloadProblem(c.payload);
      if (problem) throw new RangeError(`contribution of ${c.author.id}: ${problem}`);
      m += c.payload.length;
    }
    const bits = this.bits;
    for (const c of contributions) {
      const bytes = new Int8Array(c.payload.buffer, c.payload.byteOffset, c.payload.length);
      for (let j = 0; j < bytes.length; j++) {
        const coef = f(f(-lr * dequantizeGradient(bytes[j])) / m);
        if (coef === 0) continue;
        const neg = -coef;
        const seed = contributionSeed(this.runId, iteration, c.author, j);
        this.model.layout.tensors.forEach((t, ti) => {
          rademacherBits(streamOf(seed, Purpose.Noise, ti), t.size, bits);
          const off = t.offset;
          for (let i = 0; i < t.size; i++) {
            weights[off + i] = f(
              weights[off + i] + ((bits[i >>> 5] >>> (i & 31)) & 1 ? coef : neg),
            );
          }
        });
      }
    }
  }
}
