// Finding 16 (security review): RunSpec size bombs are refused, naming the bytes they would need.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_SYNTHETIC_DATASET_BYTES, syntheticDatasetBytes } from "../../../protocol/dataset-spec.js";
import { imageModelStateBytes, MAX_MODEL_STATE_BYTES } from "../../../protocol/model-spec.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { RunSpecError } from "../../../protocol/spec-fields.js";

const tiny = PRESETS["tiny-spsa"] as unknown as Record<string, unknown>;
const refusedNaming = (bytes: number) => (e: unknown) =>
  e instanceof RunSpecError && e.code === "RUNSPEC_INVALID" && e.message.includes(`${bytes} bytes`);

describe("finding 16: RunSpec size bounds", () => {
  it("every preset validates, far below the bounds", () => {
    for (const [name, p] of Object.entries(PRESETS)) {
      const s = parseRunSpec(p);
      if (s.model.kind !== "transformer") assert.ok(imageModelStateBytes(s.model) < MAX_MODEL_STATE_BYTES / 100, name);
      if (s.dataset.kind === "synthetic") assert.ok(syntheticDatasetBytes(s.dataset) < MAX_SYNTHETIC_DATASET_BYTES / 100, name);
    }
  });

  it("state bytes match the models the trainer builds (mnist-mlp 25,450 weights, mnist-cnn 87,658)", () => {
    const mlp = parseRunSpec(PRESETS["mnist-mlp-spsa"]).model;
    const cnn = parseRunSpec(PRESETS["mnist-cnn-spsa"]).model;
    assert.ok(mlp.kind === "mlp" && cnn.kind === "cnn");
    assert.equal(imageModelStateBytes(mlp), 4 * 25_450);
    assert.equal(imageModelStateBytes(cnn), 4 * 87_658);
  });

  it("8 x 65,536 hidden units, 65,536 classes or a 2^20 x 2^24 synthetic set are refused with the bytes they need", () => {
    const [h, w, c] = (tiny.model as { inputShape: number[] }).inputShape;
    const features = h * w * c;
    const hidden = Array.from({ length: 8 }, () => 65536);
    const widths = [features, ...hidden, 4];
    const bytes = 4 * widths.slice(1).reduce((s, out, i) => s + widths[i] * out + out, 0);
    assert.throws(() => parseRunSpec({ ...tiny, model: { ...(tiny.model as object), hidden } }), refusedNaming(bytes));
    const bitBomb = { kind: "bitmlp", inputShape: [256, 256, 1], hidden, classes: 65536, weights: "ternary", inputThreshold: 0, logitScale: 1 };
    assert.throws(() => parseRunSpec({ ...PRESETS["tiny-binary"], model: bitBomb }), RunSpecError);
    const dataset = { kind: "synthetic", features: 1 << 20, classes: 4, trainSize: 1 << 24, testSize: 1 << 24, seed: 1 };
    assert.throws(() => parseRunSpec({ ...tiny, dataset }), refusedNaming(syntheticDatasetBytes(dataset)));
  });
});
