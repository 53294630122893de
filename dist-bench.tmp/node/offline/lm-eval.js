/**
 * `seedswarm eval --model-dir`: scores text or token ids with a Hugging Face checkpoint, so a
 * forward pass can be compared with any other implementation (transformers, llama.cpp, ...).
 * Needs an active tf backend.
 */
import { readFile } from "node:fs/promises";
import * as tf from "@tensorflow/tfjs";
import { SeedswarmError } from "../../protocol/errors.js";
import { scoreSequences, windowsOf } from "../../training/next-token-loss.js";
import { toTensors } from "../../training/params.js";
import { clearProgress, reportProgress } from "../observe/progress.js";
import { buildTransformer } from "../../training/models/transformer.js";
import { loadCheckpoint } from "../store/checkpoint.js";
import { readHfCheckpoint, readHfConfig, readTokenizer } from "../store/hf-checkpoint.js";
export class LmEvalError extends SeedswarmError {
}
/**
 * Loads a checkpoint, showing per-tensor progress on a terminal (a large model takes a while).
 * With `checkpointFile` (a seedswarm checkpoint of a transformer run) its weights are scored
 * instead, with the directory's config.json and tokenizer (the weight files may be absent).
 */
async function load(modelDir, checkpointFile) {
    if (checkpointFile !== undefined) {
        const config = await readHfConfig(modelDir);
        const model = buildTransformer(config);
        const cp = await loadCheckpoint(checkpointFile);
        const m = cp.spec.model;
        if (m.kind !== "transformer" || m.architecture !== config.architecture || !(cp.weights instanceof Float32Array) || cp.weights.length !== model.layout.size) {
            throw new LmEvalError("LM_EVAL_INPUT", `${checkpointFile} is a checkpoint of run ${cp.spec.name} (${m.kind === "transformer" ? `${m.architecture}, ${cp.weights.length} weights` : m.kind}), not of the ${config.architecture} model in ${modelDir} (${model.layout.size} weights)`, { file: checkpointFile, modelDir });
        }
        return { dir: modelDir, config, model, weights: cp.weights, checksum: cp.checksum, files: [checkpointFile] };
    }
    try {
        return await readHfCheckpoint(modelDir, { onProgress: (done, total) => reportProgress("loading tensors", done, total) });
    }
    finally {
        clearProgress();
    }
}
/** Scores sequences with the checkpoint's weights on the backend, showing per-batch progress. */
function score(ck, sequences, batchSize) {
    const weights = toTensors(ck.model.layout, ck.weights);
    try {
        return scoreSequences(ck.model, weights, sequences, batchSize, (done, total) => reportProgress("scoring sequences", done, total));
    }
    finally {
        clearProgress();
        tf.dispose(weights);
    }
}
const described = (ck) => ({ modelDir: ck.dir, architecture: ck.config.architecture, checksum: ck.checksum });
/** Mean next-token loss and perplexity of a text file, in consecutive windows of `context` tokens. */
export async function scoreTextFile(modelDir, textFile, options) {
    const ck = await load(modelDir, options.checkpoint);
    const tokenizer = await readTokenizer(modelDir, ck.config);
    const ids = tokenizer.encode(await readFile(textFile, "utf8"));
    const context = options.context ?? Math.min(ck.config.maxPositions, 1024);
    if (context > ck.config.maxPositions && ck.config.architecture !== "llama") {
        throw new LmEvalError("LM_EVAL_INPUT", `context ${context} is longer than the model's ${ck.config.maxPositions} positions`, { context });
    }
    const windows = windowsOf(ids, context);
    if (windows.length === 0) {
        throw new LmEvalError("LM_EVAL_INPUT", `${textFile} has ${ids.length} token(s): nothing to predict`, { file: textFile });
    }
    const losses = score(ck, windows, options.batchSize);
    let sum = 0;
    let tokens = 0;
    for (const l of losses) {
        for (const v of l)
            sum += v;
        tokens += l.length;
    }
    const loss = sum / tokens;
    return { ...described(ck), tokenizer: tokenizer.name, tokens, windows: windows.length, loss, perplexity: Math.exp(loss) };
}
/** Parses a JSON file of token-id arrays, each checked against the vocabulary and positions. */
async function readTokenIds(file, vocabSize, maxLength) {
    let raw;
    try {
        raw = JSON.parse(await readFile(file, "utf8"));
    }
    catch (err) {
        throw new LmEvalError("LM_EVAL_INPUT", `${file}: not JSON (${err.message})`, { file });
    }
    if (!Array.isArray(raw) || raw.length === 0)
        throw new LmEvalError("LM_EVAL_INPUT", `${file}: expected a non-empty JSON array of token-id arrays`, { file });
    raw.forEach((seq, i) => {
        if (!Array.isArray(seq) || seq.length === 0 || seq.length > maxLength) {
            throw new LmEvalError("LM_EVAL_INPUT", `${file}: sequence ${i} must be an array of 1 to ${maxLength} token ids`, { file, sequence: i });
        }
        const bad = seq.find((id) => !Number.isInteger(id) || id < 0 || id >= vocabSize);
        if (bad !== undefined) {
            throw new LmEvalError("LM_EVAL_INPUT", `${file}: sequence ${i} holds ${JSON.stringify(bad)}, not an id below ${vocabSize}`, { file, sequence: i });
        }
    });
    return raw;
}
/** Per-position next-token losses of each sequence of a JSON file of token-id arrays. */
export async function scoreTokenIdsFile(modelDir, idsFile, options) {
    const ck = await load(modelDir, options.checkpoint);
    const maxLength = ck.config.architecture === "llama" ? Number.MAX_SAFE_INTEGER : ck.config.maxPositions;
    const sequences = await readTokenIds(idsFile, ck.config.vocabSize, maxLength);
    const losses = score(ck, sequences, options.batchSize);
    return { ...described(ck), losses: losses.map((l) => Array.from(l)) };
}
//# sourceMappingURL=lm-eval.js.map