/**
 * The forward passes of the forward-only algorithms for a GPT-2, OPT or Llama-style language model on a
 * WebGPU device, written for the GPU rather than through tfjs (issue 14): the weights stay on the
 * device, every perturbation of an iteration runs in ONE batched pass (low-rank directions as
 * x W + s (x A) B^T, never a perturbed matrix), and a pass is about 10 dispatches per layer
 * recorded into one command buffer with pipelines and bind groups made once per batch shape. So
 * the Node thread enqueues a pass in a few milliseconds whatever the model's size, where
 * tfjs-webgpu spends ~150 ms on 576 small dispatches.
 *
 * The directions are exactly the ones lowrank.ts applies: the same Philox sign bits, drawn on the
 * device from the seeds (16 bytes per perturbation go up); the losses differ from tfjs's in the
 * last bits (summation order), which only chooses an author's byte.
 */
/// <reference types="@webgpu/types" />
import { matrixShape } from "../algorithms/lowrank.js";
import type { TransformerConfig } from "../hf/config.js";
import type { TokenBatch } from "../models/transformer.js";
import type { ParamLayout } from "../params.js";
import { Purpose, streamOf } from "../rng/seeds.js";
import { type MatmulOptions, matmulWgsl, type Tile, TILES } from "./lm-matmul-wgsl.js";
import { attentionWgsl, EMBED_WGSL, ROPE_WGSL, LAYERNORM_WGSL, LOSS_WGSL, NLL_WGSL, PROJECT_WGSL, SIGNS_WGSL, VECTORS_WGSL } from "./lm-wgsl.js";
import { timeDispatch } from "./device-timer.js";
import { type BlockOps, encodeBlock, type LinearOptions } from "./lm-blocks.js";
import type { Plan, Slot, Step } from "./lm-plan.js";
import type { LowRankPerturbation } from "../algorithms/lowrank.js";
import { namesOf, passInputs, ropeTable } from "./lm-inputs.js";

import { GpuError, type WebGpu } from "./webgpu.js";

export interface LmLosses {
  /** Mean next-token loss of each perturbation's sequences. */
  readonly loss: Float32Array;
  /** Per token row (size * length): its next-token loss, 0 where it predicts nothing. */
  readonly nll?: Float32Array;
}

const STORAGE = 0x80; // GPUBufferUsage.STORAGE
const COPY_DST = 0x08;
const COPY_SRC = 0x04;
const UNIFORM = 0x40;
const MAP_READ = 0x01;
const MAX_RANK = 16;
const MAX_HEAD_DIM = 128;

const rowGrid = (rows: number): [number, number] => [Math.min(rows, 65535), Math.ceil(rows / 65535)];

export class GpuLmForward {
  private readonly device: GPUDevice;
  private readonly matrices: Slot[] = [];
  private readonly vectors = new Map<number, Slot>();
  private readonly weights = new Map<number, GPUBuffer>();
  private readonly vectorBase: GPUBuffer;
  /** Floats of the vector block (each vector's slot starts on a multiple of 32). */
  private readonly vectorFloats: number;
  /** Sign words of one perturbation: each matrix's A then B bits (word-aligned), then the vector block. */
  private readonly wordsPerPert: number;
  private readonly matrixWords: number[] = [];
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  /** The streams of one perturbation's sign words: (first word, Philox c2) in word order. */
  private readonly segments: GPUBuffer;
  private readonly segmentCount: number;
  private plan: Plan | undefined;
  private inFlight = false;
  /** The tile of each product kind; tuned per device on the first pass unless fixed. */
  private tiles = new Map<string, Tile>();
  private readonly index: Map<string, number>;

