/**
 * SPSA / MeZO with shared randomness, one byte per projected gradient.
 *
 * contribute: for each of k perturbations j, seed_j = H(run, t, author, joinedAt, j) picks a
 *   minibatch and a Rademacher direction z_j (one Philox stream per tensor); the author measures
 *   g_j = (L(w + eps z_j) - L(w - eps z_j)) / (2 eps) and sends byte_j = quantize(g_j).
 * apply: all m bytes of the iteration (zero bytes counted in m, applied as no step) in ONE pass
 *   over the weights, by the canonical rule of spsa-update.ts (exact integer sums per mantissa
 *   class, then a fixed sequence of float32 operations), in WebAssembly SIMD where the kernels
 *   load (spsa-kernels.ts) and in the JavaScript reference otherwise: the same bytes either way.
 * perturbation "lowrank" (lowrank.ts): z_j is A B^T / sqrt(rank) per weight matrix; the update
 *   is the JavaScript rule of lowrank.ts on every backend.
 * An MLP measures its k pairs in batched passes (lowrank-forward.ts, fullrank-forward.ts; full
 *   rank not on the pure-JS cpu backend, batchesFullRank); other models materialise w +/- eps z_j
 *   one pair at a time.
 * fitness "sign": byte_j encodes only sign(L+ - L-) (+/-88, or 0 on a tie).
 * audit: recomputes an author's pairs and accepts the bytes honest machines could have sent.
 * clip (RunSpec): apply clamps every byte to the largest code within the run's bound before the
 *   steps are planned, so no author's byte steps further than the bound; the kernels never see it.
 */
import * as tf from "@tensorflow/tfjs-core";
import {
  clampGradientByte,
  gradientCodeBound,
  gradientPayloadProblem,
  quantizeGradient,
} from "../../protocol/gradient-byte.js";
import { type SpsaSpec } from "../../protocol/algorithm-spec.js";
import { algorithmOf, type RunSpec } from "../../protocol/run-spec.js";
import { backendCopiesValues, floatWeights, type ParamLayout, tensorOf, toTensors, type Weights } from "../params.js";
import type { Replica } from "../replica.js";
import { type Author, contributionSeed, contributionSeeds, type Seed } from "../rng/seeds.js";
import { lrAt, lrScale } from "../schedule.js";
import type { Task } from "../tasks/task.js";
import type { Algorithm, Contribution } from "./algorithm.js";
import { AUDIT_LOSS_TOLERANCE } from "./audit-tolerance.js";
import { lowRankKernels, type UpdateKernels, updateKernels } from "./update-kernels.js";
import { applyUpdateJs, perturbTensorJs, planPasses, type Step } from "./spsa-update.js";
import { applyLowRankJs, type MatrixUpdate, perturbLowRankJs } from "./lowrank.js";
import type { PairLossSource } from "./pair-batch.js";
import { batchesFullRank } from "./fullrank-forward.js";

/** One measured perturbation, kept for diagnostics and benchmarks. */
export interface Measurement {
  readonly lossPlus: number;
  readonly lossMinus: number;
  readonly gradient: number;
  readonly byte: number;
}

/** Where an Spsa measures and applies faster than its own tfjs passes and JS loops (null or absent: those). */
export interface SpsaEngines {
  /** Measures the k pairs in batched passes (its directions must be the run's); null: materialise each perturbation. */
  readonly pairs?: PairLossSource | null;
}

/** The byte of a sign fitness +1: magnitude 1 (protocol/gradient-byte.ts). */
const SIGN_BYTE = quantizeGradient(1);

export class Spsa implements Algorithm {
  readonly kind = "spsa";
  readonly maxPayloadBytes: number;
  private readonly cfg: SpsaSpec;
  /** The largest code a byte steps by: 127, or the code of the run's `clip`. */
  readonly maxCode: number;
  /** One tensor's perturbed values on backends that copy them (see perturbedTensors). */
  private scratch: Float32Array | null = null;
  private readonly pairs: PairLossSource | null;
  /** The selected kernels (WebAssembly by default, or WGSL), or null: the JS reference runs. */
  readonly kernels: UpdateKernels | null = updateKernels();
  /** The low-rank update's matrices in WebAssembly (bit-identical; null with the JS reference kernels). */
  private readonly lowRank: MatrixUpdate | null = lowRankKernels();
  /** The measurements of the last `contribute` call. */
  lastMeasurements: Measurement[] = [];

