/**
 * safetensors: the codec (F32/F16/BF16 round trips, exact bit patterns), Hugging Face directories
 * (single file, sharded index, export and reload), and bad files: each gets a typed error naming
 * the file and the tensor, and no weights.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { readHfCheckpoint, writeHfCheckpoint } from "../../../node/store/hf-checkpoint.js";
import { HfConfigError, parseHfConfig } from "../../../training/hf/config.js";
import { decodeSafetensors, encodeData, encodeSafetensors, SafetensorsError, } from "../../../training/hf/safetensors.js";
import { buildTransformer } from "../../../training/models/transformer.js";
import { LM_FIXTURES } from "../../helpers/lm-fixtures.js";
const dirs = [];
const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), "seedswarm-st-"));
    dirs.push(d);
    return d;
};
after(() => {
    for (const d of dirs)
        rmSync(d, { recursive: true, force: true });
});
const GPT2 = `${LM_FIXTURES}gpt2-tiny`;
const gpt2Tensors = () => [...decodeSafetensors(readFileSync(`${GPT2}/model.safetensors`), "gpt2").values()];
/** A copy of the gpt2-tiny directory whose model.safetensors is `bytes` (and config `config`). */
function checkpointDir(bytes, config) {
    const d = tempDir();
    if (config)
        writeFileSync(join(d, "config.json"), JSON.stringify(config));
    else
        copyFileSync(`${GPT2}/config.json`, join(d, "config.json"));
    writeFileSync(join(d, "model.safetensors"), bytes);
    return d;
}
/** The file with its JSON header rewritten by `edit` (the data bytes untouched). */
function editHeader(bytes, edit) {
    const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    edit(header);
    const json = new TextEncoder().encode(JSON.stringify(header));
    const out = new Uint8Array(8 + json.length + bytes.length - 8 - n);
    new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
    out.set(json, 8);
    out.set(bytes.subarray(8 + n), 8 + json.length);
    return out;
}
/** Asserts a typed SafetensorsError with `code` whose message names `tensor` and the file. */
async function rejects(dir, code, tensor) {
    await assert.rejects(readHfCheckpoint(dir), (err) => {
        assert.ok(err instanceof SafetensorsError, `expected a SafetensorsError, got ${String(err)}`);
        assert.equal(err.code, code, err.message);
        assert.match(err.message, /model\.safetensors/);
        if (tensor !== null) {
            assert.equal(err.context.tensor, tensor);
            assert.ok(err.message.includes(tensor), err.message);
        }
        return true;
    });
}
describe("safetensors codec", () => {
    it("decodes known F16 and BF16 bit patterns exactly and rounds to nearest even when encoding", () => {
        const halves = [0x3c00, 0xc000, 0x0001, 0x7bff, 0x3555, 0x8000];
        const want = [1, -2, 2 ** -24, 65504, 0.333251953125, -0];
        const bytes = new Uint8Array(halves.length * 2);
        halves.forEach((h, i) => new DataView(bytes.buffer).setUint16(2 * i, h, true));
        const file = encodeSafetensors([{ name: "x", shape: [6], data: new Float32Array(6) }], "F16");
        file.set(bytes, file.length - bytes.length);
        assert.deepEqual([...(decodeSafetensors(file, "f16").get("x")?.data ?? [])], want);
        // 1/3 in F16 is 0x3555; in BF16 0x3EAB (both round down); 1 + 2^-11 (a tie) rounds to even 1.0.
        const enc = (x, dt) => new DataView(encodeData(new Float32Array([x]), dt).buffer).getUint16(0, true);
        assert.equal(enc(1 / 3, "F16"), 0x3555);
        assert.equal(enc(1 / 3, "BF16"), 0x3eab);
        assert.equal(enc(1 + 2 ** -11, "F16"), 0x3c00);
        assert.equal(enc(1 + 3 * 2 ** -11, "F16"), 0x3c02);
        assert.equal(enc(2 ** -24, "F16"), 0x0001);
        assert.equal(enc(1e6, "F16"), 0x7c00);
    });
    for (const dtype of ["F32", "F16", "BF16"]) {
        it(`round-trips ${dtype}: values representable in ${dtype} come back bit for bit`, () => {
            const tensors = gpt2Tensors();
            // Quantize once to the dtype; a second trip must then be exact.
            const once = decodeSafetensors(encodeSafetensors(tensors, dtype), "once");
            const twice = decodeSafetensors(encodeSafetensors([...once.values()], dtype), "twice");
            for (const t of tensors) {
                const a = once.get(t.name);
                const b = twice.get(t.name);
                assert.deepEqual(a?.shape, t.shape);
                assert.deepEqual(b?.data, a?.data, t.name);
                if (dtype === "F32")
                    assert.deepEqual(a?.data, t.data, t.name);
                // Rounding error of one step: half an ulp (2^-11 relative for F16, 2^-8 for BF16).
                const rel = dtype === "F16" ? 2 ** -11 : dtype === "BF16" ? 2 ** -8 : 0;
                t.data.forEach((v, i) => assert.ok(Math.abs((a?.data[i] ?? Number.NaN) - v) <= rel * Math.abs(v) + 2 ** -24, `${t.name}[${i}]`));
            }
        });
    }
});
describe("Hugging Face checkpoint directories", () => {
    it("reads a sharded checkpoint (model.safetensors.index.json) to the same weights as the single file", async () => {
        const single = await readHfCheckpoint(GPT2);
        const tensors = gpt2Tensors();
        const d = tempDir();
        copyFileSync(`${GPT2}/config.json`, join(d, "config.json"));
        const half = Math.ceil(tensors.length / 2);
        const shards = [tensors.slice(0, half), tensors.slice(half)];
        const weightMap = {};
        shards.forEach((s, i) => {
            const file = `model-0000${i + 1}-of-00002.safetensors`;
            writeFileSync(join(d, file), encodeSafetensors(s, "F32", { format: "pt" }));
            for (const t of s)
                weightMap[t.name] = file;
        });
        writeFileSync(join(d, "model.safetensors.index.json"), JSON.stringify({ metadata: {}, weight_map: weightMap }));
        const sharded = await readHfCheckpoint(d);
        assert.equal(sharded.files.length, 2);
        assert.equal(sharded.checksum, single.checksum);
        // An index that names the wrong shard for a tensor is refused, naming it.
        weightMap["transformer.wte.weight"] = "model-00001-of-00002.safetensors";
        writeFileSync(join(d, "model.safetensors.index.json"), JSON.stringify({ weight_map: weightMap }));
        await assert.rejects(readHfCheckpoint(d), (e) => e instanceof SafetensorsError && e.code === "SAFETENSORS_MISSING" && e.context.tensor === "transformer.wte.weight");
    });
    it("reads hub-style files: names without the base-model prefix, causal-mask buffers and a redundant tied head", async () => {
        const single = await readHfCheckpoint(GPT2);
        const tensors = gpt2Tensors().map((t) => ({ ...t, name: t.name.replace(/^transformer\./, "") }));
        // The original gpt2 upload also stores each block's causal mask and a copy of the tied head.
        tensors.push({ name: "h.0.attn.bias", shape: [1, 1, 4, 4], data: new Float32Array(16).fill(1) });
        tensors.push({ name: "lm_head.weight", shape: [1024, 32], data: new Float32Array(1024 * 32) });
        const hub = await readHfCheckpoint(checkpointDir(encodeSafetensors(tensors)));
        assert.equal(hub.checksum, single.checksum);
    });
    for (const name of ["gpt2-tiny", "opt-tiny", "llama-tiny"]) {
        it(`${name}: an export reloads with the same checksum, Hugging Face names and config`, async () => {
            const ck = await readHfCheckpoint(`${LM_FIXTURES}${name}`);
            const d = tempDir();
            await writeHfCheckpoint(d, ck.model, ck.weights);
            const back = await readHfCheckpoint(d);
            assert.equal(back.checksum, ck.checksum);
            const original = decodeSafetensors(readFileSync(`${LM_FIXTURES}${name}/model.safetensors`), name);
            const exported = decodeSafetensors(readFileSync(join(d, "model.safetensors")), "export");
            // The same tensor names as transformers wrote (a tied head is left out, as it does), same values.
            assert.deepEqual([...exported.keys()].sort(), [...original.keys()].sort());
            for (const [n, t] of original)
                assert.deepEqual(exported.get(n)?.data, t.data, n);
            const config = JSON.parse(readFileSync(join(d, "config.json"), "utf8"));
            assert.deepEqual(config, JSON.parse(readFileSync(`${LM_FIXTURES}${name}/config.json`, "utf8")));
        });
    }
    it("an F16 export reloads to the F16-rounded weights (config.json says float16)", async () => {
        const ck = await readHfCheckpoint(GPT2);
        const d = tempDir();
        await writeHfCheckpoint(d, ck.model, ck.weights, "F16");
        assert.equal(JSON.parse(readFileSync(join(d, "config.json"), "utf8")).dtype, "float16");
        const back = await readHfCheckpoint(d);
        assert.notEqual(back.checksum, ck.checksum);
        back.weights.forEach((v, i) => assert.ok(Math.abs(v - ck.weights[i]) <= 2 ** -11 * Math.abs(ck.weights[i]) + 2 ** -24));
    });
});
describe("bad checkpoints get a typed error naming the file and the tensor", () => {
    const good = () => new Uint8Array(readFileSync(`${GPT2}/model.safetensors`));
    it("header length past the end of the file", async () => {
        const b = good();
        new DataView(b.buffer).setBigUint64(0, BigInt(b.length), true);
        await rejects(checkpointDir(b), "SAFETENSORS_HEADER", null);
    });
    it("overlapping offsets", async () => {
        const b = editHeader(good(), (h) => {
            const t = h["transformer.h.0.attn.c_proj.bias"];
            t.data_offsets = [t.data_offsets[0] - 4, t.data_offsets[1] - 4];
        });
        await rejects(checkpointDir(b), "SAFETENSORS_OFFSETS", "transformer.h.0.attn.c_proj.bias");
    });
    it("offsets past the end of the data", async () => {
        const b = editHeader(good(), (h) => {
            const t = h["transformer.wte.weight"];
            t.data_offsets = [t.data_offsets[0] + 4, t.data_offsets[1] + 4];
        });
        await rejects(checkpointDir(b), "SAFETENSORS_OFFSETS", "transformer.wte.weight");
    });
    it("an unknown dtype", async () => {
        const b = editHeader(good(), (h) => {
            h["transformer.ln_f.bias"].dtype = "F33";
        });
        await rejects(checkpointDir(b), "SAFETENSORS_DTYPE", "transformer.ln_f.bias");
    });
    it("a dtype that contradicts config.json", async () => {
        const b = encodeSafetensors(gpt2Tensors(), "BF16");
        const config = JSON.parse(readFileSync(`${GPT2}/config.json`, "utf8"));
        await rejects(checkpointDir(b, config), "SAFETENSORS_DTYPE", "transformer.wte.weight");
    });
    it("a shape that contradicts config.json", async () => {
        const config = JSON.parse(readFileSync(`${GPT2}/config.json`, "utf8"));
        await rejects(checkpointDir(good(), { ...config, n_positions: 128 }), "SAFETENSORS_SHAPE", "transformer.wpe.weight");
    });
    it("a missing tensor", async () => {
        const b = encodeSafetensors(gpt2Tensors().filter((t) => t.name !== "transformer.h.1.mlp.c_fc.weight"));
        await rejects(checkpointDir(b), "SAFETENSORS_MISSING", "transformer.h.1.mlp.c_fc.weight");
    });
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
        it(`a ${bad} value`, async () => {
            const tensors = gpt2Tensors();
            const last = tensors.find((t) => t.name === "transformer.h.1.ln_2.weight");
            last.data[3] = bad;
            await rejects(checkpointDir(encodeSafetensors(tensors)), "SAFETENSORS_VALUE", "transformer.h.1.ln_2.weight");
        });
    }
    it("an unsupported architecture names the supported ones", () => {
        assert.throws(() => parseHfConfig({ model_type: "bert", architectures: ["BertModel"] }), (e) => e instanceof HfConfigError && e.code === "HF_ARCH_UNSUPPORTED" && /gpt2, opt, llama/.test(e.message));
    });
    it("an option the forward pass does not implement is refused by name", () => {
        const config = JSON.parse(readFileSync(`${LM_FIXTURES}llama-tiny/config.json`, "utf8"));
        assert.throws(() => parseHfConfig({ ...config, rope_parameters: { rope_type: "llama3", rope_theta: 5e5 } }), (e) => e instanceof HfConfigError && /rope_type/.test(e.message));
        // A well-formed config builds a layout of exactly the file's tensors.
        const layout = buildTransformer(parseHfConfig(config)).layout;
        assert.equal(layout.tensors.length, decodeSafetensors(readFileSync(`${LM_FIXTURES}llama-tiny/model.safetensors`), "llama").size);
    });
});
//# sourceMappingURL=safetensors.test.js.map