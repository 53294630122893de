/**
 * The safetensors format (Hugging Face): 8 bytes of header length (u64 little-endian), that many
 * bytes of JSON header ({name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}}),
 * then the raw tensor bytes, little-endian, offsets relative to the start of the data.
 *
 * A pure codec over bytes: parsing a header validates everything that can be checked without the
 * data (lengths, offsets, dtypes, sizes), so a reader can refuse a bad file before it decodes any
 * tensor. Decoding converts F32/F16/BF16 to float32 and refuses NaN and infinities.
 */
import { SeedswarmError } from "../../protocol/errors.js";
/** A bad safetensors file or tensor; context names the `file` and, where one is at fault, the `tensor`. */
export class SafetensorsError extends SeedswarmError {
}
/** Dtypes seedswarm decodes to float32 and encodes from it. */
export const DECODABLE_DTYPES = ["F32", "F16", "BF16"];
/** Bytes per element of every dtype the format defines: sizes are checked even for tensors not decoded. */
const DTYPE_BYTES = {
    BOOL: 1,
    U8: 1,
    I8: 1,
    F8_E4M3: 1,
    F8_E5M2: 1,
    I16: 2,
    U16: 2,
    F16: 2,
    BF16: 2,
    I32: 4,
    U32: 4,
    F32: 4,
    I64: 8,
    U64: 8,
    F64: 8,
};
/** Largest header accepted (the reference implementation's limit): a guard before JSON.parse. */
export const MAX_HEADER_BYTES = 100_000_000;
function fail(code, file, message, extra = {}) {
    throw new SafetensorsError(code, `${file}: ${message}`, { file, ...extra });
}
/**
 * The header length from the first 8 bytes, checked against the file size.
 * @throws SafetensorsError SAFETENSORS_HEADER when it is past the end of the file or too large.
 */
export function headerLength(prefix, fileSize, file) {
    if (prefix.byteLength < 8 || fileSize < 8)
        fail("SAFETENSORS_HEADER", file, `file of ${fileSize} bytes has no header length`);
    const n = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
    if (n > BigInt(MAX_HEADER_BYTES))
        fail("SAFETENSORS_HEADER", file, `header length ${n} exceeds ${MAX_HEADER_BYTES} bytes`);
    if (8n + n > BigInt(fileSize)) {
        fail("SAFETENSORS_HEADER", file, `header length ${n} runs past the end of the file (${fileSize} bytes)`);
    }
    return Number(n);
}
const elements = (shape) => shape.reduce((a, b) => a * b, 1);
/**
 * Parses and validates the JSON header. The tensors' byte ranges must tile the data section
 * exactly (sorted, no gap, no overlap, nothing past its end), as the reference implementation
 * requires, and each range must hold exactly its shape in its dtype.
 * @throws SafetensorsError naming the file and the tensor at fault.
 */
