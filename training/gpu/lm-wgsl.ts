/**
 * WGSL kernels of the GPT-2, OPT and Llama forward pass on a WebGPU device (lm-forward.ts runs them): a tiled
 * matrix product with a fused epilogue (bias, the low-rank term, GELU, residual add), layer norm
 * fused with the next product's low-rank projection, causal attention, the embedding, and the
 * next-token loss. P perturbations are evaluated in ONE pass: token row m belongs to perturbation
 * p = (m + rowBase) / tokensPerPert, and a perturbed matrix W + s A B^T is never built: the
 * product adds s (x A) B^T, with A and B Rademacher signs read from uploaded bit words (the same
 * bits as lowrank.ts draws on the CPU); vectors (biases, norms) arrive already perturbed per p.
 *
 * Float results differ from tfjs's in the last bits (another summation order): they only choose
 * an author's byte, never the canonical update (docs/architecture.md, "GPU").
 */
import { PHILOX_WGSL } from "./spsa-wgsl.js";

/**
 * Uniforms shared by every kernel (24 u32 words; unused ones are 0). ldc, cOff: a product's output
 * row width and first column; kvHeads: key/value heads (grouped-query attention); flags: bit 0 RMS
 * norm (no centring, no beta), bit 1 no position table (RoPE models).
 */
export const DIMS = `struct Dims {
  M: u32, N: u32, K: u32, tokensPerPert: u32,
  rank: u32, mat: u32, nMat: u32, vecStride: u32,
  biasOff: u32, gammaOff: u32, fOff: u32, rowBase: u32,
  T: u32, heads: u32, headDim: u32, gOff: u32,
  ldc: u32, cOff: u32, posOff: u32, kvHeads: u32,
  flags: u32, pad0: u32, pad1: u32, pad2: u32,
}
@group(0) @binding(0) var<uniform> d: Dims;`;

/** A Rademacher sign of matrix d.mat's factor bits for perturbation p: bit `i` of its stream. */
export const SIGN = `fn sgn(p: u32, i: u32) -> f32 {
  let base = mtab[p * d.nMat + d.mat];
  let w = signs[base + (i >> 5u)];
  return f32((w >> (i & 31u)) & 1u) * 2.0 - 1.0;
}`;

/**
 * U[m, k] = sum_i X[m, i] G(i, k) for k < rank: a row's projection on the low-rank factor G the
 * next product does not hold (bits at d.gOff + i * rank + k). One workgroup per row.
 */
const PROJECT_BODY = `
  var<workgroup> part: array<f32, 64>;
  fn project(m: u32, p: u32, li: u32, width: u32) {
    for (var k = 0u; k < d.rank; k++) {
      var s = 0.0;
      for (var i = li; i < width; i += 64u) { s += Y[m * width + i] * sgn(p, d.gOff + i * d.rank + k); }
      part[li] = s;
      workgroupBarrier();
      for (var h = 32u; h > 0u; h >>= 1u) {
        if (li < h) { part[li] += part[li + h]; }
        workgroupBarrier();
      }
      if (li == 0u) { U[m * d.rank + k] = part[0]; }
      workgroupBarrier();
    }
  }`;

const ROW_BINDINGS = `@group(0) @binding(3) var<storage, read_write> Y: array<f32>;
@group(0) @binding(5) var<storage, read_write> U: array<f32>;
@group(0) @binding(6) var<storage, read> signs: array<u32>;
@group(0) @binding(7) var<storage, read> mtab: array<u32>;`;

/** The row of a 2-D dispatch of one workgroup per row (rows beyond 65,535 wrap into y). */
const ROW = "let m = wg.y * 65535u + wg.x;";

/** U = X G alone (inputs of attention and MLP output projections). */
export const PROJECT_WGSL = `${DIMS}
${ROW_BINDINGS}
${SIGN}
${PROJECT_BODY}
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  ${ROW}
  if (m >= d.M) { return; }
  project(m, (m + d.rowBase) / d.tokensPerPert, li, d.N);
}
`;

/**
 * Y = LayerNorm(X) (or RMSNorm, flags bit 0) with the perturbation's gamma and beta (vecs at gammaOff, biasOff), then, if
 * rank > 0, U = Y G for the next product. Width d.N; eps in the scales buffer's last word.
 */