  constructor(
    readonly gpu: WebGpu,
    readonly config: TransformerConfig,
    readonly layout: ParamLayout,
    readonly rank: number,
    private readonly tileChoice: Tile | "tune" = gpu.software ? TILES[0] : "tune",
  ) {
    const c = config;
    const runs = (c.architecture === "gpt2" && c.activation === "gelu_new" && c.tiedHead) || (c.architecture === "opt" && c.activation === "relu" && c.tiedHead) || (c.architecture === "llama" && c.activation === "silu");
    if (!runs)
      throw new GpuError("GPU_OUT_OF_RANGE", `the WebGPU language-model pass runs GPT-2 (gelu_new), OPT (relu) with tied heads and Llama (silu), not ${c.architecture}/${c.activation}${c.tiedHead ? "" : " with its own head"}`, { architecture: c.architecture });
    if (c.headDim > MAX_HEAD_DIM || c.headDim % 4 !== 0) throw new GpuError("GPU_OUT_OF_RANGE", `head width ${c.headDim} is not a multiple of 4 up to ${MAX_HEAD_DIM}`, { headDim: c.headDim });
    if (!(Number.isInteger(rank) && rank >= 1 && rank <= MAX_RANK)) throw new GpuError("GPU_OUT_OF_RANGE", `low-rank rank must be 1..${MAX_RANK}: ${rank}`, { rank });
    this.device = gpu.device;
    this.index = new Map(layout.tensors.map((t, i) => [t.name, i]));
    let vec = 0;
    let words = 0;
    for (const [ti, t] of layout.tensors.entries()) {
      const m = matrixShape(t);
      if (m) {
        this.matrices.push({ ti, at: this.matrices.length, rows: m.rows, cols: m.cols });
        this.matrixWords.push(words);
        words += Math.ceil(((m.rows + m.cols) * rank) / 32);
      } else {
        this.vectors.set(ti, { ti, at: vec, rows: 1, cols: t.size });
        vec += Math.ceil(t.size / 32) * 32;
      }
    }
    this.matrixWords.push(words); // the vector block
    this.vectorFloats = vec;
    this.wordsPerPert = words + vec / 32;
    const limit = this.device.limits.maxStorageBufferBindingSize;
    for (const s of this.matrices) {
      const bytes = s.rows * s.cols * 4;
      if (bytes > limit) throw new GpuError("GPU_OUT_OF_RANGE", `${layout.tensors[s.ti].name} (${bytes} bytes) is over the adapter's ${limit}-byte binding limit`, { tensor: layout.tensors[s.ti].name });
      this.weights.set(s.ti, this.device.createBuffer({ size: bytes, usage: STORAGE | COPY_DST }));
    }
    this.vectorBase = this.device.createBuffer({ size: Math.max(16, vec * 4), usage: STORAGE | COPY_DST });
    const segs: number[] = [];
    for (const s of this.matrices) segs.push(this.matrixWords[s.at], streamOf({ k0: 0, k1: 0, k2: 0 }, Purpose.LowRank, s.ti).c2);
    for (const [ti, s] of this.vectors) segs.push(words + s.at / 32, streamOf({ k0: 0, k1: 0, k2: 0 }, Purpose.Noise, ti).c2);
    this.segmentCount = segs.length / 2;
    this.segments = this.device.createBuffer({ size: Math.max(16, segs.length * 4), usage: STORAGE | COPY_DST });
    this.device.queue.writeBuffer(this.segments, 0, Uint32Array.from(segs));
  }

  /** Uploads the canonical weights (layout order). */
  upload(shared: Float32Array): void {
    // Dawn's writeBuffer crashes the process on a view of a SharedArrayBuffer: copy those first.
    const weights = shared.buffer instanceof SharedArrayBuffer ? shared.slice() : shared;
    if (weights.length !== this.layout.size) throw new GpuError("GPU_OUT_OF_RANGE", `${weights.length} weights, the layout has ${this.layout.size}`, {});
    const q = this.device.queue;
    for (const s of this.matrices) {
      const t = this.layout.tensors[s.ti];
      q.writeBuffer(this.weights.get(s.ti) as GPUBuffer, 0, weights, t.offset, t.size);
    }
    const block = new Float32Array(this.vectorFloats);
    for (const [ti, s] of this.vectors) {
      const t = this.layout.tensors[ti];
      block.set(weights.subarray(t.offset, t.offset + t.size), s.at);
    }
    q.writeBuffer(this.vectorBase, 0, block);
  }

