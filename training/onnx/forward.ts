/**
 * A transformer's next-token losses on onnxruntime's CPU provider: the quantities
 * training/next-token-loss.ts computes on tfjs (the same predicted rows, the same per-sequence
 * split and mean), from the canonical Float32Array in layout order.
 */
import { OPT_POSITION_OFFSET, type TransformerConfig } from "../hf/config.js";
import { attentionBiasValues, buildTransformer, checkedPositions, ropeValues, type TokenBatch } from "../models/transformer.js";
import { meanOfLosses, perSequence, predictedRows } from "../next-token-loss.js";
import type { ParamLayout } from "../params.js";
import { INPUT, OUTPUT, OnnxGraphError, type PerturbationInput, positionTable, transformerGraph, type WeightPlacement } from "./graph.js";
import type { LowRankPerturbation } from "../algorithms/lowrank.js";
import { perturbationValues } from "./perturbations.js";
import { encodeModel } from "./proto.js";
import {
  floatTensor,
  int64Tensor,
  type InferenceSession,
  OnnxSessionError,
  openSession,
  type SessionOptions,
  type Tensor,
} from "./session.js";

export interface OnnxTransformerOptions extends SessionOptions {
  /**
   * "inputs" (default): the weights are fed with every call as tensors over the canonical array
   * (no copy: onnxruntime-node reads the array in place), so a new set of weights costs nothing.
   * "initializers": they are constants inside the model, so changing them means a new session.
   */
  readonly placement?: WeightPlacement;
  /** Also compute the logits of the predicted rows (`logits()`); tests only. */
  readonly logits?: boolean;
  /** Build the perturbed graph (`perturbedLosses`) at this low-rank rank instead of the plain one. */
  readonly perturbation?: { readonly rank: number };
}

/** Time and size of building a session, for the benchmark. */
export interface BuildStats {
  readonly graphMs: number;
  readonly sessionMs: number;
  readonly modelBytes: number;
}

/**
 * One transformer on one onnxruntime session: plain (`nextTokenLosses`, `meanNextTokenLoss`,
 * `logits`) or, built with a perturbation rank, perturbed (`perturbedLosses`). Calls are
 * asynchronous (onnxruntime-node's `run` returns a promise).
 */
export class OnnxTransformer {
  private weightFeeds: Record<string, Tensor> = {};
  /** The canonical weights of the last setWeights (vectors' perturbed values are made from them). */
  private weights: Float32Array = new Float32Array(0);

  private constructor(
    readonly config: TransformerConfig,
    readonly layout: ParamLayout,
    private readonly session: InferenceSession,
    readonly placement: WeightPlacement,
    readonly build: BuildStats,
    private readonly perturbation: { readonly rank: number; readonly inputs: readonly PerturbationInput[] } | null,
  ) {}

  /** Builds the graph of `config` and its session; `weights` is the canonical array (kept by reference in "inputs" placement). */
  static async create(config: TransformerConfig, weights: Float32Array, options: OnnxTransformerOptions): Promise<OnnxTransformer> {
    const layout = buildTransformer(config).layout;
    const placement = options.placement ?? "inputs";
    const t0 = performance.now();
    const perturbation = options.perturbation ?? null;
    const graph = transformerGraph(config, layout, weights, { placement, logits: options.logits ?? false, perturbation });
    const model = encodeModel(graph);
    const t1 = performance.now();
    const session = await openSession(model, options);
    const build = { graphMs: t1 - t0, sessionMs: performance.now() - t1, modelBytes: model.byteLength };
    const pert = perturbation === null ? null : { rank: perturbation.rank, inputs: graph.perturbationInputs };
    const m = new OnnxTransformer(config, layout, session, placement, build, pert);
    m.weights = weights;
    if (placement === "inputs") m.setWeights(weights);
    return m;
  }

