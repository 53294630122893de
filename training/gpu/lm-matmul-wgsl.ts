/**
 * The WGSL matrix product of the language-model pass, C[M, N] (=|+=) A[M, K] W + epilogue (bias,
 * the low-rank term, GELU), in several tilings: which is fastest depends on the GPU and the shape,
 * so GpuLmForward.tune() times them on the device and keeps the best per product.
 *
 * Two code shapes: `loop` (per-thread block in arrays, strided ownership: neighbouring threads own
 * neighbouring columns) and `unrolled` (the per-thread block as named vec4 registers, loaded from
 * workgroup memory as vec4, every multiply-add written out), because a GPU compiler may keep a
 * private array of 64 floats in slow local memory where it always keeps named values in registers.
 */
import { DIMS, SIGN } from "./lm-wgsl.js";

/** One tiling: rows of A and columns of W per workgroup, depth step, per-thread block. */
export interface Tile {
  readonly bm: number;
  readonly bn: number;
  readonly bk: number;
  readonly tm: number;
  readonly tn: number;
  readonly unrolled: boolean;
}

export const TILES: readonly Tile[] = [
  { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4, unrolled: false },
  { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4, unrolled: true },
  { bm: 128, bn: 64, bk: 16, tm: 8, tn: 4, unrolled: true },
  { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8, unrolled: true },
  { bm: 128, bn: 128, bk: 16, tm: 8, tn: 8, unrolled: true },
];

/** swiglu: C = silu(C) * result, C holding the gate product (Llama's MLP: the up product's epilogue). */
export type Activation = "none" | "gelu" | "relu" | "swiglu";

export interface MatmulOptions {
  /** W is stored [N, K] (the tied head: the token embedding [vocab, hidden]); else [K, N]. */
  readonly transposed: boolean;
  /** Add the perturbed bias vecs[p * vecStride + biasOff + n]. */
  readonly bias: boolean;
  /** Add s_p sum_k U[m, k] F(n, k), F the factor bits at d.fOff + n * rank + k. */
  readonly lowRank: boolean;
  readonly act: Activation;
  /** C += result (the residual stream) instead of C = result. */
  readonly accumulate: boolean;
}

function bindings(o: MatmulOptions): string {
  return `${DIMS}
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> W: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;
${o.bias ? "@group(0) @binding(4) var<storage, read> vecs: array<f32>;" : ""}
${
  o.lowRank
    ? `@group(0) @binding(5) var<storage, read> U: array<f32>;
@group(0) @binding(6) var<storage, read> signs: array<u32>;
@group(0) @binding(7) var<storage, read> mtab: array<u32>;
@group(0) @binding(8) var<storage, read> scales: array<f32>;
${SIGN}`
    : ""
}`;
}

/** The epilogue of one output element, as a function the compiler inlines. */
function epilogue(o: MatmulOptions): string {
  return `fn gelu(x: f32) -> f32 {
  // tanh from exp, clamped so that exp never overflows to inf/inf.
  let u = clamp(0.7978845608028654 * (x + 0.044715 * x * x * x), -15.0, 15.0);
  let e = exp(2.0 * u);
  return 0.5 * x * (1.0 + (e - 1.0) / (e + 1.0));
}
fn store(m: u32, n: u32, acc: f32) {
  if (m >= d.M || n >= d.N) { return; }
  let p = (m + d.rowBase) / d.tokensPerPert;
  var v = acc;
  ${o.bias ? "v += vecs[p * d.vecStride + d.biasOff + n];" : ""}
  ${
    o.lowRank
      ? `var lr = 0.0;
  for (var k = 0u; k < d.rank; k++) { lr += U[m * d.rank + k] * sgn(p, d.fOff + n * d.rank + k); }
  v += scales[p] * lr;`
      : ""
  }
  ${o.act === "gelu" ? "v = gelu(v);" : o.act === "relu" ? "v = max(v, 0.0);" : ""}
  let at = m * d.ldc + d.cOff + n;
  ${o.act === "swiglu" ? "let g = C[at]; C[at] = g / (1.0 + exp(-g)) * v;" : o.accumulate ? "C[at] += v;" : "C[at] = v;"}
}`;
}

/** The epilogue and the kernel's entry: thread (tx, ty) of the workgroup at tile (m0, n0). */
function head(t: Tile, o: MatmulOptions): string {
  const wx = t.bn / t.tn;
  return `${epilogue(o)}
@compute @workgroup_size(${wx * (t.bm / t.tm)})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let tx = li % ${wx}u;
  let ty = li / ${wx}u;
  let m0 = wg.y * ${t.bm}u;
  let n0 = wg.x * ${t.bn}u;`;
}

