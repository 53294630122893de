/**
 * The WebAssembly kernels of the canonical SPSA update and the seeded perturbation
 * (assembly/spsa-kernels.ts, built to dist/assembly/spsa-kernels.wasm by `npm run build`).
 * Same bytes as the JavaScript reference in spsa-update.ts; the tests check it on random inputs.
 *
 * A kernel can only read its own linear memory. Arrays that live there (the `arena`, sized once at
 * construction so that its views never detach) are updated in place; any other Float32Array is
 * streamed through in chunks (one memcpy in and out per pass, small next to the kernel).
 */
import { readFileSync } from "node:fs";
import { SeedswarmError } from "../../protocol/errors.js";
import type { ParamLayout, TensorLayout } from "../params.js";
import type { StreamId } from "../rng/philox.js";
import { Purpose, type Seed, streamOf } from "../rng/seeds.js";
import type { MatrixFactors } from "./lowrank.js";
import { type ClassPlan, MAX_STEPS, TILE } from "./spsa-update.js";

export class KernelError extends SeedswarmError<"KERNELS_UNAVAILABLE" | "KERNELS_TOO_MANY_STEPS"> {}

/** The little of the WebAssembly JS API used here (TypeScript's ES libs do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
type WasmModule = object;
const wasm = (globalThis as unknown as {
  WebAssembly: {
    Module: new (bytes: Uint8Array) => WasmModule;
    Instance: new (m: WasmModule, imports: object) => { exports: unknown };
  };
}).WebAssembly;

interface Exports {
  memory: WasmMemory;
  heapBase(): number;
  tileParams(): number;
  philoxWords(out: number, blocks: number, firstBlock: number, c2: number, c3: number, k0: number, k1: number): void;
  applyRange(w: number, n: number, firstBlock: number, c2: number, steps: number, nSteps: number, classes: number, nClasses: number, bits: number, tail: number): void;
  perturbRange(out: number, w: number, n: number, firstBlock: number, c2: number, c3: number, k0: number, k1: number, e: number, bits: number, tail: number): void;
  lowRankBlock(w: number, rows: number, cols: number, stride: number, av: number, K: number, bt: number, btStride: number, classes: number, nClasses: number): void;
}

/** Floats of scratch for the low-rank update's blocks (16 MiB of address space; pages are touched only when used). */
const LOW_RANK_SCRATCH = 4 * 1024 * 1024;

/** Parameters per streamed chunk (a multiple of TILE, so chunks start on Philox blocks). */
const CHUNK = 64 * TILE;
const PAGE = 65536;
const TILE_BYTES = (TILE / 32) * 4;

let compiled: WasmModule | null | undefined;
let problem = "";

/** The compiled module, or null (with `kernelsProblem()` saying why) where it cannot load. */
function kernelModule(): WasmModule | null {
  if (compiled !== undefined) return compiled;
  const url = new URL("../../assembly/spsa-kernels.wasm", import.meta.url);
  try {
    compiled = new wasm.Module(readFileSync(url));
  } catch (err) {
    problem = `${url.pathname}: ${(err as Error).message}`;
    compiled = null;
  }
  return compiled;
}

/** Why the kernels cannot load here ("" when they can). */
export function kernelsProblem(): string {
  kernelModule();
  return problem;
}

/** One instance of the kernels with its own memory: scratch, stream buffers and an arena. */
export class SpsaKernels {
  readonly description = "wasm";
  private readonly x: Exports;
  private readonly steps: number;
  private readonly classes: number;
  private readonly tail: number;
  private readonly bits: number;
  private readonly chunkW: number;
  private readonly chunkOut: number;
  private readonly lowRankClasses: number;
  private readonly lowRank: number;
  /** Floats in this instance's memory, for arrays that kernels update in place (no copies). */
  readonly arena: Float32Array;

