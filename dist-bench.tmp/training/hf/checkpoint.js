import { DECODABLE_DTYPES, decodeInto, SafetensorsError, } from "./safetensors.js";
const SAFETENSORS_DTYPE = {
    float32: "F32",
    float16: "F16",
    bfloat16: "BF16",
};
/**
 * Names a tensor may have in a file: the canonical (transformers 5 `save_pretrained`) name, and
 * the name without its base-model prefix, as older hub files (the original gpt2, opt) store it.
 */
function candidates(name) {
    const m = /^(transformer|model)\.(.*)$/.exec(name);
    return m === null ? [name] : [name, m[2]];
}
/**
 * Finds and checks the source of every layout tensor in the checkpoint's files. Extra tensors
 * in the files (buffers such as GPT-2's attn.bias, a tied lm_head) are ignored.
 * @throws SafetensorsError SAFETENSORS_MISSING, SAFETENSORS_SHAPE or SAFETENSORS_DTYPE, naming
 *   the file and the tensor.
 */
export function planLoad(layout, config, files, configFile = "config.json") {
    const expectedDtype = config.dtype === null ? null : SAFETENSORS_DTYPE[config.dtype];
    return layout.tensors.map((t, i) => {
        let found = null;
        for (const name of candidates(t.name)) {
            for (const header of files) {
                const entry = header.tensors.get(name);
                if (entry !== undefined) {
                    found = { tensor: i, header, entry };
                    break;
                }
            }
            if (found !== null)
                break;
        }
        if (found === null) {
            const names = files.map((f) => f.file).join(", ");
            throw new SafetensorsError("SAFETENSORS_MISSING", `tensor ${t.name} (${config.architecture}) is in none of ${names}`, {
                file: names,
                tensor: t.name,
            });
        }
        const { header, entry } = found;
        const where = `${header.file}: tensor ${entry.name}`;
        if (entry.shape.length !== t.shape.length || entry.shape.some((d, k) => d !== t.shape[k])) {
            throw new SafetensorsError("SAFETENSORS_SHAPE", `${where}: shape [${entry.shape.join(", ")}] contradicts ${configFile}, which implies [${t.shape.join(", ")}]`, { file: header.file, tensor: entry.name, shape: entry.shape, expected: t.shape });
        }
        if (!DECODABLE_DTYPES.includes(entry.dtype)) {
            throw new SafetensorsError("SAFETENSORS_DTYPE", `${where}: dtype ${entry.dtype} is not a float type seedswarm reads (${DECODABLE_DTYPES.join(", ")})`, { file: header.file, tensor: entry.name, dtype: entry.dtype });
        }
        if (expectedDtype !== null && entry.dtype !== expectedDtype) {
            throw new SafetensorsError("SAFETENSORS_DTYPE", `${where}: dtype ${entry.dtype} contradicts ${configFile}, which declares ${config.dtype} (${expectedDtype})`, { file: header.file, tensor: entry.name, dtype: entry.dtype, expected: expectedDtype });
        }
        return found;
    });
}
/**
 * Decodes every planned tensor into one new canonical Float32Array. `read` returns a source's
 * bytes (exactly entry.end - entry.begin); `onTensor` reports progress. The array is returned
 * only when every tensor decoded: a NaN in the last tensor leaves the caller with nothing.
 */
export async function decodePlanned(layout, plan, read, onTensor) {
    const weights = new Float32Array(layout.size);
    for (const [k, s] of plan.entries()) {
        const t = layout.tensors[s.tensor];
        decodeInto(s.entry, await read(s), weights.subarray(t.offset, t.offset + t.size), s.header.file);
        onTensor?.(k + 1, plan.length);
    }
    return weights;
}
//# sourceMappingURL=checkpoint.js.map