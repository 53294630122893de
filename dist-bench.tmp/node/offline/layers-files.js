/**
 * The TensorFlow.js layers format on disk: model.json + weights.bin, written atomically, and an
 * IOHandler that reads them back (`tf.loadLayersModel(fileLoadHandler(path))`) without tfjs-node.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs";
import { writeFileAtomic } from "../store/atomic-file.js";
/** Writes model.json and weights.bin into `dir` (each file atomically) and returns their paths. */
export async function saveLayersModel(model, dir) {
    await mkdir(dir, { recursive: true });
    const modelJson = join(dir, "model.json");
    const weightsBin = join(dir, "weights.bin");
    await model.save(tf.io.withSaveHandler(async (artifacts) => {
        const data = artifacts.weightData;
        const bytes = data === undefined ? new ArrayBuffer(0) : tf.io.CompositeArrayBuffer.join(data);
        const json = {
            format: "layers-model",
            generatedBy: `seedswarm (TensorFlow.js ${tf.version.tfjs})`,
            convertedBy: null,
            modelTopology: artifacts.modelTopology,
            weightsManifest: [{ paths: ["weights.bin"], weights: artifacts.weightSpecs ?? [] }],
        };
        await writeFileAtomic(weightsBin, new Uint8Array(bytes));
        await writeFileAtomic(modelJson, Buffer.from(JSON.stringify(json)));
        return {
            modelArtifactsInfo: {
                dateSaved: new Date(),
                modelTopologyType: "JSON",
                weightDataBytes: bytes.byteLength,
            },
        };
    }));
    return { modelJson, weightsBin };
}
/** An IOHandler that reads a layers-format model.json and its weight files from disk. */
export function fileLoadHandler(modelJsonPath) {
    return {
        async load() {
            const json = JSON.parse(await readFile(modelJsonPath, "utf8"));
            const dir = join(modelJsonPath, "..");
            const specs = [];
            const parts = [];
            for (const group of json.weightsManifest) {
                specs.push(...group.weights);
                for (const p of group.paths)
                    parts.push(await readFile(join(dir, p)));
            }
            const all = Buffer.concat(parts);
            return {
                modelTopology: json.modelTopology,
                format: json.format,
                generatedBy: json.generatedBy,
                weightSpecs: specs,
                weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
            };
        },
    };
}
//# sourceMappingURL=layers-files.js.map