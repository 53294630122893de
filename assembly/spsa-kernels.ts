/**
 * WebAssembly (SIMD) kernels of the canonical SPSA update and the seeded perturbation
 * (AssemblyScript, compiled by `npm run build`). They must give the same bytes as the JavaScript
 * reference in training/algorithms/spsa-update.ts; docs/architecture.md states the rule.
 *
 * Deterministic by construction: integer Philox and integer sums; the only float operations are
 * i32 -> f32 conversion (round to nearest even), f32 multiply and f32 add, each IEEE-rounded
 * (WebAssembly has no fused multiply-add outside relaxed-simd, which is not enabled, and no
 * flush-to-zero). Memory is managed by the caller: every pointer is an offset it chose.
 *
 * Layouts (little-endian, 16-byte records):
 *   step  q: k0 u32, k1 u32, c3 u32, 2 * sign(b) * 2^floor(|b|/8) i32   (steps grouped by class)
 *   class c: steps i32, -sum of the class's sign(b) * 2^floor(|b|/8) i32, C_r f32, unused
 *   sign bits: step q's words for the current tile at bits + 4 * q * TILE_WORDS
 */

const M0: u32 = 0xd2511f53;
const M1: u32 = 0xcd9e8d57;
const W0: u32 = 0x9e3779b9;
const W1: u32 = 0xbb67ae85;

/** Parameters per tile; equals TILE in spsa-update.ts (a multiple of 128, one Philox block). */
const TILE: i32 = 4096;
const TILE_WORDS: i32 = TILE / 32;

/** Start of the memory the caller may use. */
export function heapBase(): usize {
  return (__heap_base + 63) & ~63;
}

/** Tile size, for the caller to check it agrees. */
export function tileParams(): i32 {
  return TILE;
}

function mulhi(x: v128, m: v128): v128 {
  return i32x4.shuffle(i64x2.extmul_low_i32x4_u(x, m), i64x2.extmul_high_i32x4_u(x, m), 1, 3, 5, 7);
}

/** Transposes four lanes of (x0, x1, x2, x3) into four blocks of four consecutive words at p. */
function storeBlocks(p: usize, x0: v128, x1: v128, x2: v128, x3: v128): void {
  const t0 = i32x4.shuffle(x0, x1, 0, 4, 1, 5);
  const t1 = i32x4.shuffle(x2, x3, 0, 4, 1, 5);
  const t2 = i32x4.shuffle(x0, x1, 2, 6, 3, 7);
  const t3 = i32x4.shuffle(x2, x3, 2, 6, 3, 7);
  v128.store(p, i32x4.shuffle(t0, t1, 0, 1, 4, 5));
  v128.store(p, i32x4.shuffle(t0, t1, 2, 3, 6, 7), 16);
  v128.store(p, i32x4.shuffle(t2, t3, 0, 1, 4, 5), 32);
  v128.store(p, i32x4.shuffle(t2, t3, 2, 3, 6, 7), 48);
}

/**
 * Writes the words of Philox blocks firstBlock .. firstBlock + blocks - 1 of the stream
 * (counter (block, 0, c2, c3), key (k0, k1)) to `out`, eight blocks per pass as two independent
 * sets of four SIMD lanes (lane = block), so the rounds' multiply latencies overlap.
 * Writes `blocks` rounded up to a multiple of 8 blocks: scratch must leave room.
 */
export function philoxWords(out: usize, blocks: i32, firstBlock: u32, c2: u32, c3: u32, k0: u32, k1: u32): void {
  const vm0 = i32x4.splat(M0);
  const vm1 = i32x4.splat(M1);
  const lanes = i32x4(0, 1, 2, 3);
  const vc2 = i32x4.splat(c2);
  const vc3 = i32x4.splat(c3);
  const zero = i32x4.splat(0);
  for (let b: i32 = 0; b < blocks; b += 8) {
    let x0 = i32x4.add(i32x4.splat(firstBlock + <u32>b), lanes);
    let x1 = zero;
    let x2 = vc2;
    let x3 = vc3;
    let y0 = i32x4.add(i32x4.splat(firstBlock + <u32>b + 4), lanes);
    let y1 = zero;
    let y2 = vc2;
    let y3 = vc3;
    let ka = k0;
    let kb = k1;
    for (let r = 0; r < 10; r++) {
      const va = i32x4.splat(ka);
      const vb = i32x4.splat(kb);
      const xlo0 = i32x4.mul(x0, vm0);
      const xhi0 = mulhi(x0, vm0);
      const xlo1 = i32x4.mul(x2, vm1);
      const xhi1 = mulhi(x2, vm1);
      const ylo0 = i32x4.mul(y0, vm0);
      const yhi0 = mulhi(y0, vm0);
      const ylo1 = i32x4.mul(y2, vm1);
      const yhi1 = mulhi(y2, vm1);
      x0 = v128.xor(v128.xor(xhi1, x1), va);
      x1 = xlo1;
      x2 = v128.xor(v128.xor(xhi0, x3), vb);
      x3 = xlo0;
      y0 = v128.xor(v128.xor(yhi1, y1), va);
      y1 = ylo1;
      y2 = v128.xor(v128.xor(yhi0, y3), vb);
      y3 = ylo0;
      ka += W0;
      kb += W1;
    }
    const p = out + (<usize>b << 4);
    storeBlocks(p, x0, x1, x2, x3);
    storeBlocks(p + 64, y0, y1, y2, y3);
  }
}