  /** @throws KernelError KERNELS_UNAVAILABLE where the module cannot load (see kernelsProblem). */
  constructor(arenaFloats = 0) {
    const mod = kernelModule();
    if (!mod) throw new KernelError("KERNELS_UNAVAILABLE", `SPSA kernels unavailable: ${problem}`, { problem });
    this.x = new wasm.Instance(mod, {}).exports as Exports;
    if (this.x.tileParams() !== TILE)
      throw new KernelError("KERNELS_UNAVAILABLE", "SPSA kernels were built with another tile size", { tile: this.x.tileParams() });
    let at = this.x.heapBase();
    const take = (bytes: number) => {
      const p = at;
      at += Math.ceil(bytes / 64) * 64;
      return p;
    };
    this.steps = take(16 * MAX_STEPS);
    this.classes = take(16 * 8);
    this.tail = take(128);
    this.bits = take(TILE_BYTES * MAX_STEPS);
    this.chunkW = take(4 * CHUNK);
    this.chunkOut = take(4 * CHUNK);
    this.lowRankClasses = take(16 * 8);
    this.lowRank = take(4 * LOW_RANK_SCRATCH);
    const arenaAt = take(4 * arenaFloats);
    const pages = Math.ceil(at / PAGE) - this.x.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.x.memory.grow(pages);
    this.arena = new Float32Array(this.x.memory.buffer, arenaAt, arenaFloats);
  }

  /** Byte offset of `a` in this instance's memory, or -1 when it lives elsewhere. */
  private inMemory(a: Float32Array): number {
    return a.buffer === this.x.memory.buffer ? a.byteOffset : -1;
  }

  /** The canonical update of `plans` (planUpdate) on `weights` in place. */
  apply(weights: Float32Array, layout: ParamLayout, plans: readonly ClassPlan[]): void {
    const nSteps = plans.reduce((s, p) => s + p.steps.length, 0);
    if (nSteps === 0) return;
    if (nSteps > MAX_STEPS)
      throw new KernelError("KERNELS_TOO_MANY_STEPS", `${nSteps} steps, at most ${MAX_STEPS}`, { nSteps });
    const mem = this.x.memory.buffer;
    const u32 = new Uint32Array(mem);
    const i32 = new Int32Array(mem);
    const f32 = new Float32Array(mem);
    let q = 0;
    for (const [c, p] of plans.entries()) {
      let sum = 0;
      for (const s of p.steps) {
        const at = (this.steps >> 2) + 4 * q++;
        u32[at] = s.seed.k0;
        u32[at + 1] = s.seed.k1;
        u32[at + 2] = s.seed.k2;
        i32[at + 3] = 2 * s.v;
        sum += s.v;
      }
      const at = (this.classes >> 2) + 4 * c;
      i32[at] = p.steps.length;
      i32[at + 1] = -sum;
      f32[at + 2] = p.coef;
    }
    const own = this.inMemory(weights);
    for (const [ti, t] of layout.tensors.entries()) {
      const c2 = streamOf({ k0: 0, k1: 0, k2: 0 }, Purpose.Noise, ti).c2;
      // Chunks even in place: V8 swaps in its optimized code for a wasm function only between
      // calls, so one call over a whole tensor could run entirely on the baseline compiler's code.
      for (let start = 0; start < t.size; start += CHUNK) {
        const n = Math.min(CHUNK, t.size - start);
        const from = t.offset + start;
        const ptr = own >= 0 ? own + 4 * from : this.chunkW;
        if (own < 0) f32.set(weights.subarray(from, from + n), this.chunkW >> 2);
        this.x.applyRange(ptr, n, start / 128, c2, this.steps, nSteps, this.classes, plans.length, this.bits, this.tail);
        if (own < 0) weights.set(f32.subarray(this.chunkW >> 2, (this.chunkW >> 2) + n), from);
      }
    }
  }

