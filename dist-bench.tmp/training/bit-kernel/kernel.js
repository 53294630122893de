/** Set bits of a 32-bit word, SWAR (no popcount instruction in JS). */
export function popcount32(v) {
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
/** The plain-JS kernel: SWAR popcount on 32-bit words. */
export const jsKernel = {
    name: "js",
    xorPopcount(a, aRows, b, bRows, wpr, mask, out) {
        for (let r = 0; r < aRows; r++) {
            const ao = r * wpr;
            for (let j = 0; j < bRows; j++) {
                const bo = j * wpr;
                let c = 0;
                if (mask === null)
                    for (let k = 0; k < wpr; k++)
                        c += popcount32(a[ao + k] ^ b[bo + k]);
                else
                    for (let k = 0; k < wpr; k++)
                        c += popcount32((a[ao + k] ^ b[bo + k]) & mask[bo + k]);
                out[r * bRows + j] = c;
            }
        }
    },
};
//# sourceMappingURL=kernel.js.map