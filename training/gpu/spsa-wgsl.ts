/**
 * WGSL of the canonical SPSA update and the seeded perturbation: the same bytes as the JavaScript
 * reference (training/algorithms/spsa-update.ts) on any WebGPU device, by construction.
 *
 * - Noise: Philox4x32-10 in 32-bit integer arithmetic (mulhi from 16-bit halves), the same stream
 *   as philox.ts: parameter i of tensor t under seed s is bit (i mod 32) of word (i >> 5) & 3 of
 *   block (i >> 7), counter (block, 0, c2 = Noise << 24 | t, c3 = s.k2), key (s.k0, s.k1).
 * - Update: the class sums S_r are exact int32 sums. The product f(f(S_r) * C_r) is formed in
 *   INTEGER arithmetic: |S_r| rounded to 24 bits (nearest even, what Math.fround does), times C_r's
 *   24-bit mantissa as a 48-bit integer, rounded once to 24 bits (nearest even) and assembled as
 *   float32 bits. So the shader has no float multiply that a compiler could fuse with the add
 *   that follows (WGSL lets compilers contract a * b + c), and no int-to-float conversion (whose
 *   rounding WGSL leaves to the implementation). The only float operations are single adds,
 *   correctly rounded in WGSL: d = d + p per class, ascending r, then w = w + d.
 * - Subnormals: WGSL may flush them. The host only dispatches when 2^-60 <= |C_r| <= 2^60 and
 *   2^-60 <= |eps|; then every product, every non-zero d and every result of an add is normal, a
 *   subnormal weight cannot change the rounding of w + d (|w| < 2^-126 is below half an ulp of
 *   any non-zero d), and d = 0 leaves w as it is except -0 + +0 = +0, written out explicitly.
 */

/** Philox4x32-10 in 32-bit integer arithmetic: philox(c0, c2, c3, k0, k1) is philox.ts's block (c0, 0, c2, c3) under key (k0, k1). */
export const PHILOX_WGSL = /* wgsl */ `
fn mulhi(a: u32, b: u32) -> u32 {
  let al = a & 0xffffu; let ah = a >> 16u; let bl = b & 0xffffu; let bh = b >> 16u;
  let lh = al * bh; let hl = ah * bl;
  let mid = ((al * bl) >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
  return ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u);
}

fn philox(c0: u32, c2: u32, c3: u32, k0: u32, k1: u32) -> vec4<u32> {
  var x = vec4<u32>(c0, 0u, c2, c3);
  var a = k0; var b = k1;
  for (var r = 0u; r < 10u; r++) {
    let hi0 = mulhi(0xd2511f53u, x.x); let lo0 = 0xd2511f53u * x.x;
    let hi1 = mulhi(0xcd9e8d57u, x.z); let lo1 = 0xcd9e8d57u * x.z;
    x = vec4<u32>(hi1 ^ x.y ^ a, lo1, hi0 ^ x.w ^ b, lo0);
    a += 0x9e3779b9u; b += 0xbb67ae85u;
  }
  return x;
}
`;

/** Philox4x32-10 and helpers shared by both kernels. */
const COMMON = /* wgsl */ `
struct Tensor { offset: u32, size: u32, c2: u32, firstWord: u32 }
@group(0) @binding(1) var<storage, read> tensors: array<Tensor>;

${PHILOX_WGSL}
/** Which tensor holds global sign word g (tensors sorted by firstWord). */
fn tensorOf(g: u32, n: u32) -> u32 {
  var lo = 0u; var hi = n - 1u;
  while (lo < hi) {
    let mid = (lo + hi + 1u) >> 1u;
    if (tensors[mid].firstWord <= g) { lo = mid; } else { hi = mid - 1u; }
  }
  return lo;
}

/** The sign word of parameters 32 w .. 32 w + 31 of a tensor's stream. */
fn signWord(w: u32, c2: u32, k0: u32, k1: u32, k2: u32) -> u32 {
  return philox(w >> 2u, c2, k2, k0, k1)[w & 3u];
}
`;

/** Workgroup size of both kernels; the host dispatches a 2-D grid of these. */
export const WORKGROUP = 64;
/** Workgroups along x before the grid wraps into y (WebGPU guarantees 65,535 per dimension). */
export const GRID_X = 32768;

