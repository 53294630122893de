/**
 * Reader for IDX files, the MNIST container: big-endian, magic 0x00 0x00 <type> <ndims>, then
 * ndims uint32 sizes, then the data. Only unsigned bytes (type 0x08) are supported: that is what
 * image and label sets ship as, and anything else would need a different Split conversion.
 */
import { readFile } from "node:fs/promises";
import { SeedswarmError } from "../../protocol/errors.js";
export class IdxError extends SeedswarmError {
}
const TYPE_UBYTE = 0x08;
const TYPE_NAMES = {
    8: "unsigned byte",
    9: "signed byte",
    11: "int16",
    12: "int32",
    13: "float32",
    14: "float64",
};
const MAX_DIMS = 4;
/** Larger than any sane dataset file and well inside Number's exact integers. */
const MAX_BYTES = 2 ** 32;
function hex(b) {
    return `0x${b.toString(16).padStart(2, "0")}`;
}
/**
 * Parses an IDX buffer. `source` names the file in error messages. The returned data is a view
 * into `buf`, not a copy.
 * @throws IdxError on any inconsistency between the header and the buffer.
 */
export function parseIdx(buf, source) {
    if (buf.length < 4) {
        throw new IdxError("IDX_TRUNCATED", `${source}: IDX header is truncated: need 4 magic bytes, file has ${buf.length}`, { source, expected: 4, found: buf.length });
    }
    if (buf[0] !== 0 || buf[1] !== 0) {
        const found = Array.from(buf.subarray(0, 4), hex).join(" ");
        throw new IdxError("IDX_BAD_MAGIC", `${source}: not an IDX file: magic should start 0x00 0x00, found ${found}`, { source, found });
    }
    const type = buf[2];
    if (type !== TYPE_UBYTE) {
        const what = TYPE_NAMES[type] ?? "unknown type";
        throw new IdxError("IDX_UNSUPPORTED_TYPE", `${source}: IDX element type ${hex(type)} (${what}) is not supported, only ${hex(TYPE_UBYTE)} (unsigned byte)`, { source, expected: TYPE_UBYTE, found: type });
    }
    const ndims = buf[3];
    if (ndims === 0 || ndims > MAX_DIMS) {
        throw new IdxError("IDX_BAD_DIMS", `${source}: IDX header has ${ndims} dimensions, expected 1 to ${MAX_DIMS}`, { source, expected: [1, MAX_DIMS], found: ndims });
    }
    const headerLen = 4 + 4 * ndims;
    if (buf.length < headerLen) {
        throw new IdxError("IDX_TRUNCATED", `${source}: IDX header is truncated: ${ndims} dimensions need ${headerLen} header bytes, file has ${buf.length}`, { source, expected: headerLen, found: buf.length });
    }
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const dims = [];
    for (let i = 0; i < ndims; i++)
        dims.push(view.getUint32(4 + 4 * i, false));
    const shape = dims.join("x");
    if (dims.includes(0)) {
        throw new IdxError("IDX_BAD_DIMS", `${source}: IDX header has a zero dimension: ${shape}`, {
            source,
            found: dims,
        });
    }
    const expected = dims.reduce((a, b) => a * b, 1);
    if (expected > MAX_BYTES) {
        throw new IdxError("IDX_BAD_DIMS", `${source}: IDX header dimensions ${shape} = ${expected} bytes exceed the ${MAX_BYTES}-byte limit`, { source, expected: MAX_BYTES, found: dims });
    }
    const found = buf.length - headerLen;
    if (found !== expected) {
        const truncated = found < expected;
        throw new IdxError(truncated ? "IDX_TRUNCATED" : "IDX_SIZE_MISMATCH", `${source}: IDX data ${truncated ? "is truncated" : "has trailing bytes"}: header says ${shape} = ${expected} bytes, file has ${found} after the header`, { source, dims, expected, found });
    }
    return { dims, data: buf.subarray(headerLen) };
}
/**
 * Reads and parses an IDX file. `source` (default: the path) names it in error messages.
 * @throws IdxError IDX_READ_FAILED when the file cannot be read, or any parseIdx error.
 */
export async function readIdxFile(path, source = path) {
    let buf;
    try {
        buf = await readFile(path);
    }
    catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new IdxError("IDX_READ_FAILED", `cannot read IDX file ${path}: ${reason}`, {
            path,
            reason,
        });
    }
    return parseIdx(buf, source);
}
//# sourceMappingURL=idx.js.map