/** Sign-bit selectors of the 16 parameters of half a word, 4 per vector. */
const L0 = i32x4(1, 2, 4, 8);
const L1 = i32x4(16, 32, 64, 128);
const L2 = i32x4(256, 512, 1024, 2048);
const L3 = i32x4(4096, 8192, 16384, 32768);

/**
 * Update of 32 parameters at p, tile parameters i .. i + 31 (i a multiple of 32): one sign word
 * per step. The eight class accumulators stay in registers while a class's steps are summed.
 */
function update32(p: usize, i: i32, steps: usize, classes: usize, nClasses: i32, bits: usize): void {
  const word = <usize>(i >> 5) << 2;
  let d0 = f32x4.splat(-0.0);
  let d1 = d0;
  let d2 = d0;
  let d3 = d0;
  let d4 = d0;
  let d5 = d0;
  let d6 = d0;
  let d7 = d0;
  let q: i32 = 0;
  for (let c: i32 = 0; c < nClasses; c++) {
    const rec = classes + (<usize>c << 4);
    const end = q + load<i32>(rec);
    let a0 = i32x4.splat(load<i32>(rec, 4));
    let a1 = a0;
    let a2 = a0;
    let a3 = a0;
    let a4 = a0;
    let a5 = a0;
    let a6 = a0;
    let a7 = a0;
    for (; q < end; q++) {
      const bw = load<u32>(bits + ((<usize>q * TILE_WORDS) << 2) + word);
      const x = i32x4.splat(bw);
      const y = i32x4.splat(bw >>> 16);
      const v = i32x4.splat(load<i32>(steps + (<usize>q << 4), 12));
      a0 = i32x4.add(a0, v128.and(v, i32x4.eq(v128.and(x, L0), L0)));
      a1 = i32x4.add(a1, v128.and(v, i32x4.eq(v128.and(x, L1), L1)));
      a2 = i32x4.add(a2, v128.and(v, i32x4.eq(v128.and(x, L2), L2)));
      a3 = i32x4.add(a3, v128.and(v, i32x4.eq(v128.and(x, L3), L3)));
      a4 = i32x4.add(a4, v128.and(v, i32x4.eq(v128.and(y, L0), L0)));
      a5 = i32x4.add(a5, v128.and(v, i32x4.eq(v128.and(y, L1), L1)));
      a6 = i32x4.add(a6, v128.and(v, i32x4.eq(v128.and(y, L2), L2)));
      a7 = i32x4.add(a7, v128.and(v, i32x4.eq(v128.and(y, L3), L3)));
    }
    const coef = f32x4.splat(load<f32>(rec, 8));
    d0 = f32x4.add(d0, f32x4.mul(f32x4.convert_i32x4_s(a0), coef));
    d1 = f32x4.add(d1, f32x4.mul(f32x4.convert_i32x4_s(a1), coef));
    d2 = f32x4.add(d2, f32x4.mul(f32x4.convert_i32x4_s(a2), coef));
    d3 = f32x4.add(d3, f32x4.mul(f32x4.convert_i32x4_s(a3), coef));
    d4 = f32x4.add(d4, f32x4.mul(f32x4.convert_i32x4_s(a4), coef));
    d5 = f32x4.add(d5, f32x4.mul(f32x4.convert_i32x4_s(a5), coef));
    d6 = f32x4.add(d6, f32x4.mul(f32x4.convert_i32x4_s(a6), coef));
    d7 = f32x4.add(d7, f32x4.mul(f32x4.convert_i32x4_s(a7), coef));
  }
  v128.store(p, f32x4.add(v128.load(p), d0));
  v128.store(p, f32x4.add(v128.load(p, 16), d1), 16);
  v128.store(p, f32x4.add(v128.load(p, 32), d2), 32);
  v128.store(p, f32x4.add(v128.load(p, 48), d3), 48);
  v128.store(p, f32x4.add(v128.load(p, 64), d4), 64);
  v128.store(p, f32x4.add(v128.load(p, 80), d5), 80);
  v128.store(p, f32x4.add(v128.load(p, 96), d6), 96);
  v128.store(p, f32x4.add(v128.load(p, 112), d7), 112);
}