export const LAYERNORM_WGSL = `${DIMS}
@group(0) @binding(1) var<storage, read> X: array<f32>;
${ROW_BINDINGS}
@group(0) @binding(4) var<storage, read> vecs: array<f32>;
@group(0) @binding(8) var<storage, read> scales: array<f32>;
${SIGN}
${PROJECT_BODY}
var<workgroup> red: array<f32, 64>;
fn total(v: f32, li: u32) -> f32 {
  red[li] = v;
  workgroupBarrier();
  for (var h = 32u; h > 0u; h >>= 1u) {
    if (li < h) { red[li] += red[li + h]; }
    workgroupBarrier();
  }
  let s = red[0];
  workgroupBarrier();
  return s;
}
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  ${ROW}
  if (m >= d.M) { return; }
  let p = (m + d.rowBase) / d.tokensPerPert;
  let w = d.N;
  let rms = (d.flags & 1u) != 0u;
  var s = 0.0;
  for (var i = li; i < w; i += 64u) { s += X[m * w + i]; }
  let mean = select(total(s, li) / f32(w), 0.0, rms);
  var q = 0.0;
  for (var i = li; i < w; i += 64u) { let c = X[m * w + i] - mean; q += c * c; }
  let inv = inverseSqrt(total(q, li) / f32(w) + scales[d.K]);
  let v = p * d.vecStride;
  for (var i = li; i < w; i += 64u) {
    var yi = (X[m * w + i] - mean) * inv * vecs[v + d.gammaOff + i];
    if (!rms) { yi += vecs[v + d.biasOff + i]; }
    Y[m * w + i] = yi;
  }
  if (d.rank > 0u) {
    workgroupBarrier();
    project(m, p, li, w);
  }
}
`;

/**
 * X[m] = wte[id] + wpe[pos] + s_p (A_wte[id] B_wte^T + A_wpe[pos] B_wpe^T): the embedding of
 * token row m (ids and positions in IDS: [id, pos] pairs; pos + d.posOff is the position table's
 * row: OPT's table starts at 2). With flags bit 1 (RoPE models) there is no position table: WPE
 * is bound but not read. Matrix d.mat is wte, d.mat + 1 wpe;
 * d.fOff and d.gOff are the B offsets (bits) of wte and wpe.
 */
export const EMBED_WGSL = `${DIMS}
@group(0) @binding(1) var<storage, read> IDS: array<u32>;
@group(0) @binding(2) var<storage, read> WTE: array<f32>;
@group(0) @binding(3) var<storage, read_write> X: array<f32>;
@group(0) @binding(4) var<storage, read> WPE: array<f32>;
@group(0) @binding(6) var<storage, read> signs: array<u32>;
@group(0) @binding(7) var<storage, read> mtab: array<u32>;
@group(0) @binding(8) var<storage, read> scales: array<f32>;
fn sgnOf(p: u32, mat: u32, i: u32) -> f32 {
  let w = signs[mtab[p * d.nMat + mat] + (i >> 5u)];
  return f32((w >> (i & 31u)) & 1u) * 2.0 - 1.0;
}
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  ${ROW}
  if (m >= d.M) { return; }
  let p = (m + d.rowBase) / d.tokensPerPert;
  let id = IDS[2u * m];
  let pos = IDS[2u * m + 1u] + d.posOff;
  let noPositions = (d.flags & 2u) != 0u;
  let s = scales[p];
  for (var i = li; i < d.N; i += 64u) {
    var lr = 0.0;
    var x = WTE[id * d.N + i];
    for (var k = 0u; k < d.rank; k++) { lr += sgnOf(p, d.mat, id * d.rank + k) * sgnOf(p, d.mat, d.fOff + i * d.rank + k); }
    if (!noPositions) {
      for (var k = 0u; k < d.rank; k++) { lr += sgnOf(p, d.mat + 1u, pos * d.rank + k) * sgnOf(p, d.mat + 1u, d.gOff + i * d.rank + k); }
      x += WPE[pos * d.N + i];
    }
    X[m * d.N + i] = x + s * lr;
  }
}
`;

/**
 * Causal attention over QKV [M, (heads + 2 kvHeads) * hd] (queries, keys, values; kv head
 * h / (heads / kvHeads) serves query head h) into O [M, heads * hd], head width
 * `hd` (a multiple of 4) compiled in: one workgroup per (sequence, head), one thread per query
 * (queries beyond 64 loop), keys and values staged through workgroup memory 16 at a time as vec4,
 * online softmax. Padded keys (KEYMASK 0) are skipped.
 */
