/**
 * The one operation a one-bit layer needs: for every row a of A and row b of B (packed 32-bit
 * words, `wordsPerRow` each, zero padding bits), the number of set bits of (a XOR b) AND m, with
 * m the matching row of a mask (ternary weights: the non-zero plane) or all ones. With +/-1
 * values stored as bits (set = -1), popcount(a XOR b) counts the products that are -1: 32
 * multiply-adds per word.
 */
export interface PopcountKernel {
  readonly name: "js" | "wasm";
  /**
   * out[r * bRows + j] = popcount((A_r XOR B_j) AND M_j) for r < aRows, j < bRows.
   * `mask` has B's shape, or is null for all ones.
   */
  xorPopcount(
    a: Uint32Array,
    aRows: number,
    b: Uint32Array,
    bRows: number,
    wordsPerRow: number,
    mask: Uint32Array | null,
    out: Int32Array,
  ): void;
}

/** Set bits of a 32-bit word, SWAR (no popcount instruction in JS). */
export function popcount32(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The plain-JS kernel: SWAR popcount on 32-bit words. */
export const jsKernel: PopcountKernel = {
  name: "js",
  xorPopcount(a, aRows, b, bRows, wpr, mask, out) {
    for (let r = 0; r < aRows; r++) {
      const ao = r * wpr;
      for (let j = 0; j < bRows; j++) {
        const bo = j * wpr;
        let c = 0;
        if (mask === null) for (let k = 0; k < wpr; k++) c += popcount32(a[ao + k] ^ b[bo + k]);
        else for (let k = 0; k < wpr; k++) c += popcount32((a[ao + k] ^ b[bo + k]) & mask[bo + k]);
        out[r * bRows + j] = c;
      }
    }
  },
};