  /** The weights later calls use ("inputs" placement); the array is read in place, not copied, so keep it unchanged during a call. */
  setWeights(weights: Float32Array): void {
    if (this.placement !== "inputs") {
      throw new OnnxGraphError("ONNX_WEIGHTS", "weights placed as initializers are fixed: build a new OnnxTransformer", {
        placement: this.placement,
      });
    }
    if (weights.length !== this.layout.size) {
      throw new OnnxGraphError("ONNX_WEIGHTS", `${weights.length} weights, the layout has ${this.layout.size}`, {
        expected: this.layout.size,
        got: weights.length,
      });
    }
    this.weights = weights;
    this.weightFeeds = Object.fromEntries(
      this.layout.tensors.map((t) => [t.name, floatTensor(weights.subarray(t.offset, t.offset + t.size), t.shape)]),
    );
  }

  /** Per-sequence next-token losses: entry t of sequence b is -log p(token t+1 | tokens <= t), real tokens only. */
  async nextTokenLosses(batch: TokenBatch): Promise<Float32Array[]> {
    this.requirePlain("nextTokenLosses");
    const { counts, out } = await this.run(batch, [OUTPUT.losses]);
    return perSequence(out[OUTPUT.losses], counts);
  }

  /**
   * The mean next-token loss of each perturbation (a model built with `perturbation`): the batch
   * is perturbations.length groups of equal size, group p (sequences p*S .. p*S+S-1) measured at
   * the weights moved by perturbation p, all in one session call. Each value is what
   * meanNextTokenLoss gives for that group alone at the materialised perturbed weights
   * (lowrank.ts perturbLowRankJs), up to float rounding.
   */
  async perturbedLosses(batch: TokenBatch, perturbations: readonly LowRankPerturbation[], eps: number): Promise<number[]> {
    const pert = this.perturbation;
    if (pert === null) {
      throw new OnnxGraphError("ONNX_UNSUPPORTED", "perturbedLosses needs a model built with a perturbation rank", {});
    }
    const P = perturbations.length;
    if (P === 0 || batch.size % P !== 0) {
      throw new RangeError(`${batch.size} sequences do not split into ${P} equal perturbation groups`);
    }
    const S = batch.size / P;
    const T = batch.length;
    const all = predictedRows(batch);
    // Each group's rows, padded to the largest group's count with its last row (its losses dropped).
    const groups = Array.from({ length: P }, () => ({ rows: [] as number[], targets: [] as number[] }));
    all.rows.forEach((row, i) => {
      const grp = groups[Math.floor(row / (S * T))];
      grp.rows.push(row);
      grp.targets.push(all.targets[i]);
    });
    const R = Math.max(1, ...groups.map((grp) => grp.rows.length));
    const rows: number[] = [];
    const targets: number[] = [];
    groups.forEach((grp, p) => {
      for (let i = 0; i < R; i++) {
        const j = Math.min(i, grp.rows.length - 1);
        rows.push(j < 0 ? p * S * T : grp.rows[j]);
        targets.push(j < 0 ? 0 : grp.targets[j]);
      }
    });
    const positions = checkedPositions(this.config, batch);
    const V = this.config.vocabSize;
    const c = this.config;
    const extra: Record<string, Tensor> = {
      [INPUT.groupTokens]: int64Tensor([S * T], [1]),
      [INPUT.groupRows]: int64Tensor([R], [1]),
      [INPUT.idsGrouped]: int64Tensor(
        Array.from(batch.ids, (id, i) => Math.floor(i / (S * T)) * V + id),
        [batch.ids.length],
      ),
    };
    if (c.architecture !== "llama") {
      const table = this.layout.tensors.find((t) => t.name === positionTable(c)) as { shape: readonly number[] };
      const offset = c.architecture === "opt" ? OPT_POSITION_OFFSET : 0;
      extra[INPUT.positionsGrouped] = int64Tensor(
        Array.from(positions, (pos, i) => Math.floor(i / (S * T)) * table.shape[0] + pos + offset),
        [positions.length],
      );
    }
    for (const [name, v] of perturbationValues(this.layout, pert.inputs, this.weights, perturbations, eps, pert.rank)) {
      extra[name] = floatTensor(v.values, v.dims);
    }
    const { out } = await this.run(batch, [OUTPUT.losses], { rows, targets, counts: [] }, extra);
    const losses = out[OUTPUT.losses];
    return groups.map((grp, p) => {
      let sum = 0;
      for (let i = 0; i < grp.rows.length; i++) sum += losses[p * R + i];
      return grp.rows.length === 0 ? Number.NaN : sum / grp.rows.length;
    });
  }