  private ti(name: string): number {
    return this.index.get(name) as number;
  }

  private pipelineOf(key: string, code: () => string): GPUComputePipeline {
    let p = this.pipelines.get(key);
    if (!p) {
      p = this.device.createComputePipeline({ label: key, layout: "auto", compute: { module: this.device.createShaderModule({ code: code() }), entryPoint: "main" } });
      this.pipelines.set(key, p);
    }
    return p;
  }

  private matmulPipeline(t: Tile, o: MatmulOptions): GPUComputePipeline {
    return this.pipelineOf(`mm ${JSON.stringify(t)} ${JSON.stringify(o)}`, () => matmulWgsl(t, o));
  }

  private uniform(dims: number[]): GPUBuffer {
    const words = new Uint32Array(24);
    words.set(dims);
    const b = this.device.createBuffer({ size: 96, usage: UNIFORM | COPY_DST });
    this.device.queue.writeBuffer(b, 0, words);
    return b;
  }

  /** Dims (lm-wgsl.ts): [M, N, K, tokensPerPert, rank, mat, nMat, vecStride, biasOff, gammaOff, fOff, rowBase, T, heads, headDim, gOff, ldc, cOff, posOff, kvHeads, flags]. */
  private dims(o: Partial<Record<"M" | "N" | "K" | "tpp" | "mat" | "bias" | "gamma" | "fOff" | "rowBase" | "T" | "gOff" | "ldc" | "cOff" | "posOff" | "flags", number>>): number[] {
    const c = this.config;
    return [o.M ?? 0, o.N ?? 0, o.K ?? 0, o.tpp ?? 1, this.rank, o.mat ?? 0, this.matrices.length + 1, this.vectorFloats, o.bias ?? 0, o.gamma ?? 0, o.fOff ?? 0, o.rowBase ?? 0, o.T ?? 0, c.heads, c.headDim, o.gOff ?? 0, o.ldc ?? 0, o.cOff ?? 0, o.posOff ?? 0, c.kvHeads, o.flags ?? 0];
  }