export const UPDATE_WGSL = /* wgsl */ `
${COMMON}
struct Params { nTensors: u32, nClasses: u32, words: u32, gridX: u32 }
/** Per step: k0, k1, k2 of its seed and 2 sign(b) 2^floor(|b|/8) as i32 bits; grouped by class. */
@group(0) @binding(0) var<storage, read_write> w: array<f32>;
@group(0) @binding(2) var<storage, read> steps: array<vec4<u32>>;
/** Per class: steps, -sum of its v (i32 bits), C_r's sign bit | 24-bit mantissa, C_r's exponent (i32 bits: C_r = m 2^e). */
@group(0) @binding(3) var<storage, read> classes: array<vec4<u32>>;
@group(0) @binding(4) var<uniform> params: Params;

/** |x| rounded to nearest even at 24 significant bits: (mantissa, exponent), x != 0. */
fn round24(hi: u32, lo: u32) -> vec2<u32> {
  var top: u32;
  if (hi != 0u) { top = 32u + firstLeadingBit(hi); } else { top = firstLeadingBit(lo); }
  if (top <= 23u) { return vec2<u32>(lo, 0u); }
  let sh = top - 23u; // at most 25: hi < 2^17
  var m = (lo >> sh) | (hi << (32u - sh));
  let rem = lo & ((1u << sh) - 1u);
  let half = 1u << (sh - 1u);
  if (rem > half || (rem == half && (m & 1u) == 1u)) { m += 1u; }
  return vec2<u32>(m, sh);
}

/** f(f(s) * C) as float32 bits, in integer arithmetic. */
fn product(s: i32, cls: vec4<u32>) -> f32 {
  let csign = cls.z & 0x80000000u;
  if (s == 0) { return bitcast<f32>(csign); }
  let sign = select(0u, 0x80000000u, s < 0) ^ csign;
  let a = round24(0u, u32(abs(s)));
  let cm = cls.z & 0xffffffu;
  let p = round24(mulhi(a.x, cm), a.x * cm);
  var m = p.x; var e = i32(p.y + a.y) + bitcast<i32>(cls.w);
  if (m == 0x1000000u) { m = 0x800000u; e += 1; }
  return bitcast<f32>(sign | (u32(e + 150) << 23u) | (m & 0x7fffffu));
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let g = (wg.y * params.gridX + wg.x) * ${WORKGROUP}u + li;
  if (g >= params.words) { return; }
  let t = tensors[tensorOf(g, params.nTensors)];
  let word = g - t.firstWord;
  let n = min(32u, t.size - 32u * word);
  var d: array<f32, 32>;
  var s: array<i32, 32>;
  for (var j = 0u; j < 32u; j++) { d[j] = bitcast<f32>(0x80000000u); }
  var q = 0u;
  for (var c = 0u; c < params.nClasses; c++) {
    let cls = classes[c];
    for (var j = 0u; j < 32u; j++) { s[j] = bitcast<i32>(cls.y); }
    let end = q + cls.x;
    for (; q < end; q++) {
      let st = steps[q];
      let bits = signWord(word, t.c2, st.x, st.y, st.z);
      let v2 = bitcast<i32>(st.w);
      for (var j = 0u; j < 32u; j++) { s[j] += select(0, v2, ((bits >> j) & 1u) == 1u); }
    }
    for (var j = 0u; j < 32u; j++) { d[j] = d[j] + product(s[j], cls); }
  }
  let base = t.offset + 32u * word;
  for (var j = 0u; j < n; j++) {
    let x = w[base + j];
    if (bitcast<u32>(d[j]) & 0x7fffffffu) == 0u {
      // w + (+-0) = w, except -0 + +0 = +0; said without an add so a subnormal w is not flushed.
      if (bitcast<u32>(x) == 0x80000000u && bitcast<u32>(d[j]) == 0u) { w[base + j] = 0.0; }
    } else {
      w[base + j] = x + d[j];
    }
  }
}
`;

export const PERTURB_WGSL = /* wgsl */ `
${COMMON}
struct Params { nTensors: u32, words: u32, gridX: u32, e: f32, k0: u32, k1: u32, k2: u32, pad: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let g = (wg.y * params.gridX + wg.x) * ${WORKGROUP}u + li;
  if (g >= params.words) { return; }
  let t = tensors[tensorOf(g, params.nTensors)];
  let word = g - t.firstWord;
  let n = min(32u, t.size - 32u * word);
  let bits = signWord(word, t.c2, params.k0, params.k1, params.k2);
  let base = t.offset + 32u * word;
  for (var j = 0u; j < n; j++) {
    out[base + j] = w[base + j] + select(-params.e, params.e, ((bits >> j) & 1u) == 1u);
  }
}
`;