/** Loads of one depth step of A and W into workgroup memory, element `idx` of each as `put(idx, value)`. */
function tileLoads(t: Tile, o: MatmulOptions, threads: number, put: (arr: string, idx: string, v: string) => string): string {
  const loadB = o.transposed
    ? `let nn = i / ${t.bk}u; let kk = i % ${t.bk}u;
      let gn = n0 + nn; let gk = k0 + kk;
      ${put("Bs", `kk * ${t.bn}u + nn`, "select(0.0, W[gn * d.K + gk], gn < d.N && gk < d.K)")}`
    : `let kk = i / ${t.bn}u; let nn = i % ${t.bn}u;
      let gn = n0 + nn; let gk = k0 + kk;
      ${put("Bs", `kk * ${t.bn}u + nn`, "select(0.0, W[gk * d.N + gn], gn < d.N && gk < d.K)")}`;
  return `for (var i = li; i < ${t.bm * t.bk}u; i += ${threads}u) {
      let mm = i / ${t.bk}u; let kk = i % ${t.bk}u;
      let gm = m0 + mm; let gk = k0 + kk;
      ${put("As", `kk * ${t.bm}u + mm`, "select(0.0, A[gm * d.K + gk], gm < d.M && gk < d.K)")}
    }
    for (var i = li; i < ${t.bn * t.bk}u; i += ${threads}u) {
      ${loadB}
    }`;
}

function loopWgsl(t: Tile, o: MatmulOptions): string {
  const wx = t.bn / t.tn;
  const wy = t.bm / t.tm;
  const threads = wx * wy;
  return `${bindings(o)}
var<workgroup> As: array<f32, ${t.bk * t.bm}>;
var<workgroup> Bs: array<f32, ${t.bk * t.bn}>;
${head(t, o)}
  var acc: array<f32, ${t.tm * t.tn}>;
  for (var k0 = 0u; k0 < d.K; k0 += ${t.bk}u) {
    ${tileLoads(t, o, threads, (arr, idx, v) => `${arr}[${idx}] = ${v};`)}
    workgroupBarrier();
    for (var kk = 0u; kk < ${t.bk}u; kk++) {
      var a: array<f32, ${t.tm}>;
      var b: array<f32, ${t.tn}>;
      for (var i = 0u; i < ${t.tm}u; i++) { a[i] = As[kk * ${t.bm}u + ty + i * ${wy}u]; }
      for (var j = 0u; j < ${t.tn}u; j++) { b[j] = Bs[kk * ${t.bn}u + tx + j * ${wx}u]; }
      for (var i = 0u; i < ${t.tm}u; i++) {
        for (var j = 0u; j < ${t.tn}u; j++) { acc[i * ${t.tn}u + j] += a[i] * b[j]; }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < ${t.tm}u; i++) {
    for (var j = 0u; j < ${t.tn}u; j++) { store(m0 + ty + i * ${wy}u, n0 + tx + j * ${wx}u, acc[i * ${t.tn}u + j]); }
  }
}
`;
}

function unrolledWgsl(t: Tile, o: MatmulOptions): string {
  const wx = t.bn / t.tn;
  const wy = t.bm / t.tm;
  const threads = wx * wy;
  const av = t.tm / 4;
  const bv = t.tn / 4;
  const lines: string[] = [];
  const comp = ["x", "y", "z", "w"];
  for (let i = 0; i < t.tm; i++) for (let v = 0; v < bv; v++) lines.push(`var c${i}_${v} = vec4<f32>(0.0);`);
  const decl = lines.join("\n  ");
  const loads = [
    ...Array.from({ length: av }, (_, i) => `let a${i} = As[kk * ${t.bm / 4}u + ty * ${av}u + ${i}u];`),
    ...Array.from({ length: bv }, (_, v) => `let b${v} = Bs[kk * ${t.bn / 4}u + tx * ${bv}u + ${v}u];`),
  ].join("\n      ");
  const fmas: string[] = [];
  for (let i = 0; i < t.tm; i++) for (let v = 0; v < bv; v++) fmas.push(`c${i}_${v} += a${i >> 2}.${comp[i & 3]} * b${v};`);
  // The epilogue runs once per element from a loop (one inlined copy, not tm x tn: LLVM-based
  // drivers took minutes to compile 64 copies), reading the registers through an array.
  const stores: string[] = [`var out: array<vec4<f32>, ${t.tm * bv}>;`];
  for (let i = 0; i < t.tm; i++) for (let v = 0; v < bv; v++) stores.push(`out[${i * bv + v}] = c${i}_${v};`);
  stores.push(`for (var e = 0u; e < ${t.tm * t.tn}u; e++) {
    let i = e / ${t.tn}u; let j = e % ${t.tn}u;
    store(m0 + ty * ${t.tm}u + i, n0 + tx * ${t.tn}u + j, out[i * ${bv}u + j / 4u][j % 4u]);
  }`);
  return `${bindings(o)}
var<workgroup> As: array<vec4<f32>, ${(t.bk * t.bm) / 4}>;
var<workgroup> Bs: array<vec4<f32>, ${(t.bk * t.bn) / 4}>;
${head(t, o)}
  ${decl}
  for (var k0 = 0u; k0 < d.K; k0 += ${t.bk}u) {
    ${tileLoads(t, o, threads, (arr, idx, v) => `{ let e = ${idx}; ${arr}[e >> 2u][e & 3u] = ${v}; }`)}
    workgroupBarrier();
    for (var kk = 0u; kk < ${t.bk}u; kk++) {
      ${loads}
      ${fmas.join("\n      ")}
    }
    workgroupBarrier();
  }
  ${stores.join("\n  ")}
}
`;
}

/** The WGSL of one product shape and tiling. */
export function matmulWgsl(t: Tile, o: MatmulOptions): string {
  return t.unrolled ? unrolledWgsl(t, o) : loopWgsl(t, o);
}