  get lastLoss(): number {
    const ms = this.lastMeasurements;
    if (ms.length === 0) return Number.NaN;
    return ms.reduce((s, m) => s + (m.lossPlus + m.lossMinus) / 2, 0) / ms.length;
  }

  /**
   * @param model what the canonical weights are the parameters of (any model kind: only its layout is used)
   * @param task where the minibatch and loss of each perturbation come from
   */
  constructor(
    private readonly runId: string,
    private readonly spec: RunSpec,
    private readonly model: { readonly layout: ParamLayout },
    private readonly task: Task,
    engines: SpsaEngines = {},
  ) {
    this.pairs = engines.pairs ?? null;
    this.cfg = algorithmOf(spec, "spsa");
    this.maxPayloadBytes = this.cfg.perturbations;
    this.maxCode = this.cfg.clip === undefined ? 127 : gradientCodeBound(this.cfg.clip);
  }

  /**
   * Backend tensors of w + sign * eps * z for the seed's direction, made one tensor at a time
   * (MeZO's memory point): the host holds one tensor's perturbed values at a time (the backend
   * copies them, or keeps them as its copy), never a perturbed copy of the whole model. Low-rank
   * directions are made whole (they serve MLP-sized models).
   */
  perturbedTensors(weights: Float32Array, seed: Seed, sign: 1 | -1): tf.Tensor[] {
    const eps = Math.fround(this.cfg.eps);
    const p = this.cfg.perturbation;
    const layout = this.model.layout;
    if (p?.kind === "lowrank") {
      const out = new Float32Array(layout.size);
      perturbLowRankJs(out, weights, layout, seed, eps, p.rank, sign);
      return toTensors(layout, out);
    }
    // Where the backend copies (tfjs-wasm), one scratch array serves every tensor: a fresh 0.5 GB
    // per perturbation of GPT-2 small cost 3 s of allocation and collection against 0.2 s of noise.
    const reuse = backendCopiesValues();
    if (reuse && this.scratch === null) this.scratch = new Float32Array(Math.max(...layout.tensors.map((t) => t.size)));
    return layout.tensors.map((t, ti) => {
      const values = reuse && this.scratch ? this.scratch.subarray(0, t.size) : new Float32Array(t.size);
      if (this.kernels) this.kernels.perturbTensor(values, 0, weights, t, ti, seed, eps, sign);
      else perturbTensorJs(values, weights, t, ti, seed, eps, sign, 0);
      return tensorOf(t, values);
    });
  }

  /** The byte a measured pair sends, by the run's fitness. */
  private measured(lossPlus: number, lossMinus: number): Measurement {
    const gradient = (lossPlus - lossMinus) / (2 * Math.fround(this.cfg.eps));
    const byte = quantizeGradient(this.cfg.fitness === "sign" ? Math.sign(lossPlus - lossMinus) : gradient);
    return { lossPlus, lossMinus, gradient, byte };
  }

  contribute(replica: Replica, author: Author, iteration = replica.iteration): Uint8Array {
    this.lastMeasurements = this.measure(replica, author, iteration);
    const payload = new Int8Array(this.cfg.perturbations);
    this.lastMeasurements.forEach((m, j) => (payload[j] = m.byte));
    return new Uint8Array(payload.buffer);
  }

  /**
   * Passes when every claimed byte is one an honest author could have sent from these losses
   * measured on another machine: the byte of some loss difference within AUDIT_LOSS_TOLERANCE
   * (relative to each loss, at least 1) of ours, widened by one code for the author's floating
   * log (bytes are ordered as signed integers, the order `quantizeGradient` keeps). A byte outside
   * is a contribution no honest measurement gives: sign flipped, inflated, from another batch or
   * direction, or random.
   */
  audit(replica: Replica, author: Author, claimed: Uint8Array): string | null {
    const ms = this.measure(replica, author, replica.iteration);
    if (claimed.length !== ms.length) return `payload of ${claimed.length} bytes, ${ms.length} recomputed`;
    for (let j = 0; j < ms.length; j++) {
      const b = (claimed[j] << 24) >> 24;
      const [lo, hi] = this.honestBytes(ms[j]);
      if (b < lo || b > hi) return `byte ${j} is ${b}; recomputed ${ms[j].byte}, honest ${lo}..${hi}`;
    }
    return null;
  }