  private build(P: number, size: number, length: number): Plan {
    const c = this.config;
    const dev = this.device;
    const rows = size * length;
    const tpp = rows / P;
    const hid = c.hidden;
    const r = this.rank;
    const buffers: GPUBuffer[] = [];
    const buf = (bytes: number, usage = STORAGE) => {
      const b = dev.createBuffer({ size: Math.max(16, Math.ceil(bytes / 16) * 16), usage });
      buffers.push(b);
      return b;
    };
    const x = buf(rows * hid * 4);
    const y = buf(rows * hid * 4);
    const qd = c.heads * c.headDim;
    const qkvWidth = qd + 2 * c.kvHeads * c.headDim;
    const qkv = buf(rows * qkvWidth * 4);
    const att = buf(rows * qd * 4);
    const h = buf(rows * c.ffn * 4);
    const u = buf(rows * r * 4);
    const ids = buf(rows * 8, STORAGE | COPY_DST);
    const target = buf(rows * 4, STORAGE | COPY_DST);
    const keyMask = buf(rows * 4, STORAGE | COPY_DST);
    const vecs = buf(P * this.vectorFloats * 4);
    const signs = buf(P * this.wordsPerPert * 4);
    const seeds = buf(P * 16, STORAGE | COPY_DST);
    const mtab = buf(P * (this.matrices.length + 1) * 4, STORAGE | COPY_DST);
    const scales = buf((2 * P + 1) * 4, STORAGE | COPY_DST);
    const nll = buf(rows * 4, STORAGE | COPY_SRC);
    const loss = buf(P * 4, STORAGE | COPY_SRC);
    const readLoss = buf(P * 4, MAP_READ | COPY_DST);
    const table = new Uint32Array(P * (this.matrices.length + 1));
    for (let p = 0; p < P; p++) for (let m = 0; m <= this.matrices.length; m++) table[p * (this.matrices.length + 1) + m] = p * this.wordsPerPert + this.matrixWords[m];
    dev.queue.writeBuffer(mtab, 0, table);
    // Logit rows per head chunk: a multiple of 64 (binding offsets stay 256-byte aligned) under the binding limit and 256 MiB.
    const cap = Math.min(dev.limits.maxStorageBufferBindingSize, 256 * 2 ** 20);
    const chunk = Math.max(64, Math.floor(cap / (c.vocabSize * 4) / 64) * 64);
    const logits = buf(Math.min(chunk, rows) * c.vocabSize * 4);
    const steps: Step[] = [];
    const products: Plan["products"] = [];
    const uniforms: GPUBuffer[] = [];
    const entriesOf = (dims: number[], bind: Record<number, { buffer: GPUBuffer; offset?: number; size?: number }>): GPUBindGroupEntry[] => {
      const ub = this.uniform(dims);
      uniforms.push(ub);
      return [{ binding: 0, resource: { buffer: ub } }, ...Object.entries(bind).map(([k, v]) => ({ binding: Number(k), resource: v }))];
    };
    const add = (pipeline: GPUComputePipeline, entries: GPUBindGroupEntry[], grid: [number, number], kind?: string) =>
      steps.push({ label: pipeline.label, kind, pipeline, group: dev.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }), grid });
    const sg = { 6: { buffer: signs }, 7: { buffer: mtab } };
    const mat = (name: string) => this.matrices.find((s) => s.ti === this.ti(name)) as Slot;
    const vec = (name: string) => (this.vectors.get(this.ti(name)) as Slot).at;
    const wbuf = (name: string) => ({ buffer: this.weights.get(this.ti(name)) as GPUBuffer });
    /** A product with its epilogue; tile chosen at encode time (tuning may change it). */
    const product = (o: MatmulOptions, kind: string, dims: number[], bind: Record<number, { buffer: GPUBuffer; offset?: number; size?: number }>) => {
      const entries = entriesOf(dims, bind);
      const t = this.tiles.get(kind) ?? (this.tileChoice === "tune" ? TILES[0] : this.tileChoice);
      const grid: [number, number] = [Math.ceil(dims[1] / t.bn), Math.ceil(dims[0] / t.bm)];
      products.push({ kind, opts: o, dims, entries });
      add(this.matmulPipeline(t, o), entries, grid, kind);
    };

    // The directions' sign bits, perturbed vectors for every p, then the embedding.
    add(this.pipelineOf("signs", () => SIGNS_WGSL), entriesOf(this.dims({ M: this.segmentCount, N: this.wordsPerPert }), { 1: { buffer: this.segments }, 2: { buffer: seeds }, 3: { buffer: signs } }), [Math.ceil(this.wordsPerPert / 256), P]);
    add(this.pipelineOf("vectors", () => VECTORS_WGSL), entriesOf(this.dims({ N: this.vectorFloats, K: P, mat: this.matrices.length }), { 1: { buffer: this.vectorBase }, 3: { buffer: vecs }, ...sg, 8: { buffer: scales } }), [Math.ceil(this.vectorFloats / 256), P]);
    const names = namesOf(c);
    const wte = mat(names.embed);
    const wpe = names.positions === null ? null : mat(names.positions);
    add(
      this.pipelineOf("embed", () => EMBED_WGSL),
      entriesOf(this.dims({ M: rows, N: hid, tpp, mat: wte.at, fOff: wte.rows * r, gOff: wpe ? wpe.rows * r : 0, posOff: names.positionOffset, flags: wpe ? 0 : 2 }), {
        1: { buffer: ids },
        2: wbuf(names.embed),
        3: { buffer: x },
        4: wbuf(names.positions ?? names.embed),
        ...sg,
        8: { buffer: scales },
      }),
      rowGrid(rows),
    );
    /** nn.Linear weights (and embeddings) are stored [out, in]: x W^T + s (x B) A^T. Conv1D's are [in, out]: x W + s (x A) B^T. */
    const transposed = (s: Slot) => this.layout.tensors[s.ti].backendTransposed === true;
    const rms = c.architecture === "llama";
    const layerNorm = (prefix: string, next: Slot) =>
      add(
        this.pipelineOf("layernorm", () => LAYERNORM_WGSL),
        entriesOf(this.dims({ M: rows, N: hid, K: 2 * P, tpp, mat: next.at, gamma: vec(`${prefix}.weight`), bias: rms ? 0 : vec(`${prefix}.bias`), gOff: transposed(next) ? next.rows * r : 0, flags: rms ? 1 : 0 }), { 1: { buffer: x }, 3: { buffer: y }, 4: { buffer: vecs }, 5: { buffer: u }, ...sg, 8: { buffer: scales } }),
        rowGrid(rows),
      );
    const lowRank = { 5: { buffer: u }, ...sg, 8: { buffer: scales } };
    /**
     * output (=|+=) act(input W + b + the low-rank term), into columns cOff.. of rows of width ldc;
     * `projected`: the layer norm before it already left input's projection in U.
     */
    const linear = (kind: string, weight: string, bias: string | null, input: GPUBuffer, output: GPUBuffer, o: LinearOptions) => {
      const m = mat(weight);
      const tr = transposed(m);
      const [K, N] = tr ? [m.cols, m.rows] : [m.rows, m.cols];
      if (!o.projected)
        add(this.pipelineOf("project", () => PROJECT_WGSL), entriesOf(this.dims({ M: rows, N: K, tpp, mat: m.at, gOff: tr ? m.rows * r : 0 }), { 3: { buffer: input }, 5: { buffer: u }, ...sg }), rowGrid(rows));
      product(
        { transposed: tr, bias: bias !== null, lowRank: true, act: o.act ?? "none", accumulate: o.accumulate === true },
        kind,
        this.dims({ M: rows, N, K, tpp, mat: m.at, bias: bias === null ? 0 : vec(bias), fOff: tr ? 0 : m.rows * r, ldc: o.ldc ?? N, cOff: o.cOff ?? 0 }),
        bias === null ? { 1: { buffer: input }, 2: wbuf(weight), 3: { buffer: output }, ...lowRank } : { 1: { buffer: input }, 2: wbuf(weight), 3: { buffer: output }, 4: { buffer: vecs }, ...lowRank },
      );
    };
    const attention = () => add(this.pipelineOf("attention", () => attentionWgsl(c.headDim)), entriesOf(this.dims({ T: length }), { 1: { buffer: qkv }, 2: { buffer: keyMask }, 3: { buffer: att } }), [size, c.heads]);
    /** q, k and v as three products into one QKV row (the norm before projected q's input). */
    const qkvOf = (p: string, names3: readonly string[], bias: boolean) =>
      names3.forEach((proj, j) => linear("qkv", `${p}${proj}.weight`, bias ? `${p}${proj}.bias` : null, y, qkv, { projected: j === 0, cOff: j === 0 ? 0 : qd + (j - 1) * c.kvHeads * c.headDim, ldc: qkvWidth }));
    const rope = rms ? buf(length * c.headDim * 4, STORAGE | COPY_DST) : null;
    if (rope) dev.queue.writeBuffer(rope, 0, ropeTable(c, length));
    const named = { y, att, h, qkv, x };
    const ops: BlockOps = {
      layerNorm: (prefix, next) => layerNorm(prefix, mat(next)),
      linear: (kind, weight, bias, input, output, o) => linear(kind, weight, bias, named[input], named[output], o),
      qkv: qkvOf,
      attention,
      rope: () => add(this.pipelineOf("rope", () => ROPE_WGSL), entriesOf(this.dims({ M: rows }), { 1: { buffer: ids }, 2: { buffer: rope as GPUBuffer }, 3: { buffer: qkv } }), rowGrid(rows)),
    };
    for (let i = 0; i < c.layers; i++) encodeBlock(c, i, ops);
    // Final norm, projected on the head's B; then the head and the loss, chunk by chunk.
    const head = mat(names.head);
    layerNorm(names.finalNorm, head);
    for (let r0 = 0; r0 < rows; r0 += chunk) {
      const n = Math.min(chunk, rows - r0);
      product({ transposed: true, bias: false, lowRank: true, act: "none", accumulate: false }, "head", this.dims({ M: n, N: c.vocabSize, K: hid, tpp, mat: head.at, fOff: 0, rowBase: r0, ldc: c.vocabSize }), {
        1: { buffer: y, offset: r0 * hid * 4, size: n * hid * 4 },
        2: wbuf(names.head),
        3: { buffer: logits, size: n * c.vocabSize * 4 },
        5: { buffer: u, offset: r0 * r * 4, size: n * r * 4 },
        ...sg,
        8: { buffer: scales },
      });
      add(this.pipelineOf("nll", () => NLL_WGSL), entriesOf(this.dims({ M: n, N: c.vocabSize, rowBase: r0 }), { 1: { buffer: logits, size: n * c.vocabSize * 4 }, 2: { buffer: target }, 3: { buffer: nll } }), rowGrid(n));
    }
    add(this.pipelineOf("loss", () => LOSS_WGSL), entriesOf(this.dims({ tpp }), { 1: { buffer: nll }, 2: { buffer: target }, 3: { buffer: loss } }), [P, 1]);
    buffers.push(...uniforms);
    return { key: `${P}x${size}x${length}`, P, rows, buffers, ids, target, keyMask, vecs, seeds, scales, loss, nll, readLoss, steps, products };
  }

  /**
   * Encodes and submits one pass: the batch's sequences are P equal groups, group p evaluated at
   * weights + sign_p * eps * direction(seed_p). Returns when the work is queued; the promise
   * settles with the losses once the device has them. One pass in flight at a time.
   */
  losses(batch: TokenBatch, perts: readonly LowRankPerturbation[], eps: number, options: { nll?: boolean } = {}): Promise<LmLosses> {
    const P = perts.length;
    const inputs = passInputs(this.config, this.rank, batch, perts, eps);
    // WebGPU reports a bad call or a failed allocation asynchronously, never by throwing: the
    // scopes turn either into this pass's rejection instead of silently wrong losses.
    if (this.inFlight) throw new GpuError("GPU_FAILED", "one language-model pass at a time: the last one has not settled", {});
    this.device.pushErrorScope("out-of-memory");
    this.device.pushErrorScope("validation");
    const key = `${P}x${batch.size}x${batch.length}`;
    let plan: Plan;
    try {
      if (this.plan?.key !== key) {
        for (const b of this.plan?.buffers ?? []) b.destroy();
        this.plan = this.build(P, batch.size, batch.length);
      }
      plan = this.plan;
    } catch (err) {
      // The scopes are closed only to keep the device's stack balanced: the build's own error is the one thrown.
      void this.device.popErrorScope().then(() => this.device.popErrorScope()).catch(() => undefined);
      throw err;
    }
    const rows = plan.rows;
    const q = this.device.queue;
    q.writeBuffer(plan.ids, 0, inputs.ids);
    q.writeBuffer(plan.target, 0, inputs.target);
    q.writeBuffer(plan.keyMask, 0, inputs.keyMask);
    q.writeBuffer(plan.scales, 0, inputs.scales);
    q.writeBuffer(plan.seeds, 0, inputs.seeds);
    const enc = this.device.createCommandEncoder();
    const pass = enc.beginComputePass();
    for (const s of plan.steps) {
      pass.setPipeline(s.pipeline);
      pass.setBindGroup(0, s.group);
      pass.dispatchWorkgroups(s.grid[0], s.grid[1]);
    }
    pass.end();
    enc.copyBufferToBuffer(plan.loss, 0, plan.readLoss, 0, P * 4);
    let readNll: GPUBuffer | undefined;
    if (options.nll) {
      readNll = this.device.createBuffer({ size: rows * 4, usage: MAP_READ | COPY_DST });
      enc.copyBufferToBuffer(plan.nll, 0, readNll, 0, rows * 4);
    }
    q.submit([enc.finish()]);
    const scopes = [this.device.popErrorScope(), this.device.popErrorScope()];
    this.inFlight = true;
    return (async () => {
      for (const e of await Promise.all(scopes)) if (e) throw new GpuError("GPU_FAILED", `the device refused the language-model pass: ${e.message}`, { key });
      await plan.readLoss.mapAsync(MAP_READ);
      const loss = new Float32Array(plan.readLoss.getMappedRange().slice(0, P * 4));
      plan.readLoss.unmap();
      if (!readNll) return { loss };
      await readNll.mapAsync(MAP_READ);
      const nll = new Float32Array(readNll.getMappedRange().slice(0, rows * 4));
      readNll.destroy();
      return { loss, nll };
    })().finally(() => (this.inFlight = false));
  }

  /**
   * Times each tiling on each product kind of the current plan (3 dispatches each, the device's
   * own completion as the clock) and re-records the plan with the fastest. Returns the choice
   * with its per-tile milliseconds, for the benchmark's report.
   */
  async tune(): Promise<Record<string, { tile: Tile; ms: number[] }>> {
    const plan = this.plan;
    if (!plan) throw new GpuError("GPU_FAILED", "tune() needs a pass first (it tunes that batch shape)", {});
    const report: Record<string, { tile: Tile; ms: number[] }> = {};
    const kinds = [...new Set(plan.products.map((p) => p.kind))];
    for (const kind of kinds) {
      const sample = plan.products.find((p) => p.kind === kind) as Plan["products"][number];
      const ms: number[] = [];
      for (const t of TILES) {
        const pipeline = this.matmulPipeline(t, sample.opts);
        const group = this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: sample.entries });
        ms.push(await timeDispatch(this.device, pipeline, group, [Math.ceil(sample.dims[1] / t.bn), Math.ceil(sample.dims[0] / t.bm)]));
      }
      const best = ms.indexOf(Math.min(...ms));
      this.tiles.set(kind, TILES[best]);
      report[kind] = { tile: TILES[best], ms };
    }
    for (const b of plan.buffers) b.destroy();
    this.plan = undefined;
    return report;
  }

  /**
   * Device milliseconds of each kind of step of the current plan, summed over a pass: every step
   * run alone (3 times, the device's completion as the clock). For finding what to speed up.
   */
  async profile(): Promise<Record<string, number>> {
    const plan = this.plan;
    if (!plan) throw new GpuError("GPU_FAILED", "profile() needs a pass first", {});
    const out: Record<string, number> = {};
    for (const s of plan.steps) {
      const ms = await timeDispatch(this.device, s.pipeline, s.group, s.grid);
      const key = s.label.startsWith("mm ") ? `mm ${s.kind}` : s.label;
      out[key] = (out[key] ?? 0) + ms;
    }
    return out;
  }

  destroy(): void {
    for (const b of this.plan?.buffers ?? []) b.destroy();
    for (const b of this.weights.values()) b.destroy();
    this.vectorBase.destroy();
    this.segments.destroy();
    this.plan = undefined;
  }
}