/** Fills each step's sign words for `len` parameters of a tile starting at block `firstBlock`. */
function stepSigns(steps: usize, nSteps: i32, bits: usize, firstBlock: u32, c2: u32, len: i32): void {
  const blocks = (len + 127) >> 7;
  for (let q: i32 = 0; q < nSteps; q++) {
    const s = steps + (<usize>q << 4);
    philoxWords(bits + ((<usize>q * TILE_WORDS) << 2), blocks, firstBlock, c2, load<u32>(s, 8), load<u32>(s), load<u32>(s, 4));
  }
}

/**
 * The canonical update of n parameters of one tensor at w, the tensor's parameters from
 * 128 * firstBlock on; c2 is the tensor's noise stream word. `tail` is 128 bytes of scratch.
 */
export function applyRange(
  w: usize, n: i32, firstBlock: u32, c2: u32,
  steps: usize, nSteps: i32, classes: usize, nClasses: i32, bits: usize, tail: usize,
): void {
  for (let start: i32 = 0; start < n; start += TILE) {
    const len = min(TILE, n - start);
    stepSigns(steps, nSteps, bits, firstBlock + <u32>(start >> 7), c2, len);
    const base = w + (<usize>start << 2);
    const full = len & ~31;
    for (let i: i32 = 0; i < full; i += 32) update32(base + (<usize>i << 2), i, steps, classes, nClasses, bits);
    if (full < len) {
      const rest = <usize>(len - full) << 2;
      memory.fill(tail, 0, 128);
      memory.copy(tail, base + (<usize>full << 2), rest);
      update32(tail, full, steps, classes, nClasses, bits);
      memory.copy(base + (<usize>full << 2), tail, rest);
    }
  }
}

/** out = w + e z for 16 parameters, tile parameters i .. i + 15. */
function perturb16(out: usize, w: usize, i: i32, bits: usize, pos: v128, neg: v128): void {
  const x = i32x4.splat(load<u32>(bits + (<usize>(i >> 5) << 2)) >>> <u32>(i & 16));
  v128.store(out, f32x4.add(v128.load(w), v128.bitselect(pos, neg, i32x4.eq(v128.and(x, L0), L0))));
  v128.store(out, f32x4.add(v128.load(w, 16), v128.bitselect(pos, neg, i32x4.eq(v128.and(x, L1), L1))), 16);
  v128.store(out, f32x4.add(v128.load(w, 32), v128.bitselect(pos, neg, i32x4.eq(v128.and(x, L2), L2))), 32);
  v128.store(out, f32x4.add(v128.load(w, 48), v128.bitselect(pos, neg, i32x4.eq(v128.and(x, L3), L3))), 48);
}

/**
 * out = w + e z for n parameters of one tensor (from 128 * firstBlock on), z the Rademacher
 * signs of stream (c2, c3, k0, k1); e = +eps or -eps. `tail` is 128 bytes of scratch.
 */
export function perturbRange(
  out: usize, w: usize, n: i32, firstBlock: u32,
  c2: u32, c3: u32, k0: u32, k1: u32, e: f32, bits: usize, tail: usize,
): void {
  const pos = f32x4.splat(e);
  const neg = f32x4.splat(-e);
  for (let start: i32 = 0; start < n; start += TILE) {
    const len = min(TILE, n - start);
    philoxWords(bits, (len + 127) >> 7, firstBlock + <u32>(start >> 7), c2, c3, k0, k1);
    const off = <usize>start << 2;
    const full = len & ~15;
    for (let i: i32 = 0; i < full; i += 16) {
      const o = off + (<usize>i << 2);
      perturb16(out + o, w + o, i, bits, pos, neg);
    }
    if (full < len) {
      const o = off + (<usize>full << 2);
      const rest = <usize>(len - full) << 2;
      memory.fill(tail, 0, 64);
      memory.copy(tail, w + o, rest);
      perturb16(tail + 64, tail, full, bits, pos, neg);
      memory.copy(out + o, tail + 64, rest);
    }
  }
}