  /** The bytes (signed, lowest and highest) an honest author may send for measurement `m`. */
  private honestBytes(m: Measurement): [number, number] {
    const slack = AUDIT_LOSS_TOLERANCE * (Math.max(1, Math.abs(m.lossPlus)) + Math.max(1, Math.abs(m.lossMinus)));
    const d = m.lossPlus - m.lossMinus;
    if (!Number.isFinite(d)) return [m.byte, m.byte];
    const byteOf = (diff: number) => this.measured(m.lossMinus + diff, m.lossMinus).byte;
    const [lo, hi] = [byteOf(d - slack), byteOf(d + slack)];
    if (this.cfg.fitness === "sign") return [lo, hi];
    return [Math.max(-127, lo - 1), Math.min(127, hi + 1)];
  }

  /**
   * The measured pairs of `author`'s contribution for `iteration` (its seeds: batches and
   * directions) on the replica's weights, which are those of `iteration` or, pipelined, older.
   */
  private measure(replica: Replica, author: Author, iteration: number): Measurement[] {
    const k = this.cfg.perturbations;
    const p = this.cfg.perturbation;
    const out: Measurement[] = [];
    if (this.pairs && (p?.kind === "lowrank" || batchesFullRank(tf.getBackend()))) {
      const seeds = contributionSeeds(this.runId, iteration, author, k);
      const rank = p?.kind === "lowrank" ? p.rank : 0;
      const { plus, minus } = this.pairs.losses(floatWeights(replica.weights), seeds, this.cfg.batchSize, this.cfg.eps, rank, replica.stateKey());
      for (let j = 0; j < k; j++) out.push(this.measured(plus[j], minus[j]));
    } else {
      for (let j = 0; j < k; j++) {
        const seed = contributionSeed(this.runId, iteration, author, j);
        const batch = this.task.batch(seed, this.cfg.batchSize);
        const w = floatWeights(replica.weights);
        const wp = this.perturbedTensors(w, seed, 1);
        const lossPlus = batch.loss(wp);
        tf.dispose(wp);
        const wm = this.perturbedTensors(w, seed, -1);
        const lossMinus = batch.loss(wm);
        tf.dispose(wm);
        batch.dispose();
        out.push(this.measured(lossPlus, lossMinus));
      }
    }
    return out;
  }

  payloadProblem(payload: Uint8Array): string | null {
    const problem = gradientPayloadProblem(payload, this.maxPayloadBytes);
    if (problem || this.cfg.fitness !== "sign") return problem;
    // A sign byte is +/-1 or 0: anything else would step further than an honest author can.
    for (const b of payload) if (b !== 0 && b !== SIGN_BYTE && b !== 256 - SIGN_BYTE) return `byte ${(b << 24) >> 24} is not a sign (-88, 0 or 88)`;
    return null;
  }

  apply(state: Weights, iteration: number, contributions: readonly Contribution[]): void {
    const weights = floatWeights(state);
    let m = 0;
    for (const c of contributions) {
      const problem = this.payloadProblem(c.payload);
      if (problem) throw new RangeError(`contribution of ${c.author.id}: ${problem}`);
      m += c.payload.length;
    }
    const scale = lrScale(this.cfg.lrScaling, m, this.cfg.perturbations);
    const lr = Math.fround(lrAt(this.cfg.schedule, iteration, this.spec.iterations) * scale);
    // Within a pass the bytes' order does not change the result (integer sums); zero bytes are
    // no step. More than MAX_STEPS non-zero bytes take several passes, in canonical order.
    // The run's clip acts here, on the codes, the one place bytes become steps.
    const steps: Step[] = [];
    for (const c of contributions) {
      const seeds = contributionSeeds(this.runId, iteration, c.author, c.payload.length);
      for (let j = 0; j < c.payload.length; j++) {
        const byte = clampGradientByte((c.payload[j] << 24) >> 24, this.maxCode);
        if (byte !== 0) steps.push({ byte, seed: seeds[j] });
      }
    }
    if (m === 0) return;
    const p = this.cfg.perturbation;
    for (const plans of planPasses(steps, m, lr)) {
      if (p?.kind === "lowrank") applyLowRankJs(weights, this.model.layout, plans, p.rank, this.lowRank);
      else if (this.kernels) this.kernels.apply(weights, this.model.layout, plans);
      else applyUpdateJs(weights, this.model.layout, plans);
    }
  }
}
