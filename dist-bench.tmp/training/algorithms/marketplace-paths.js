/**
 * Which products a Marketplace author computes, and the path (one vendor per spec) behind each.
 * Contribute and apply both derive it from the spec (and, with upstream sampling, from the
 * author's upstream seed), so a V2 payload only carries losses in this order.
 *
 * Spec 0: product v is vendor v on the batch. Spec s > 0: vendor v takes the upstream products
 * I_v (all of them, or `upstreamSampling` of them chosen by its seed, ascending) and gives
 * product v * |I_v| + j from upstream product I_v[j]. The last spec's products are the paths.
 */
import { marketplaceProducts } from "../../protocol/algorithm-spec.js";
import { fillUniformInt } from "../rng/noise.js";
import { Purpose, streamOf } from "../rng/seeds.js";
/** `count` indices of 0..n-1 chosen by a seeded stream (sorted random keys), ascending. */
function sample(seed, sub, n, count) {
    const keys = new Uint32Array(n);
    fillUniformInt(streamOf(seed, Purpose.Upstream, sub), 0x100000000, keys);
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a] - keys[b] || a - b);
    return Uint32Array.from(order.slice(0, count)).sort();
}
/**
 * The plan for a split; `upstream` is the author's upstream seed, needed only with sampling.
 * @throws RangeError when the spec samples upstream products and no seed is given.
 */
export function planPaths(a, upstream) {
    const m = a.vendors;
    const n = a.specs.length;
    const products = marketplaceProducts(a);
    const inputs = [];
    const takesAll = [];
    let prev = new Uint8Array(0); // paths of the previous spec's products, row-major
    for (let s = 0; s < n; s++) {
        const k = s === 0 ? 1 : products[s - 1];
        const take = products[s] / m;
        const all = take === k;
        if (!all && !upstream)
            throw new RangeError("upstream sampling needs the author's seed");
        const mine = Array.from({ length: m }, (_, v) => all ? Uint32Array.from({ length: k }, (_, i) => i) : sample(upstream, (s << 8) | v, k, take));
        const next = new Uint8Array(products[s] * (s + 1));
        for (let v = 0; v < m; v++) {
            for (let j = 0; j < take; j++) {
                const p = v * take + j;
                const from = mine[v][j];
                next.set(prev.subarray(from * s, from * s + s), p * (s + 1));
                next[p * (s + 1) + s] = v;
            }
        }
        inputs.push(mine);
        takesAll.push(all);
        prev = next;
    }
    return { products, inputs, takesAll, paths: prev, specs: n };
}
/** Index of the path through vendor 0 everywhere (the current weights), or -1 if not evaluated. */
export function basePathIndex(plan) {
    const { paths, specs } = plan;
    for (let j = 0; j * specs < paths.length; j++) {
        let zero = true;
        for (let s = 0; s < specs && zero; s++)
            zero = paths[j * specs + s] === 0;
        if (zero)
            return j;
    }
    return -1;
}
//# sourceMappingURL=marketplace-paths.js.map