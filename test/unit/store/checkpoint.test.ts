import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { loadCheckpoint, loadUsableCheckpoint, saveCheckpoint } from "../../../node/store/checkpoint.js";
import { corruptCheckpointPath, previousCheckpointPath } from "../../../node/store/data-dir.js";
import { trainLocally } from "../../../node/local/local-trainer.js";
import { createLogger } from "../../../node/ground/index.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { toLayersModel } from "../../../training/models/export.js";
import { fileLoadHandler, saveLayersModel } from "../../../node/offline/layers-files.js";
import { buildModel, initWeights } from "../../../training/models/model.js";
import { toTensors } from "../../../training/params.js";
import { fillUniform24 } from "../../../training/rng/noise.js";
import { Purpose, seedFrom, streamOf } from "../../../training/rng/seeds.js";

const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const log = createLogger({ level: "silent" });
const dirs: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), "seedswarm-test-"));
  dirs.push(d);
  return d;
};
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const base = {
  spec,
  backend: "wasm" as const,
  authors: 3,
  evalEvery: 0,
  evalLimit: 100,
  checkpointEvery: 0,
  resume: true,
};

describe("checkpoints", () => {
  it("resume is bit-exact: 10 + 10 iterations = 20 uninterrupted", async () => {
    const straight = await trainLocally({ ...base, dataDir: await tempDir(), stopAt: 20 }, log);
    const dir = await tempDir();
    const first = await trainLocally({ ...base, dataDir: dir, stopAt: 10 }, log);
    assert.equal(first.iteration, 10);
    assert.notEqual(first.checksum, straight.checksum);
    const second = await trainLocally({ ...base, dataDir: dir, stopAt: 20 }, log);
    assert.equal(second.resumedFrom, 10);
    assert.equal(second.iteration, 20);
    assert.equal(second.checksum, straight.checksum);
    const cp = await loadCheckpoint(second.checkpoint);
    assert.equal(cp.iteration, 20);
    assert.equal(cp.checksum, straight.checksum);
  });

  it("a corrupted checkpoint is refused with a clear error", async () => {
    const dir = await tempDir();
    const res = await trainLocally({ ...base, dataDir: dir, stopAt: 2 }, log);
    const bytes = await readFile(res.checkpoint);
    bytes[bytes.length - 5] ^= 0x40;
    await writeFile(res.checkpoint, bytes);
    await assert.rejects(loadCheckpoint(res.checkpoint), (err: Error & { code?: string }) => {
      assert.equal(err.code, "CHECKPOINT_CORRUPT");
      assert.match(err.message, /checksum/);
      return true;
    });
    await writeFile(res.checkpoint, bytes.subarray(0, 30));
    await assert.rejects(loadCheckpoint(res.checkpoint), /truncated header|unreadable header/);
  });
});

describe("checkpoint fallback", () => {
  it("the replaced checkpoint is kept; a truncated last one falls back to it and is moved aside; none usable reads as null", async () => {
    const dir = await tempDir();
    const res = await trainLocally({ ...base, dataDir: dir, stopAt: 2 }, log);
    const first = await loadCheckpoint(res.checkpoint);
    const later = first.weights.slice() as Float32Array;
    later[0] += 1;
    await saveCheckpoint(res.checkpoint, spec, 3, later);
    const prevPath = previousCheckpointPath(res.checkpoint);
    assert.equal((await loadCheckpoint(prevPath)).iteration, 2, "the replaced checkpoint is the previous one");
    assert.equal((await loadUsableCheckpoint(res.checkpoint)).checkpoint?.iteration, 3, "a good last one is used");

    const bytes = await readFile(res.checkpoint);
    await writeFile(res.checkpoint, bytes.subarray(0, bytes.length - 7));
    const found = await loadUsableCheckpoint(res.checkpoint);
    assert.equal(found.source, "previous checkpoint");
    assert.equal(found.checkpoint?.iteration, 2);
    assert.equal(found.checkpoint?.checksum, first.checksum);
    assert.equal(found.skipped.length, 1);
    assert.match(found.skipped[0].problem, /weights are \d+ bytes/);
    assert.ok(existsSync(corruptCheckpointPath(res.checkpoint)), "the bad one is kept aside for a post-mortem");
    assert.ok(!existsSync(res.checkpoint), "and no longer in the way of the next save's rotation");

    const prev = await readFile(prevPath);
    prev[prev.length - 1] ^= 0x01;
    await writeFile(prevPath, prev);
    const none = await loadUsableCheckpoint(res.checkpoint);
    assert.equal(none.checkpoint, null);
    assert.match(none.skipped[0].problem, /checksum/);
  });
});

describe("export to the TensorFlow.js layers format", () => {
  for (const kind of ["mlp", "cnn"] as const) {
    it(`${kind}: tf.loadLayersModel loads it and predicts the same classes`, async () => {
      await useBackend("wasm");
      const modelSpec =
        kind === "mlp"
          ? ({ kind, inputShape: [28, 28, 1], hidden: [16], classes: 10 } as const)
          : ({ kind, inputShape: [28, 28, 1], classes: 10 } as const);
      const model = buildModel(modelSpec);
      const weights = initWeights(model.layout, 11);
      const n = 64;
      const xs = new Float32Array(n * 784);
      fillUniform24(streamOf(seedFrom("export-test", [1]), Purpose.Batch, 0), xs);
      const x = tf.tensor4d(xs, [n, 28, 28, 1]);
      const wt = toTensors(model.layout, weights);
      const ours = tf.tidy(() => tf.argMax(model.forward(wt, x), 1).arraySync() as number[]);
      const dir = await tempDir();
      const { modelJson } = await saveLayersModel(
        toLayersModel(modelSpec, model.layout, weights),
        dir,
      );
      const json = JSON.parse(await readFile(modelJson, "utf8"));
      assert.equal(json.format, "layers-model");
      assert.deepEqual(json.weightsManifest[0].paths, ["weights.bin"]);
      const loaded = await tf.loadLayersModel(fileLoadHandler(modelJson));
      const probs = loaded.predict(x) as tf.Tensor2D;
      const theirs = tf.argMax(probs, 1).arraySync() as number[];
      assert.deepEqual(theirs, ours);
      assert.ok(new Set(ours).size > 1, "inputs should not all map to one class");
      const rowSums = tf.sum(probs, 1).arraySync() as number[];
      for (const s of rowSums) assert.ok(Math.abs(s - 1) < 1e-4);
      tf.dispose([x, probs, ...wt]);
    });
  }
});
