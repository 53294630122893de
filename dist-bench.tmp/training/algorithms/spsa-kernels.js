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
import { Purpose, streamOf } from "../rng/seeds.js";
import { MAX_STEPS, TILE } from "./spsa-update.js";
export class KernelError extends SeedswarmError {
}
const wasm = globalThis.WebAssembly;
/** Parameters per streamed chunk (a multiple of TILE, so chunks start on Philox blocks). */
const CHUNK = 64 * TILE;
const PAGE = 65536;
const TILE_BYTES = (TILE / 32) * 4;
let compiled;
let problem = "";
/** The compiled module, or null (with `kernelsProblem()` saying why) where it cannot load. */
function kernelModule() {
    if (compiled !== undefined)
        return compiled;
    const url = new URL("../../assembly/spsa-kernels.wasm", import.meta.url);
    try {
        compiled = new wasm.Module(readFileSync(url));
    }
    catch (err) {
        problem = `${url.pathname}: ${err.message}`;
        compiled = null;
    }
    return compiled;
}
/** Why the kernels cannot load here ("" when they can). */
export function kernelsProblem() {
    kernelModule();
    return problem;
}
/** One instance of the kernels with its own memory: scratch, stream buffers and an arena. */
export class SpsaKernels {
    description = "wasm";
    x;
    steps;
    classes;
    tail;
    bits;
    chunkW;
    chunkOut;
    /** Floats in this instance's memory, for arrays that kernels update in place (no copies). */
    arena;
    /** @throws KernelError KERNELS_UNAVAILABLE where the module cannot load (see kernelsProblem). */
    constructor(arenaFloats = 0) {
        const mod = kernelModule();
        if (!mod)
            throw new KernelError("KERNELS_UNAVAILABLE", `SPSA kernels unavailable: ${problem}`, { problem });
        this.x = new wasm.Instance(mod, {}).exports;
        if (this.x.tileParams() !== TILE)
            throw new KernelError("KERNELS_UNAVAILABLE", "SPSA kernels were built with another tile size", { tile: this.x.tileParams() });
        let at = this.x.heapBase();
        const take = (bytes) => {
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
        const arenaAt = take(4 * arenaFloats);
        const pages = Math.ceil(at / PAGE) - this.x.memory.buffer.byteLength / PAGE;
        if (pages > 0)
            this.x.memory.grow(pages);
        this.arena = new Float32Array(this.x.memory.buffer, arenaAt, arenaFloats);
    }
    /** Byte offset of `a` in this instance's memory, or -1 when it lives elsewhere. */
    inMemory(a) {
        return a.buffer === this.x.memory.buffer ? a.byteOffset : -1;
    }
    /** The canonical update of `plans` (planUpdate) on `weights` in place. */
    apply(weights, layout, plans) {
        const nSteps = plans.reduce((s, p) => s + p.steps.length, 0);
        if (nSteps === 0)
            return;
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
                if (own < 0)
                    f32.set(weights.subarray(from, from + n), this.chunkW >> 2);
                this.x.applyRange(ptr, n, start / 128, c2, this.steps, nSteps, this.classes, plans.length, this.bits, this.tail);
                if (own < 0)
                    weights.set(f32.subarray(this.chunkW >> 2, (this.chunkW >> 2) + n), from);
            }
        }
    }
    /**
     * out = weights + sign * eps * z for the seed's direction z (every tensor of `layout`); `eps`
     * must be a float32 value. `out` may be `weights` itself.
     */
    perturb(out, weights, layout, seed, eps, sign) {
        for (const [ti, t] of layout.tensors.entries())
            this.perturbTensor(out, t.offset, weights, t, ti, seed, eps, sign);
    }
    /** The same for tensor `ti` of the layout alone, written to `out` from index `outBase`. */
    perturbTensor(out, outBase, weights, t, ti, seed, eps, sign) {
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
            if (ownW < 0)
                f32.set(weights.subarray(from, from + n), this.chunkW >> 2);
            const o = ownOut >= 0 ? ownOut + 4 * to : this.chunkOut;
            this.x.perturbRange(o, w, n, start / 128, id.c2, id.c3, id.k0, id.k1, e, this.bits, this.tail);
            if (ownOut < 0)
                out.set(f32.subarray(o >> 2, (o >> 2) + n), to);
        }
    }
    /** Words of a Philox stream (counter word 1 = 0) from block `firstBlock`, for tests. */
    philoxWords(id, firstBlock, words) {
        if (words > (TILE_BYTES * MAX_STEPS) / 4 - 32)
            throw new RangeError(`too many words: ${words}`);
        this.x.philoxWords(this.bits, Math.ceil(words / 4), firstBlock, id.c2, id.c3, id.k0, id.k1);
        return new Uint32Array(this.x.memory.buffer, this.bits, words).slice();
    }
}
let shared;
/** A process-wide instance without arena, or null where the kernels cannot load. */
export function sharedKernels() {
    if (shared === undefined)
        shared = kernelModule() ? new SpsaKernels() : null;
    return shared;
}
//# sourceMappingURL=spsa-kernels.js.map