/**
 * Canonical parameters: all weights of a model as ONE Float32Array in a fixed tensor order.
 * This array is the replicated state; backend tensors are only a cache refreshed from it.
 */
import { sha256Hex } from "../protocol/bytes.js";
import { endianness } from "node:os";
import * as tf from "@tensorflow/tfjs-core";
/** Builds a layout from (name, shape, fanIn, init) entries in the fixed order given. */
export function layoutOf(entries) {
    let offset = 0;
    const tensors = entries.map((e) => {
        const size = e.shape.reduce((a, b) => a * b, 1);
        const t = { ...e, offset, size };
        offset += size;
        return t;
    });
    return { tensors, size: offset };
}
const LITTLE_ENDIAN = endianness() === "LE";
export function weightsKindOf(w) {
    return w instanceof Float32Array ? "float32" : "packed";
}
/** The canonical bytes of the state: each 4-byte element little-endian, layout order. */
export function canonicalBytes(weights) {
    if (LITTLE_ENDIAN)
        return new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength);
    const out = new Uint8Array(weights.byteLength);
    const view = new DataView(out.buffer);
    if (weights instanceof Float32Array)
        for (let i = 0; i < weights.length; i++)
            view.setFloat32(4 * i, weights[i], true);
    else
        for (let i = 0; i < weights.length; i++)
            view.setUint32(4 * i, weights[i], true);
    return out;
}
/** State from canonical bytes (a copy, aligned), as float32 weights or packed words. */
export function weightsFromBytes(bytes, kind = "float32") {
    if (bytes.byteLength % 4 !== 0)
        throw new RangeError(`weight bytes not a multiple of 4: ${bytes.byteLength}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (kind === "packed") {
        const words = new Uint32Array(bytes.byteLength / 4);
        for (let i = 0; i < words.length; i++)
            words[i] = view.getUint32(4 * i, true);
        return words;
    }
    const out = new Float32Array(bytes.byteLength / 4);
    for (let i = 0; i < out.length; i++)
        out[i] = view.getFloat32(4 * i, true);
    return out;
}
/** The state as float32 weights, for algorithms that only train float models. */
export function floatWeights(w) {
    if (!(w instanceof Float32Array))
        throw new RangeError("this algorithm needs float32 weights, the state is packed");
    return w;
}
/** SHA-256 (hex) of the canonical state bytes. */
export function checksum(weights) {
    return sha256Hex(canonicalBytes(weights));
}
/**
 * Backend tensors for a state, one per layout entry (copies the data), transposed on the backend
 * where the layout says so (one tensor at a time: the transient copy is one tensor); a packed
 * state unpacks through its layout's own `toTensors`.
 */
export function toTensors(layout, weights) {
    if (layout.toTensors)
        return layout.toTensors(weights);
    return layout.tensors.map((t) => tensorOf(t, weights.subarray(t.offset, t.offset + t.size)));
}
/**
 * Whether the active backend copies an array into its own memory when a tensor is made from it,
 * so the caller may overwrite the array at once and reuse it: tfjs-wasm does; cpu, tfjs-node and
 * webgpu keep the array itself.
 */
export function backendCopiesValues() {
    return tf.getBackend() === "wasm";
}
/**
 * One backend tensor from a tensor's values in canonical order, transposed on the backend where
 * the layout says so. A backend may keep `values` itself (the cpu backend does): do not write to
 * it afterwards.
 */
export function tensorOf(t, values) {
    const x = tf.tensor(values, [...t.shape], "float32");
    if (!t.backendTransposed)
        return x;
    const y = tf.transpose(x);
    x.dispose();
    return y;
}
/**
 * The backend copy of the canonical weights. `refresh` after every canonical update; the
 * algorithms never write to these tensors.
 */
export class BackendWeights {
    layout;
    current = [];
    /** A packed state whose tensors are not built yet: they are built when first asked for. */
    pending = null;
    constructor(layout) {
        this.layout = layout;
    }
    refresh(weights) {
        if (weights.length !== this.layout.size) {
            throw new RangeError(`weights have ${weights.length} values, layout needs ${this.layout.size}`);
        }
        tf.dispose(this.current);
        this.current = [];
        // A packed model trains without the backend (its own popcount kernels): unpack on demand only.
        if (this.layout.packed)
            this.pending = weights;
        else
            this.current = toTensors(this.layout, weights);
    }
    get tensors() {
        if (this.pending) {
            this.current = toTensors(this.layout, this.pending);
            this.pending = null;
        }
        return this.current;
    }
    dispose() {
        tf.dispose(this.current);
        this.current = [];
        this.pending = null;
    }
}
//# sourceMappingURL=params.js.map