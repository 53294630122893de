/**
 * `seedswarm export` and `seedswarm eval`: a checkpoint as a TensorFlow.js layers model directory
 * (model.json, weights.bin, and seedswarm.json with the RunSpec, iteration and checksum it came
 * from), and the test accuracy of a checkpoint or of such a directory.
 */
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import * as tf from "@tensorflow/tfjs";
import { SeedswarmError } from "../../protocol/errors.js";
import { imageModelOf, parseRunSpec, runIdOf, } from "../../protocol/run-spec.js";
import { evaluate, evaluateLayersModel } from "../../training/evaluate.js";
import { toLayersModel } from "../../training/models/export.js";
import { fileLoadHandler, saveLayersModel } from "./layers-files.js";
import { buildModel } from "../../training/models/model.js";
import { floatWeights, toTensors } from "../../training/params.js";
import { loadDataset, openRun } from "../../training/run-context.js";
import { writeFileAtomic } from "../store/atomic-file.js";
import { loadCheckpoint } from "../store/checkpoint.js";
import { CONFIG_FILE, readHfConfig, TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE, writeHfCheckpoint } from "../store/hf-checkpoint.js";
import { buildTransformer } from "../../training/models/transformer.js";
/** What the export directory holds besides the TensorFlow.js files. */
export const EXPORT_META_FILE = "seedswarm.json";
/** The only files an export directory holds (TensorFlow.js or Hugging Face): --force replaces nothing else. */
const EXPORT_FILES = new Set(["model.json", "weights.bin", CONFIG_FILE, WEIGHTS_FILE, TOKENIZER_FILE, TOKENIZER_CONFIG_FILE, EXPORT_META_FILE]);
export class ExportError extends SeedswarmError {
}
/** Refuses an output directory that holds anything but a previous export, or any export without `force`. */
export async function checkExportDir(dir, force) {
    let entries;
    try {
        entries = await readdir(dir);
    }
    catch (err) {
        if (err.code === "ENOENT")
            return;
        throw new ExportError("EXPORT_EXISTS", `export directory ${dir}: ${err.code}`, { dir });
    }
    if (entries.length === 0)
        return;
    if (entries.some((e) => !EXPORT_FILES.has(e))) {
        throw new ExportError("EXPORT_EXISTS", `export directory ${dir} holds other files; choose an empty or new directory`, { dir });
    }
    if (!force) {
        throw new ExportError("EXPORT_EXISTS", `export directory ${dir} exists (--force replaces it)`, { dir });
    }
}
/**
 * Writes the model of a checkpoint to `dir` in the TensorFlow.js layers format. The files are
 * written to a sibling temp directory that then replaces `dir`, so a failure never leaves a
 * half-written export. Needs an active tf backend.
 */
export async function exportCheckpoint(checkpointFile, dir, force) {
    await checkExportDir(dir, force);
    const cp = await loadCheckpoint(checkpointFile);
    const spec = imageModelOf(cp.spec);
    const model = buildModel(spec);
    const layers = toLayersModel(spec, model.layout, cp.weights);
    try {
        const meta = await writeExport(cp, dir, (tmp) => saveLayersModel(layers, tmp));
        return { ...meta, modelJson: join(meta.dir, "model.json") };
    }
    finally {
        layers.dispose();
    }
}
/**
 * Writes a transformer run's checkpoint as a Hugging Face directory: config.json (the config of
 * the checkpoint the run started from, in `modelDir`) and model.safetensors with Hugging Face
 * tensor names, the tokenizer files it has, and seedswarm.json. Loads in transformers and back in seedswarm with the same
 * weights checksum. Written to a temp directory renamed into place, like the TensorFlow.js export.
 * @throws ExportError EXPORT_INVALID when the checkpoint is not a transformer run's, or the
 *   config's architecture or size is not the run's.
 */