export function parseHeader(json, fileSize, file) {
    let raw;
    try {
        raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(json));
    }
    catch (err) {
        fail("SAFETENSORS_HEADER", file, `header is not JSON: ${err.message}`);
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        fail("SAFETENSORS_HEADER", file, "header is not a JSON object");
    const dataStart = 8 + json.byteLength;
    const dataBytes = fileSize - dataStart;
    const tensors = new Map();
    let metadata = {};
    for (const [name, v] of Object.entries(raw)) {
        if (name === "__metadata__") {
            metadata = (v ?? {});
            continue;
        }
        const e = v;
        const bad = (code, problem) => fail(code, file, `tensor ${name}: ${problem}`, { tensor: name });
        if (typeof e !== "object" || e === null)
            return bad("SAFETENSORS_HEADER", "entry is not an object");
        const { dtype, shape, data_offsets: offsets } = e;
        if (typeof dtype !== "string" || !(dtype in DTYPE_BYTES)) {
            bad("SAFETENSORS_DTYPE", `unknown dtype ${JSON.stringify(dtype)} (the format defines ${Object.keys(DTYPE_BYTES).join(", ")})`);
        }
        if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
            bad("SAFETENSORS_SHAPE", `shape ${JSON.stringify(shape)} is not a list of sizes`);
        }
        if (!Array.isArray(offsets) ||
            offsets.length !== 2 ||
            !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) ||
            offsets[1] < offsets[0]) {
            bad("SAFETENSORS_OFFSETS", `data_offsets ${JSON.stringify(offsets)} are not [begin, end]`);
        }
        const [begin, end] = offsets;
        if (end > dataBytes)
            bad("SAFETENSORS_OFFSETS", `data_offsets [${begin}, ${end}] run past the data (${dataBytes} bytes)`);
        const want = elements(shape) * DTYPE_BYTES[dtype];
        if (end - begin !== want) {
            bad("SAFETENSORS_OFFSETS", `data_offsets [${begin}, ${end}] hold ${end - begin} bytes, shape ${JSON.stringify(shape)} in ${dtype} needs ${want}`);
        }
        tensors.set(name, { name, dtype: dtype, shape: [...shape], begin, end });
    }
    const sorted = [...tensors.values()].sort((a, b) => a.begin - b.begin || a.end - b.end);
    let at = 0;
    for (const t of sorted) {
        if (t.begin < at) {
            fail("SAFETENSORS_OFFSETS", file, `tensor ${t.name}: data_offsets [${t.begin}, ${t.end}] overlap the previous tensor (ends at ${at})`, { tensor: t.name });
        }
        if (t.begin > at) {
            fail("SAFETENSORS_OFFSETS", file, `tensor ${t.name}: data_offsets [${t.begin}, ${t.end}] leave a gap after byte ${at}`, { tensor: t.name });
        }
        at = t.end;
    }
    if (at !== dataBytes)
        fail("SAFETENSORS_OFFSETS", file, `tensors cover ${at} of the ${dataBytes} data bytes`);
    return { file, dataStart, tensors, metadata };
}
/** Parses the header of a whole file held in memory. */
export function parseFile(bytes, file) {
    const n = headerLength(bytes, bytes.byteLength, file);
    return parseHeader(bytes.subarray(8, 8 + n), bytes.byteLength, file);
}
/** float32 from IEEE half bits (exact: every half is a float32). */
function halfToFloat(h) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >>> 10) & 0x1f;
    const frac = h & 0x3ff;
    if (exp === 0)
        return sign * frac * 2 ** -24;
    if (exp === 31)
        return frac === 0 ? sign * Infinity : Number.NaN;
    return sign * (1024 + frac) * 2 ** (exp - 25);
}
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** IEEE half bits of a float32, rounded to nearest even (overflow gives infinity). */
function floatToHalf(x) {
    f32[0] = x;
    const b = u32[0];
    const sign = (b >>> 16) & 0x8000;
    const exp = (b >>> 23) & 0xff;
    const mant = b & 0x7fffff;
    if (exp === 0xff)
        return sign | 0x7c00 | (mant ? 0x200 : 0);
    const e = exp - 127 + 15;
    if (e >= 31)
        return sign | 0x7c00;
    if (e <= 0) {
        if (e < -10)
            return sign;
        // Subnormal half: shift the mantissa (with its implicit 1) and round to nearest even.
        const m = mant | 0x800000;
        const shift = 14 - e;
        const half = m >>> shift;
        const rest = m & ((1 << shift) - 1);
        const mid = 1 << (shift - 1);
        return sign | (half + (rest > mid || (rest === mid && half & 1) ? 1 : 0));
    }
    const half = (e << 10) | (mant >>> 13);
    const rest = mant & 0x1fff;
    // A carry out of the mantissa rounds into the exponent, which is the correct result.
    return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0));
}
/** bfloat16 bits of a float32, rounded to nearest even. */
function floatToBf16(x) {
    f32[0] = x;
    const b = u32[0];
    if ((b & 0x7f800000) === 0x7f800000 && b & 0x7fffff)
        return (b >>> 16) | 0x40;
    return ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
}
/**
 * Decodes one tensor's bytes (exactly entry.end - entry.begin of them) into `out` as float32.
 * @throws SafetensorsError SAFETENSORS_DTYPE for a dtype seedswarm does not decode, and
 *   SAFETENSORS_VALUE at the first NaN or infinity (a diverged or corrupt checkpoint).
 */
