/**
 * Hugging Face checkpoint directories on disk: `config.json` + `model.safetensors`, or shards
 * named by `model.safetensors.index.json`. Reading validates every file's header and matches it
 * against the layout config.json implies before decoding anything, then decodes tensor by tensor
 * straight into the one canonical Float32Array (a file is never held in memory whole: a 1.3B
 * model's shards are larger than Node reads at once). Writing produces what transformers'
 * `save_pretrained` writes, with the same tensor names.
 */
import { existsSync } from "node:fs";
import { mkdir, open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { SeedswarmError } from "../../protocol/errors.js";
import { writeFileAtomic } from "./atomic-file.js";
import { encodeData, encodeHeader, headerLength, parseHeader, SafetensorsError } from "../../training/hf/safetensors.js";
import { decodePlanned, planLoad } from "../../training/hf/checkpoint.js";
import { parseHfConfig } from "../../training/hf/config.js";
import { buildTransformer } from "../../training/models/transformer.js";
import { checksum } from "../../training/params.js";
import { gpt2Tokenizer, tokenizerFromJson } from "../../training/data/tokenizer.js";
export const CONFIG_FILE = "config.json";
export const WEIGHTS_FILE = "model.safetensors";
export const INDEX_FILE = "model.safetensors.index.json";
export const TOKENIZER_FILE = "tokenizer.json";
export const TOKENIZER_CONFIG_FILE = "tokenizer_config.json";
/** GPT-2's own vocabulary size: a gpt2 checkpoint of this size without tokenizer.json uses GPT-2's BPE. */
const GPT2_VOCAB = 50257;
export class HfCheckpointError extends SeedswarmError {
}
/** The typed config of a checkpoint directory. */
export async function readHfConfig(dir) {
    const path = join(dir, CONFIG_FILE);
    if (!existsSync(path)) {
        throw new HfCheckpointError("HF_CHECKPOINT_MISSING", `${dir} has no ${CONFIG_FILE} (is it a Hugging Face model directory?)`, { dir });
    }
    let raw;
    try {
        raw = JSON.parse(await readFile(path, "utf8"));
    }
    catch (err) {
        throw new HfCheckpointError("HF_CHECKPOINT_INVALID", `${path}: not JSON (${err.message})`, { file: path });
    }
    return parseHfConfig(raw, path);
}
/** Reads and validates one safetensors file's header (8 + header bytes only). */
async function readHeader(path) {
    const fh = await open(path, "r");
    try {
        const size = (await fh.stat()).size;
        const prefix = new Uint8Array(8);
        await fh.read(prefix, 0, Math.min(8, size), 0);
        const n = headerLength(prefix, size, path);
        const json = new Uint8Array(n);
        await fh.read(json, 0, n, 8);
        return parseHeader(json, size, path);
    }
    finally {
        await fh.close();
    }
}
/** Whether `dir` holds weight files (model.safetensors or an index of shards); config.json alone does not. */
export function hasWeightFiles(dir) {
    return existsSync(join(dir, WEIGHTS_FILE)) || existsSync(join(dir, INDEX_FILE));
}
/** The safetensors files of a directory: the single file, or the shards its index names (each checked to hold its tensors). */
async function weightFiles(dir) {
    const single = join(dir, WEIGHTS_FILE);
    const indexPath = join(dir, INDEX_FILE);
    if (existsSync(indexPath)) {
        let map;
        try {
            map = JSON.parse(await readFile(indexPath, "utf8")).weight_map;
            if (typeof map !== "object" || map === null)
                throw new Error("no weight_map object");
        }
        catch (err) {
            throw new HfCheckpointError("HF_CHECKPOINT_INVALID", `${indexPath}: ${err.message}`, { file: indexPath });
        }
        const shards = [...new Set(Object.values(map))];
        for (const s of shards) {
            if (typeof s !== "string" || s.includes("/") || s.includes("\\") || !s.endsWith(".safetensors")) {
                throw new HfCheckpointError("HF_CHECKPOINT_INVALID", `${indexPath}: weight_map names ${JSON.stringify(s)}, not a .safetensors file beside it`, { file: indexPath });
            }
            if (!existsSync(join(dir, s))) {
                throw new HfCheckpointError("HF_CHECKPOINT_MISSING", `${indexPath} names shard ${s}, which is not in ${dir}`, { file: indexPath, shard: s });
            }
        }
        const headers = await Promise.all(shards.map((s) => readHeader(join(dir, s))));
        const byFile = new Map(shards.map((s, i) => [s, headers[i]]));
        for (const [tensor, shard] of Object.entries(map)) {
            const h = byFile.get(shard);
            if (!h.tensors.has(tensor)) {
                throw new SafetensorsError("SAFETENSORS_MISSING", `${h.file}: tensor ${tensor} is not in the shard ${INDEX_FILE} names for it`, { file: h.file, tensor });
            }
        }
        return headers;
    }
    if (existsSync(single))
        return [await readHeader(single)];
    throw new HfCheckpointError("HF_CHECKPOINT_MISSING", `${dir} has neither ${WEIGHTS_FILE} nor ${INDEX_FILE} (seedswarm reads safetensors only; convert pytorch_model.bin with transformers' save_pretrained)`, { dir });
}
/**
 * Loads a checkpoint directory into canonical weights. Every file is validated against the config
 * before any tensor is decoded; a NaN/Inf while decoding throws and returns no weights.
 * @throws HfCheckpointError, HfConfigError, SafetensorsError (each names the file and tensor).
 */
export async function readHfCheckpoint(dir, options = {}) {
    const config = await readHfConfig(dir);
    const model = buildTransformer(config);
    const headers = await weightFiles(dir);
    const plan = planLoad(model.layout, config, headers, join(dir, CONFIG_FILE));
    const handles = new Map();
    // One scratch buffer for the largest tensor: each is decoded before the next is read.
    const scratch = new Uint8Array(Math.max(...plan.map((s) => s.entry.end - s.entry.begin)));
    try {
        for (const h of headers)
            handles.set(h.file, await open(h.file, "r"));
        const weights = await decodePlanned(model.layout, plan, async (s) => {
            const n = s.entry.end - s.entry.begin;
            const fh = handles.get(s.header.file);
            let at = 0;
            // A read may return fewer bytes than asked (and at most 2 GiB at once).
            while (at < n) {
                const { bytesRead } = await fh.read(scratch, at, Math.min(n - at, 1 << 30), s.header.dataStart + s.entry.begin + at);
                if (bytesRead === 0)
                    throw new SafetensorsError("SAFETENSORS_OFFSETS", `${s.header.file}: tensor ${s.entry.name}: file ended early`, { file: s.header.file, tensor: s.entry.name });
                at += bytesRead;
            }
            return scratch.subarray(0, n);
        }, options.onProgress);
        return { dir, config, model, weights, checksum: checksum(weights), files: headers.map((h) => h.file) };
    }
    finally {
        for (const fh of handles.values())
            await fh.close();
    }
}
const CONFIG_DTYPE = { F32: "float32", F16: "float16", BF16: "bfloat16" };
/**
 * Writes `config.json` and `model.safetensors` as transformers' save_pretrained does: the Hugging
 * Face tensor names, a tied head left out, `format: pt` metadata. Each file is written to a temp
 * file and renamed into place, tensor by tensor (never the whole model in a second buffer).
 */
export async function writeHfCheckpoint(dir, model, weights, dtype = "F32") {
    if (weights.length !== model.layout.size) {
        throw new RangeError(`weights have ${weights.length} values, the layout needs ${model.layout.size}`);
    }
    await mkdir(dir, { recursive: true });
    const tensors = model.layout.tensors;
    const header = encodeHeader(tensors, dtype, { format: "pt" });
    const raw = { ...model.config.raw, dtype: CONFIG_DTYPE[dtype] };
    if ("torch_dtype" in raw)
        raw.torch_dtype = CONFIG_DTYPE[dtype];
    const weightsPath = join(dir, WEIGHTS_FILE);
    const configPath = join(dir, CONFIG_FILE);
    await writeFileAtomic(weightsPath, [header, ...tensors.map((t) => () => encodeData(weights.subarray(t.offset, t.offset + t.size), dtype))]);
    await writeFileAtomic(configPath, new TextEncoder().encode(`${JSON.stringify(raw, null, 2)}\n`));
    return { config: configPath, weights: weightsPath };
}
/**
 * The tokenizer of a checkpoint directory: its tokenizer.json (with tokenizer_config.json when
 * present), or GPT-2's BPE for a GPT-2 model with GPT-2's vocabulary and no tokenizer.json.
 */
export async function readTokenizer(dir, config) {
    const path = join(dir, TOKENIZER_FILE);
    if (existsSync(path)) {
        const readJson = async (file) => {
            try {
                return JSON.parse(await readFile(file, "utf8"));
            }
            catch (err) {
                throw new HfCheckpointError("HF_CHECKPOINT_INVALID", `${file}: not JSON (${err.message})`, { file });
            }
        };
        const configPath = join(dir, TOKENIZER_CONFIG_FILE);
        return tokenizerFromJson(await readJson(path), existsSync(configPath) ? await readJson(configPath) : {});
    }
    if (config.architecture === "gpt2" && config.vocabSize === GPT2_VOCAB)
        return gpt2Tokenizer();
    throw new HfCheckpointError("HF_CHECKPOINT_MISSING", `${dir} has no ${TOKENIZER_FILE} (only a gpt2 model with ${GPT2_VOCAB} ids can do without one); give token ids instead of text`, { dir });
}
//# sourceMappingURL=hf-checkpoint.js.map