export function attentionWgsl(hd: number): string {
  const h4 = hd / 4;
  return `${DIMS}
@group(0) @binding(1) var<storage, read> QKV: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> KEYMASK: array<u32>;
@group(0) @binding(3) var<storage, read_write> O: array<vec4<f32>>;
const KB = 16u;
const H4 = ${h4}u;
var<workgroup> Ks: array<vec4<f32>, ${16 * h4}>;
var<workgroup> Vs: array<vec4<f32>, ${16 * h4}>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let seq = wg.x;
  let h = wg.y;
  let T = d.T;
  let q4 = d.heads * H4;
  let row4 = (d.heads + 2u * d.kvHeads) * H4;
  let kvh = h / (d.heads / d.kvHeads);
  let k4 = q4 + kvh * H4;
  let v4 = q4 + (d.kvHeads + kvh) * H4;
  let row0 = seq * T;
  let scale = inverseSqrt(f32(${hd}));
  for (var q0 = 0u; q0 < T; q0 += 64u) {
    let q = q0 + li;
    let live = q < T;
    var qv: array<vec4<f32>, ${h4}>;
    var acc: array<vec4<f32>, ${h4}>;
    for (var c = 0u; c < H4; c++) {
      qv[c] = select(vec4<f32>(0.0), QKV[(row0 + min(q, T - 1u)) * row4 + h * H4 + c] * scale, live);
      acc[c] = vec4<f32>(0.0);
    }
    var mx = -3.0e38;
    var l = 0.0;
    let last = min(q0 + 64u, T);
    for (var k0 = 0u; k0 < last; k0 += KB) {
      workgroupBarrier();
      for (var i = li; i < KB * H4; i += 64u) {
        let kk = k0 + i / H4;
        let c = i % H4;
        let r = (row0 + min(kk, T - 1u)) * row4;
        Ks[i] = QKV[r + k4 + c];
        Vs[i] = QKV[r + v4 + c];
      }
      workgroupBarrier();
      if (live) {
        for (var j = 0u; j < KB; j++) {
          let kk = k0 + j;
          if (kk > q || KEYMASK[row0 + kk] == 0u) { continue; }
          var s = 0.0;
          for (var c = 0u; c < H4; c++) { s += dot(qv[c], Ks[j * H4 + c]); }
          if (s > mx) {
            let corr = exp(mx - s);
            l *= corr;
            for (var c = 0u; c < H4; c++) { acc[c] *= corr; }
            mx = s;
          }
          let e = exp(s - mx);
          l += e;
          for (var c = 0u; c < H4; c++) { acc[c] += e * Vs[j * H4 + c]; }
        }
      }
    }
    if (live) {
      let inv = select(0.0, 1.0 / l, l > 0.0);
      for (var c = 0u; c < H4; c++) { O[(row0 + q) * q4 + h * H4 + c] = acc[c] * inv; }
    }
  }
}
`;
}

/**
 * Rotary position embedding in place on the query and key heads of QKV rows (Llama's
 * rotate_half form: (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin) over the halves of a head),
 * cos and sin of (position, i) from the host's tables (transformers' float32 angles), d.T
 * positions by d.headDim / 2. One workgroup per row.
 */
export const ROPE_WGSL = `${DIMS}
@group(0) @binding(1) var<storage, read> IDS: array<u32>;
@group(0) @binding(2) var<storage, read> COSSIN: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> QKV: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  ${ROW}
  if (m >= d.M) { return; }
  let pos = IDS[2u * m + 1u];
  let half = d.headDim / 2u;
  let row = m * (d.heads + 2u * d.kvHeads) * d.headDim;
  for (var e = li; e < (d.heads + d.kvHeads) * half; e += 64u) {
    let head = e / half;
    let i = e % half;
    let at = row + head * d.headDim + i;
    let cs = COSSIN[pos * half + i];
    let x1 = QKV[at];
    let x2 = QKV[at + half];
    QKV[at] = x1 * cs.x - x2 * cs.y;
    QKV[at + half] = x2 * cs.x + x1 * cs.y;
  }
}
`;

/**
 * The sign words of P perturbations on the device: word w of perturbation p's block is word j of
 * segment s's stream (the segment holding w: a matrix's A and B bits, Purpose.LowRank, or a
 * vector's, Purpose.Noise), Philox block j / 4 under seed p, exactly rademacherBits' word j.
 * SEGS: (first word, c2) sorted by first word (d.M of them); SEEDS: (k0, k1, k2, 0) per p;
 * d.N words per perturbation.
 */