export function decodeInto(entry, bytes, out, file) {
    const n = elements(entry.shape);
    if (bytes.byteLength !== entry.end - entry.begin || out.length !== n) {
        throw new RangeError(`${file}: tensor ${entry.name}: ${bytes.byteLength} bytes into ${out.length} values`);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    switch (entry.dtype) {
        case "F32":
            for (let i = 0; i < n; i++)
                out[i] = view.getFloat32(4 * i, true);
            break;
        case "F16":
            for (let i = 0; i < n; i++)
                out[i] = halfToFloat(view.getUint16(2 * i, true));
            break;
        case "BF16":
            for (let i = 0; i < n; i++) {
                u32[0] = view.getUint16(2 * i, true) << 16;
                out[i] = f32[0];
            }
            break;
        default:
            fail("SAFETENSORS_DTYPE", file, `tensor ${entry.name}: dtype ${entry.dtype} is not a float type seedswarm reads (${DECODABLE_DTYPES.join(", ")})`, {
                tensor: entry.name,
                dtype: entry.dtype,
            });
    }
    for (let i = 0; i < n; i++) {
        if (!Number.isFinite(out[i])) {
            fail("SAFETENSORS_VALUE", file, `tensor ${entry.name}: value ${out[i]} at index ${i}`, { tensor: entry.name, index: i });
        }
    }
}
/**
 * The file's leading bytes (length + JSON header, padded with spaces to a multiple of 8 so the
 * data is aligned) for tensors written in order, each in `dtype`.
 */
export function encodeHeader(tensors, dtype, metadata = {}) {
    const header = {};
    if (Object.keys(metadata).length > 0)
        header.__metadata__ = metadata;
    let at = 0;
    for (const t of tensors) {
        const size = elements(t.shape) * DTYPE_BYTES[dtype];
        header[t.name] = { dtype, shape: t.shape, data_offsets: [at, at + size] };
        at += size;
    }
    let json = new TextEncoder().encode(JSON.stringify(header));
    const padded = Math.ceil(json.byteLength / 8) * 8;
    if (padded !== json.byteLength) {
        const p = new Uint8Array(padded).fill(0x20);
        p.set(json);
        json = p;
    }
    const out = new Uint8Array(8 + json.byteLength);
    new DataView(out.buffer).setBigUint64(0, BigInt(json.byteLength), true);
    out.set(json, 8);
    return out;
}
/** A tensor's data bytes in `dtype` (F16/BF16 rounded to nearest even). */
export function encodeData(data, dtype) {
    const out = new Uint8Array(data.length * DTYPE_BYTES[dtype]);
    const view = new DataView(out.buffer);
    if (dtype === "F32")
        for (let i = 0; i < data.length; i++)
            view.setFloat32(4 * i, data[i], true);
    else if (dtype === "F16")
        for (let i = 0; i < data.length; i++)
            view.setUint16(2 * i, floatToHalf(data[i]), true);
    else
        for (let i = 0; i < data.length; i++)
            view.setUint16(2 * i, floatToBf16(data[i]), true);
    return out;
}
/** A whole safetensors file in memory (small models and tests; large exports write piece by piece). */
export function encodeSafetensors(tensors, dtype = "F32", metadata = {}) {
    return Buffer.concat([encodeHeader(tensors, dtype, metadata), ...tensors.map((t) => encodeData(t.data, dtype))]);
}
/** Every tensor of a file in memory, decoded (tests and small files). */
export function decodeSafetensors(bytes, file) {
    const h = parseFile(bytes, file);
    const out = new Map();
    for (const e of h.tensors.values()) {
        const data = new Float32Array(elements(e.shape));
        decodeInto(e, bytes.subarray(h.dataStart + e.begin, h.dataStart + e.end), data, file);
        out.set(e.name, { name: e.name, shape: e.shape, data });
    }
    return out;
}
//# sourceMappingURL=safetensors.js.map