/**
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11)
 * in integer TypeScript. Counter-based: output is a pure function of (counter, key), so any
 * element of any stream can be generated independently and identically on every machine.
 */
const M0 = 0xd2511f53;
const M1 = 0xcd9e8d57;
const W0 = 0x9e3779b9;
const W1 = 0xbb67ae85;
/** High 32 bits of the 64-bit product of two uint32 (exact: every partial product < 2^53). */
function mulhi(a, b) {
    const al = a & 0xffff;
    const ah = a >>> 16;
    const bl = b & 0xffff;
    const bh = b >>> 16;
    const lh = al * bh;
    const hl = ah * bl;
    const mid = ((al * bl) >>> 16) + (lh & 0xffff) + (hl & 0xffff);
    return (ah * bh + (lh >>> 16) + (hl >>> 16) + (mid >>> 16)) >>> 0;
}
/**
 * One Philox4x32-10 block: writes the 4 output words for counter (c0..c3) and key (k0, k1)
 * into `out` starting at `offset`. Allocation-free, for hot loops.
 */
export function philox4x32(c0, c1, c2, c3, k0, k1, out, offset = 0) {
    let x0 = c0 >>> 0;
    let x1 = c1 >>> 0;
    let x2 = c2 >>> 0;
    let x3 = c3 >>> 0;
    let a = k0 >>> 0;
    let b = k1 >>> 0;
    for (let r = 0; r < 10; r++) {
        const hi0 = mulhi(M0, x0);
        const lo0 = Math.imul(M0, x0) >>> 0;
        const hi1 = mulhi(M1, x2);
        const lo1 = Math.imul(M1, x2) >>> 0;
        x0 = (hi1 ^ x1 ^ a) >>> 0;
        x1 = lo1;
        x2 = (hi0 ^ x3 ^ b) >>> 0;
        x3 = lo0;
        a = (a + W0) >>> 0;
        b = (b + W1) >>> 0;
    }
    out[offset] = x0;
    out[offset + 1] = x1;
    out[offset + 2] = x2;
    out[offset + 3] = x3;
}
/**
 * Fills `out` with consecutive 32-bit words of a stream, starting at word `start`
 * (block = floor(word / 4), counter word 0). Word i of a stream is the same however it is read.
 */
export function fillWords(id, out, start = 0) {
    const block = new Uint32Array(4);
    let i = 0;
    let w = start;
    while (i < out.length) {
        const blk = Math.floor(w / 4);
        philox4x32(blk % 0x100000000, Math.floor(blk / 0x100000000), id.c2, id.c3, id.k0, id.k1, block);
        for (let j = w % 4; j < 4 && i < out.length; j++, i++, w++)
            out[i] = block[j];
    }
}
//# sourceMappingURL=philox.js.map