  private requirePlain(what: string): void {
    if (this.perturbation !== null) {
      throw new OnnxGraphError("ONNX_UNSUPPORTED", `${what} needs a model built without a perturbation rank`, {
        rank: this.perturbation.rank,
      });
    }
  }

  /** Mean next-token loss over every predicted position, and how many there were. */
  async meanNextTokenLoss(batch: TokenBatch): Promise<{ loss: number; tokens: number }> {
    return meanOfLosses(await this.nextTokenLosses(batch));
  }

  /** Logits [size * length, vocab] at every position (a model built with `logits: true`). */
  async logits(batch: TokenBatch): Promise<Float32Array> {
    this.requirePlain("logits");
    // Every position is a row (padding included, as the tfjs forward's logits are); attention still masks padding.
    const { out } = await this.run(batch, [OUTPUT.logits], everyRow(batch));
    return out[OUTPUT.logits];
  }

  async release(): Promise<void> {
    await this.session.release();
  }

  private async run(
    batch: TokenBatch,
    outputs: readonly string[],
    picked = predictedRows(batch),
    extra: Record<string, Tensor> = {},
  ): Promise<{ counts: number[]; out: Record<string, Float32Array> }> {
    const c = this.config;
    const B = batch.size;
    const T = batch.length;
    const positions = checkedPositions(c, batch);
    const { rows, targets, counts } = picked;
    if (rows.length === 0) return { counts, out: Object.fromEntries(outputs.map((o) => [o, new Float32Array(0)])) };
    const feeds: Record<string, Tensor> = {
      ...this.weightFeeds,
      [INPUT.ids]: int64Tensor(batch.ids, [B * T]),
      [INPUT.bias]: floatTensor(attentionBiasValues(batch), [B, 1, T, T]),
      [INPUT.qShape]: int64Tensor([B, T, c.heads, c.headDim], [4]),
      [INPUT.rows]: int64Tensor(rows, [rows.length]),
      [INPUT.targets]: int64Tensor(targets, [targets.length, 1]),
      ...extra,
    };
    if (c.architecture !== "llama") {
      const offset = c.architecture === "opt" ? OPT_POSITION_OFFSET : 0;
      feeds[INPUT.positions] = int64Tensor(Array.from(positions, (p) => p + offset), [B * T]);
    } else {
      const [cos, sin] = ropeValues(positions, c.headDim, c.ropeTheta);
      feeds[INPUT.cos] = floatTensor(cos, [B, 1, T, c.headDim]);
      feeds[INPUT.sin] = floatTensor(sin, [B, 1, T, c.headDim]);
    }
    if (c.kvHeads !== c.heads) {
      feeds[INPUT.kvShape] = int64Tensor([B, T, c.kvHeads, c.headDim], [4]);
      feeds[INPUT.repeatShape] = int64Tensor([B, c.kvHeads, c.heads / c.kvHeads, T, c.headDim], [5]);
      feeds[INPUT.headsShape] = int64Tensor([B, c.heads, T, c.headDim], [4]);
    }
    let result: Record<string, Tensor>;
    try {
      result = await this.session.run(feeds, outputs);
    } catch (err) {
      throw new OnnxSessionError("ONNX_RUN_FAILED", `onnxruntime run failed: ${(err as Error).message}`, {
        size: B,
        length: T,
        rows: rows.length,
      });
    }
    return { counts, out: Object.fromEntries(outputs.map((o) => [o, result[o].data as Float32Array])) };
  }
}

/** Every position of a batch as a row (targets unused: 0). */
function everyRow(batch: TokenBatch): { rows: number[]; targets: number[]; counts: number[] } {
  const rows = Array.from({ length: batch.size * batch.length }, (_, i) => i);
  return { rows, targets: rows.map(() => 0), counts: new Array<number>(batch.size).fill(batch.length) };
}