  /**
   * The low-rank canonical update of one matrix (lowrank.ts MatrixUpdate) in blocks of rows and,
   * where its B^T would not fit the scratch, of columns: each block's weights, AV rows and B^T
   * columns copied in, updated by the kernel (exact products, lowrank.ts exactInFloat32), copied out.
   */
  applyMatrix(weights: Float32Array, offset: number, rows: number, cols: number, fm: MatrixFactors): void {
    const { av, bt, K, classes } = fm;
    if (classes.length > 8) throw new RangeError(`${classes.length} classes, at most 8`);
    const f32 = new Float32Array(this.x.memory.buffer);
    const i32 = new Int32Array(this.x.memory.buffer);
    classes.forEach((c, i) => {
      const at = (this.lowRankClasses >> 2) + 4 * i;
      i32[at] = c.start;
      i32[at + 1] = c.count;
      f32[at + 2] = c.coef;
    });
    const half = LOW_RANK_SCRATCH / 2;
    const cb = K * cols <= half ? cols : Math.max(16, Math.floor(half / K / 16) * 16);
    const rb = Math.max(1, Math.floor(half / (K + cb)));
    const btAt = this.lowRank >> 2;
    const avAt = btAt + K * cb;
    const wAt = avAt + rb * K;
    const own = this.inMemory(weights);
    for (let j0 = 0; j0 < cols; j0 += cb) {
      const cw = Math.min(cb, cols - j0);
      for (let k = 0; k < K; k++) f32.set(bt.subarray(k * cols + j0, k * cols + j0 + cw), btAt + k * cw);
      for (let i0 = 0; i0 < rows; i0 += rb) {
        const rn = Math.min(rb, rows - i0);
        f32.set(av.subarray(i0 * K, (i0 + rn) * K), avAt);
        let ptr: number;
        let stride: number;
        if (own >= 0) {
          ptr = own + 4 * (offset + i0 * cols + j0);
          stride = cols;
        } else {
          if (cw === cols) f32.set(weights.subarray(offset + i0 * cols, offset + (i0 + rn) * cols), wAt);
          else for (let i = 0; i < rn; i++) f32.set(weights.subarray(offset + (i0 + i) * cols + j0, offset + (i0 + i) * cols + j0 + cw), wAt + i * cw);
          ptr = 4 * wAt;
          stride = cw;
        }
        this.x.lowRankBlock(ptr, rn, cw, stride, 4 * avAt, K, 4 * btAt, cw, this.lowRankClasses, classes.length);
        if (own < 0) {
          if (cw === cols) weights.set(f32.subarray(wAt, wAt + rn * cols), offset + i0 * cols);
          else for (let i = 0; i < rn; i++) weights.set(f32.subarray(wAt + i * cw, wAt + (i + 1) * cw), offset + (i0 + i) * cols + j0);
        }
      }
    }
  }

  /**
   * out = weights + sign * eps * z for the seed's direction z (every tensor of `layout`); `eps`
   * must be a float32 value. `out` may be `weights` itself.
   */
  perturb(out: Float32Array, weights: Float32Array, layout: ParamLayout, seed: Seed, eps: number, sign: 1 | -1): void {
    for (const [ti, t] of layout.tensors.entries()) this.perturbTensor(out, t.offset, weights, t, ti, seed, eps, sign);
  }

  /** The same for tensor `ti` of the layout alone, written to `out` from index `outBase`. */
  perturbTensor(out: Float32Array, outBase: number, weights: Float32Array, t: TensorLayout, ti: number, seed: Seed, eps: number, sign: 1 | -1): void {
    const f32 = new Float32Array(this.x.memory.buffer);
    const e = Math.fround(sign * eps);
    const ownW = this.inMemory(weights);
    const ownOut = this.inMemory(out);
    const id = streamOf(seed, Purpose.Noise, ti);
    for (let start = 0; start < t.size; start += CHUNK) {
      const n = Math.min(CHUNK, t.size - start);
      const from = t.offset + start;
      const to = outBase + start;
      const w = ownW >= 0 ? ownW + 4 * from : this.chunkW;
      if (ownW < 0) f32.set(weights.subarray(from, from + n), this.chunkW >> 2);
      const o = ownOut >= 0 ? ownOut + 4 * to : this.chunkOut;
      this.x.perturbRange(o, w, n, start / 128, id.c2, id.c3, id.k0, id.k1, e, this.bits, this.tail);
      if (ownOut < 0) out.set(f32.subarray(o >> 2, (o >> 2) + n), to);
    }
  }

  /** Words of a Philox stream (counter word 1 = 0) from block `firstBlock`, for tests. */
  philoxWords(id: StreamId, firstBlock: number, words: number): Uint32Array {
    if (words > (TILE_BYTES * MAX_STEPS) / 4 - 32) throw new RangeError(`too many words: ${words}`);
    this.x.philoxWords(this.bits, Math.ceil(words / 4), firstBlock, id.c2, id.c3, id.k0, id.k1);
    return new Uint32Array(this.x.memory.buffer, this.bits, words).slice();
  }
}

let shared: SpsaKernels | null | undefined;

/** A process-wide instance without arena, or null where the kernels cannot load. */
export function sharedKernels(): SpsaKernels | null {
  if (shared === undefined) shared = kernelModule() ? new SpsaKernels() : null;
  return shared;
}