export async function exportTransformerCheckpoint(checkpointFile, dir, modelDir, force) {
    await checkExportDir(dir, force);
    const cp = await loadCheckpoint(checkpointFile);
    const m = cp.spec.model;
    if (m.kind !== "transformer") {
        throw new ExportError("EXPORT_INVALID", `${checkpointFile} is a ${m.kind} run's checkpoint; the Hugging Face export is for transformer runs`, { kind: m.kind });
    }
    const config = await readHfConfig(modelDir);
    const model = buildTransformer(config);
    if (config.architecture !== m.architecture || model.layout.size !== cp.weights.length) {
        throw new ExportError("EXPORT_INVALID", `${modelDir}/${CONFIG_FILE} describes a ${config.architecture} model of ${model.layout.size} parameters; the checkpoint holds a ${m.architecture} model of ${cp.weights.length}`, { modelDir, architecture: config.architecture, params: model.layout.size });
    }
    const meta = await writeExport(cp, dir, async (tmp) => {
        await writeHfCheckpoint(tmp, model, floatWeights(cp.weights));
        // The tokenizer files travel with the weights, so the export scores and loads on its own.
        for (const f of [TOKENIZER_FILE, TOKENIZER_CONFIG_FILE])
            if (existsSync(join(modelDir, f)))
                await copyFile(join(modelDir, f), join(tmp, f));
    });
    return { ...meta, weightsFile: join(meta.dir, WEIGHTS_FILE) };
}
/** Writes `files` and seedswarm.json into a sibling temp directory, then renames it over `dir`. */
async function writeExport(cp, dir, files) {
    const out = resolve(dir);
    const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}`);
    await rm(tmp, { recursive: true, force: true });
    await mkdir(dirname(out), { recursive: true });
    const meta = { runId: cp.runId, iteration: cp.iteration, checksum: cp.checksum, spec: cp.spec };
    try {
        await mkdir(tmp, { recursive: true });
        await files(tmp);
        await writeFileAtomic(join(tmp, EXPORT_META_FILE), Buffer.from(`${JSON.stringify(meta, null, 2)}\n`));
        if (existsSync(out))
            await rm(out, { recursive: true });
        await rename(tmp, out);
    }
    catch (err) {
        await rm(tmp, { recursive: true, force: true });
        throw err;
    }
    return { ...meta, dir: out };
}
/** Test loss and accuracy of a checkpoint's weights on its run's dataset. Needs a backend. */
export async function evaluateCheckpoint(checkpointFile, limit) {
    const cp = await loadCheckpoint(checkpointFile);
    const run = await openRun(cp.spec);
    const weights = toTensors(run.model.layout, cp.weights);
    try {
        const ev = evaluate(run.model, weights, run.dataset.test, limit);
        return { runId: cp.runId, iteration: cp.iteration, ...ev };
    }
    finally {
        tf.dispose(weights);
    }
}
/**
 * Test loss and accuracy of an exported model directory, loaded with `tf.loadLayersModel`, on the
 * dataset of the run it was exported from (its seedswarm.json), or of `spec` when given.
 */
export async function evaluateExport(dir, spec, limit) {
    const modelJson = join(dir, "model.json");
    if (!existsSync(modelJson)) {
        throw new ExportError("EXPORT_INVALID", `${dir} has no model.json (is it an export directory?)`, { dir });
    }
    let saved = null;
    const metaPath = join(dir, EXPORT_META_FILE);
    if (existsSync(metaPath)) {
        const raw = JSON.parse(await readFile(metaPath, "utf8"));
        saved = { ...raw, spec: parseRunSpec(raw.spec) };
    }
    const runSpec = spec ?? saved?.spec;
    if (runSpec === undefined) {
        throw new ExportError("EXPORT_INVALID", `${dir} has no ${EXPORT_META_FILE}; name its run with --spec or --preset`, {
            dir,
        });
    }
    const model = await tf.loadLayersModel(fileLoadHandler(modelJson));
    try {
        const ds = await loadDataset(runSpec);
        const ev = evaluateLayersModel(model, imageModelOf(runSpec).inputShape, ds.test, limit);
        const runId = runIdOf(runSpec);
        return { runId, iteration: saved?.runId === runId ? saved.iteration : null, ...ev };
    }
    finally {
        model.dispose();
    }
}
//# sourceMappingURL=model-export.js.map