export const SIGNS_WGSL = `${DIMS}
@group(0) @binding(1) var<storage, read> SEGS: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> SEEDS: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> OUT: array<u32>;
${PHILOX_WGSL}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let w = gid.x;
  let p = gid.y;
  if (w >= d.N) { return; }
  var lo = 0u;
  var hi = d.M - 1u;
  while (lo < hi) {
    let mid = (lo + hi + 1u) >> 1u;
    if (SEGS[mid].x <= w) { lo = mid; } else { hi = mid - 1u; }
  }
  let j = w - SEGS[lo].x;
  let sd = SEEDS[p];
  OUT[p * d.N + w] = philox(j >> 2u, SEGS[lo].y, sd.z, sd.x, sd.y)[j & 3u];
}
`;

/**
 * The next-token loss of logit rows [M, N] (a chunk of rows starting at d.rowBase): NLL[rowBase + m] =
 * logsumexp(row) - row[target], 0 where the target is none (0xffffffff). One workgroup per row.
 */
export const NLL_WGSL = `${DIMS}
@group(0) @binding(1) var<storage, read> L: array<f32>;
@group(0) @binding(2) var<storage, read> TARGET: array<u32>;
@group(0) @binding(3) var<storage, read_write> NLL: array<f32>;
var<workgroup> red: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  ${ROW}
  if (m >= d.M) { return; }
  let g = m + d.rowBase;
  let t = TARGET[g];
  var mx = -3.0e38;
  for (var i = li; i < d.N; i += 256u) { mx = max(mx, L[m * d.N + i]); }
  red[li] = mx;
  workgroupBarrier();
  for (var h = 128u; h > 0u; h >>= 1u) {
    if (li < h) { red[li] = max(red[li], red[li + h]); }
    workgroupBarrier();
  }
  mx = red[0];
  workgroupBarrier();
  var s = 0.0;
  for (var i = li; i < d.N; i += 256u) { s += exp(L[m * d.N + i] - mx); }
  red[li] = s;
  workgroupBarrier();
  for (var h = 128u; h > 0u; h >>= 1u) {
    if (li < h) { red[li] += red[li + h]; }
    workgroupBarrier();
  }
  if (li == 0u) {
    NLL[g] = select(0.0, log(red[0]) + mx - L[m * d.N + min(t, d.N - 1u)], t != 0xffffffffu);
  }
}
`;

/** LOSS[p] = mean NLL over perturbation p's rows with a target (d.M rows in all). */
export const LOSS_WGSL = `${DIMS}
@group(0) @binding(1) var<storage, read> NLL: array<f32>;
@group(0) @binding(2) var<storage, read> TARGET: array<u32>;
@group(0) @binding(3) var<storage, read_write> LOSS: array<f32>;
var<workgroup> red: array<f32, 256>;
var<workgroup> cnt: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let p = wg.x;
  var s = 0.0;
  var c = 0.0;
  for (var i = li; i < d.tokensPerPert; i += 256u) {
    let g = p * d.tokensPerPert + i;
    if (TARGET[g] != 0xffffffffu) { s += NLL[g]; c += 1.0; }
  }
  red[li] = s;
  cnt[li] = c;
  workgroupBarrier();
  for (var h = 128u; h > 0u; h >>= 1u) {
    if (li < h) { red[li] += red[li + h]; cnt[li] += cnt[li + h]; }
    workgroupBarrier();
  }
  if (li == 0u) { LOSS[p] = red[0] / max(cnt[0], 1.0); }
}
`;

/**
 * OUT[p * d.N + i] = BASE[i] + v_p z_i: every vector tensor (biases, norms) perturbed for every
 * perturbation p, z the full-rank Rademacher signs (bits at mtab[p * nMat + mat] + i / 32: each
 * vector's bits start on a word, as its slot in BASE does). v_p in scales[d.P + p] (d.K = P).
 */
export const VECTORS_WGSL = `${DIMS}
@group(0) @binding(1) var<storage, read> BASE: array<f32>;
@group(0) @binding(3) var<storage, read_write> OUT: array<f32>;
@group(0) @binding(6) var<storage, read> signs: array<u32>;
@group(0) @binding(7) var<storage, read> mtab: array<u32>;
@group(0) @binding(8) var<storage, read> scales: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  let p = gid.y;
  if (i >= d.N) { return; }
  let w = signs[mtab[p * d.nMat + d.mat] + (i >> 5u)];
  let z = f32((w >> (i & 31u)) & 1u) * 2.0 - 1.0;
  OUT[p * d.N + i] = BASE[i] + scales[d.K + p] * z;
}
`;
