/**
 * A tiny deterministic classification problem for fast tests: each class has a random prototype
 * in [0, 1]^features and its examples are the prototype plus bounded uniform noise. From about
 * 16 features the prototypes are far apart compared with the noise (nearest centroid > 99% with 10
 * classes), so a small MLP learns it in a few steps.
 */
import { fillUniform24 } from "../rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../rng/seeds.js";
import { DatasetError } from "./dataset.js";
/** Half-width of the per-feature noise; small against the ~0.41 std of prototype coordinates. */
const NOISE = 0.3;
function checkInt(opts, key, min, max) {
    const v = opts[key];
    if (!Number.isInteger(v) || v < min || v > max) {
        throw new DatasetError("DATASET_BAD_ARGUMENT", `synthetic dataset option ${key} must be an integer in [${min}, ${max}], got ${v}`, { [key]: v, min, max });
    }
}
function split(protos, features, n, id) {
    const classes = protos.length;
    const x = new Float32Array(n * features);
    const y = new Uint8Array(n);
    // Draw the noise into x, then shift it around each example's prototype in place.
    fillUniform24(id, x);
    for (let i = 0; i < n; i++) {
        const label = i % classes;
        const p = protos[label];
        y[i] = label;
        for (let j = 0, o = i * features; j < features; j++, o++) {
            const v = p[j] + (x[o] - 0.5) * 2 * NOISE;
            x[o] = Math.min(1, Math.max(0, v));
        }
    }
    return { x, y, n };
}
/**
 * A deterministic synthetic dataset: same options, same bytes. Labels cycle through the classes
 * (i % classes) so every class is present once a split has at least `classes` examples.
 * @throws DatasetError when an option is out of range.
 */
export function syntheticDataset(opts) {
    checkInt(opts, "features", 1, 1 << 20);
    // Labels are stored as bytes.
    checkInt(opts, "classes", 2, 256);
    checkInt(opts, "trainSize", 1, 1 << 24);
    checkInt(opts, "testSize", 1, 1 << 24);
    checkInt(opts, "seed", 0, 0xffffffff);
    const { features, classes } = opts;
    const seed = seedFrom("seedswarm/synthetic/1", [opts.seed]);
    const protos = [];
    for (let k = 0; k < classes; k++) {
        const p = new Float32Array(features);
        fillUniform24(streamOf(seed, Purpose.Init, k), p);
        protos.push(p);
    }
    return {
        name: `synthetic-${features}x${classes}`,
        inputShape: [features, 1, 1],
        classes,
        train: split(protos, features, opts.trainSize, streamOf(seed, Purpose.Noise, 0)),
        test: split(protos, features, opts.testSize, streamOf(seed, Purpose.Noise, 1)),
    };
}
//# sourceMappingURL=synthetic.js.map