/**
 * The low-rank canonical update of a block of one weight matrix: rows x cols floats at w (row
 * stride `stride` floats) get, per entry, the float32 sum from -0 over the classes of
 * f(S_c * C_c), S_c = sum over the class's k of av[i][k] * bt[k][j], then w += that sum.
 * av: rows x K (row stride K), bt: K x cols (row stride `btStride`), classes: 16-byte records
 * (first k i32, count i32, C_c f32, unused). The caller guarantees that every partial sum is an
 * integer below 2^24 (lowrank.ts exactInFloat32), so the f32 sums are exact in any order and the
 * result is the JavaScript loops' bits: the same f32 multiplies and adds, IEEE-rounded, no FMA.
 */
export function lowRankBlock(
  w: usize, rows: i32, cols: i32, stride: i32,
  av: usize, K: i32, bt: usize, btStride: i32, classes: usize, nClasses: i32,
): void {
  const wide = cols & ~15;
  const narrow = cols & ~3;
  for (let i: i32 = 0; i < rows; i++) {
    const wr = w + (<usize>(i * stride) << 2);
    const ar = av + (<usize>(i * K) << 2);
    let j: i32 = 0;
    for (; j < wide; j += 16) {
      let d0 = f32x4.splat(-0.0);
      let d1 = d0;
      let d2 = d0;
      let d3 = d0;
      for (let c: i32 = 0; c < nClasses; c++) {
        const rec = classes + (<usize>c << 4);
        const k0 = load<i32>(rec);
        const k1 = k0 + load<i32>(rec, 4);
        let s0 = f32x4.splat(0);
        let s1 = s0;
        let s2 = s0;
        let s3 = s0;
        for (let k = k0; k < k1; k++) {
          const a = f32x4.splat(load<f32>(ar + (<usize>k << 2)));
          const b = bt + (<usize>(k * btStride + j) << 2);
          s0 = f32x4.add(s0, f32x4.mul(a, v128.load(b)));
          s1 = f32x4.add(s1, f32x4.mul(a, v128.load(b, 16)));
          s2 = f32x4.add(s2, f32x4.mul(a, v128.load(b, 32)));
          s3 = f32x4.add(s3, f32x4.mul(a, v128.load(b, 48)));
        }
        const coef = f32x4.splat(load<f32>(rec, 8));
        d0 = f32x4.add(d0, f32x4.mul(s0, coef));
        d1 = f32x4.add(d1, f32x4.mul(s1, coef));
        d2 = f32x4.add(d2, f32x4.mul(s2, coef));
        d3 = f32x4.add(d3, f32x4.mul(s3, coef));
      }
      const p = wr + (<usize>j << 2);
      v128.store(p, f32x4.add(v128.load(p), d0));
      v128.store(p, f32x4.add(v128.load(p, 16), d1), 16);
      v128.store(p, f32x4.add(v128.load(p, 32), d2), 32);
      v128.store(p, f32x4.add(v128.load(p, 48), d3), 48);
    }
    for (; j < narrow; j += 4) {
      let d = f32x4.splat(-0.0);
      for (let c: i32 = 0; c < nClasses; c++) {
        const rec = classes + (<usize>c << 4);
        const k0 = load<i32>(rec);
        const k1 = k0 + load<i32>(rec, 4);
        let s = f32x4.splat(0);
        for (let k = k0; k < k1; k++) {
          s = f32x4.add(s, f32x4.mul(f32x4.splat(load<f32>(ar + (<usize>k << 2))), v128.load(bt + (<usize>(k * btStride + j) << 2))));
        }
        d = f32x4.add(d, f32x4.mul(s, f32x4.splat(load<f32>(rec, 8))));
      }
      const p = wr + (<usize>j << 2);
      v128.store(p, f32x4.add(v128.load(p), d));
    }
    for (; j < cols; j++) {
      let d: f32 = -0.0;
      for (let c: i32 = 0; c < nClasses; c++) {
        const rec = classes + (<usize>c << 4);
        const k0 = load<i32>(rec);
        const k1 = k0 + load<i32>(rec, 4);
        let s: f32 = 0;
        for (let k = k0; k < k1; k++) s += load<f32>(ar + (<usize>k << 2)) * load<f32>(bt + (<usize>(k * btStride + j) << 2));
        d += s * load<f32>(rec, 8);
      }
      const p = wr + (<usize>j << 2);
      store<f32>(p, load<f32>(p) + d);
    }
  }
}
