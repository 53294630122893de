/**
 * In-memory datasets and the two ways training reads them: seeded random minibatches (every
 * replica draws the same rows for the same seed) and consecutive slices for evaluation.
 */
import { SeedswarmError } from "../../protocol/errors.js";
import { fillUniformInt } from "../rng/noise.js";
import { Purpose, streamOf } from "../rng/seeds.js";
export class DatasetError extends SeedswarmError {
}
/** Floats per example: h * w * c. */
export function featuresOf(ds) {
    const [h, w, c] = ds.inputShape;
    return h * w * c;
}
function checkSplit(split, features) {
    if (!Number.isInteger(features) || features < 1 || split.x.length !== split.n * features) {
        throw new DatasetError("DATASET_BAD_ARGUMENT", `split of ${split.n} examples has ${split.x.length} floats, not ${split.n} x ${features} features`, { n: split.n, floats: split.x.length, features });
    }
}
function checkSize(size, what) {
    if (!Number.isInteger(size) || size < 0) {
        throw new DatasetError("DATASET_BAD_ARGUMENT", `${what} must be a non-negative integer: ${size}`, {
            [what]: size,
        });
    }
}
/**
 * Indices of `size` examples out of `n`, drawn with replacement from the seed's Batch stream: how
 * every task picks a minibatch, whatever its examples are.
 */
export function sampleIndices(n, seed, size) {
    if (!(Number.isInteger(n) && n >= 1))
        throw new DatasetError("DATASET_BAD_ARGUMENT", `cannot sample from ${n} examples`);
    const idx = new Uint32Array(size);
    fillUniformInt(streamOf(seed, Purpose.Batch, 0), n, idx);
    return idx;
}
/**
 * A minibatch of `size` rows drawn with replacement from the seed's Batch stream. Depends only on
 * (split, seed, size), so every replica that recomputes a seed gets the same batch.
 * @param into where the rows go (its first size * features floats; the batch's x is a view of
 *   it), for a caller that copies each batch away before the next, e.g. into a tfjs-wasm tensor:
 *   a fresh 0.4 MB array per MNIST batch made drawing 2 to 5 times slower (page faults and
 *   collection). A fresh array when omitted.
 * @throws DatasetError when the split is empty or `features`/`size`/`into` do not fit it.
 */
export function sampleBatch(split, features, seed, size, into) {
    checkSplit(split, features);
    checkSize(size, "size");
    if (split.n < 1)
        throw new DatasetError("DATASET_BAD_ARGUMENT", "cannot sample from an empty split");
    const floats = size * features;
    if (into && into.length < floats) {
        throw new DatasetError("DATASET_BAD_ARGUMENT", `output array of ${into.length} floats is shorter than ${size} x ${features} features`, { floats: into.length, size, features });
    }
    const idx = sampleIndices(split.n, seed, size);
    const x = into ? into.subarray(0, floats) : new Float32Array(floats);
    const y = new Uint8Array(size);
    for (let i = 0; i < size; i++) {
        const r = idx[i];
        // set() of a row view is one memcpy; an element loop or cached row views measured slower.
        x.set(split.x.subarray(r * features, (r + 1) * features), i * features);
        y[i] = split.y[r];
    }
    return { x, y, size };
}
/**
 * Rows [start, start + size) of a split, clipped at its end; for evaluation. The arrays are views
 * into the split, not copies, so callers must not write to them.
 * @throws DatasetError when `start` is outside [0, n] or `features`/`size` do not fit.
 */
export function sliceBatch(split, features, start, size) {
    checkSplit(split, features);
    checkSize(size, "size");
    checkSize(start, "start");
    if (start > split.n) {
        throw new DatasetError("DATASET_BAD_ARGUMENT", `slice start ${start} is past the split's ${split.n} rows`, {
            start,
            n: split.n,
        });
    }
    const end = Math.min(start + size, split.n);
    return {
        x: split.x.subarray(start * features, end * features),
        y: split.y.subarray(start, end),
        size: end - start,
    };
}
/**
 * [h, w, c] of one example of an IDX image array with dims [n, h, w] or [n, h, w, c].
 * @throws DatasetError for any other rank.
 */
export function inputShapeOf(images, name) {
    const d = images.dims;
    if (d.length === 3)
        return [d[1], d[2], 1];
    if (d.length === 4)
        return [d[1], d[2], d[3]];
    throw new DatasetError("DATASET_BAD_SHAPE", `${name}: images must have dims [n, h, w] or [n, h, w, c], found [${d.join(", ")}]`, { name, dims: d });
}
/**
 * Builds a Split from IDX images ([n, h, w] or [n, h, w, c]) and labels ([n]), scaling bytes to
 * value / 255. `name` (e.g. "mnist/train") names the split in errors.
 * @throws DatasetError when shapes or counts disagree or a label is not below `classes`.
 */
export function fromIdx(name, images, labels, classes) {
    const [h, w, c] = inputShapeOf(images, name);
    if (labels.dims.length !== 1) {
        throw new DatasetError("DATASET_BAD_SHAPE", `${name}: labels must have dims [n], found [${labels.dims.join(", ")}]`, { name, dims: labels.dims });
    }
    const n = images.dims[0];
    if (labels.dims[0] !== n) {
        throw new DatasetError("DATASET_MISMATCH", `${name}: images hold ${n} examples but labels hold ${labels.dims[0]}`, { name, images: n, labels: labels.dims[0] });
    }
    const y = labels.data;
    for (let i = 0; i < n; i++) {
        if (y[i] >= classes) {
            throw new DatasetError("DATASET_BAD_LABEL", `${name}: label ${y[i]} at index ${i} is not below the ${classes} classes`, { name, index: i, label: y[i], classes });
        }
    }
    const features = h * w * c;
    const src = images.data;
    const x = new Float32Array(n * features);
    for (let i = 0; i < x.length; i++)
        x[i] = src[i] / 255;
    // Copy the labels so the split does not pin the whole file buffer they are a view into.
    return { x, y: Uint8Array.from(y), n };
}
//# sourceMappingURL=dataset.js.map