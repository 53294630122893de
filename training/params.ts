/**
 * Canonical parameters: all weights of a model as ONE Float32Array in a fixed tensor order.
 * This array is the replicated state; backend tensors are only a cache refreshed from it.
 */
import { sha256Hex } from "../protocol/bytes.js";
import { endianness } from "node:os";
import * as tf from "@tensorflow/tfjs";

export interface TensorLayout {
  readonly name: string;
  readonly shape: readonly number[];
  readonly offset: number;
  readonly size: number;
  /** Inputs per output unit, for initialization. */
  readonly fanIn: number;
  readonly init: "he" | "zeros" | "ones";
  /**
   * The backend holds this 2-D tensor transposed: a model whose canonical (file) orientation is
   * [out, in] multiplies faster with [in, out] (tfjs-wasm's matMul with transposeB is ~10x slower).
   */
  readonly backendTransposed?: boolean;
}

/** What a model declares per tensor; the layout adds offsets and sizes. */
export type LayoutEntry = {
  name: string;
  shape: number[];
  fanIn: number;
  init: TensorLayout["init"];
  backendTransposed?: boolean;
};

export interface ParamLayout {
  readonly tensors: readonly TensorLayout[];
  readonly size: number;
}

/** Builds a layout from (name, shape, fanIn, init) entries in the fixed order given. */
export function layoutOf(
  entries: readonly LayoutEntry[],
): ParamLayout {
  let offset = 0;
  const tensors = entries.map((e) => {
    const size = e.shape.reduce((a, b) => a * b, 1);
    const t: TensorLayout = { ...e, offset, size };
    offset += size;
    return t;
  });
  return { tensors, size: offset };
}

const LITTLE_ENDIAN = endianness() === "LE";

/** The canonical bytes of the weights: little-endian float32, layout order. */
export function canonicalBytes(weights: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength);
  const out = new Uint8Array(weights.byteLength);
  const view = new DataView(out.buffer);
  for (let i = 0; i < weights.length; i++) view.setFloat32(4 * i, weights[i], true);
  return out;
}

/** Weights from canonical bytes (a copy, aligned). */
export function weightsFromBytes(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0)
    throw new RangeError(`weight bytes not a multiple of 4: ${bytes.byteLength}`);
  const out = new Float32Array(bytes.byteLength / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i, true);
  return out;
}

/** SHA-256 (hex) of the canonical weight bytes. */
export function checksum(weights: Float32Array): string {
  return sha256Hex(canonicalBytes(weights));
}

/**
 * Backend tensors for a flat weight array, one per layout entry (copies the data), transposed on
 * the backend where the layout says so (one tensor at a time: the transient copy is one tensor).
 */
export function toTensors(layout: ParamLayout, weights: Float32Array): tf.Tensor[] {
  return layout.tensors.map((t) => {
    const x = tf.tensor(weights.subarray(t.offset, t.offset + t.size), [...t.shape], "float32");
    if (!t.backendTransposed) return x;
    const y = tf.transpose(x);
    x.dispose();
    return y;
  });
}

/**
 * The backend copy of the canonical weights. `refresh` after every canonical update; the
 * algorithms never write to these tensors.
 */
export class BackendWeights {
  private current: tf.Tensor[] = [];

  constructor(readonly layout: ParamLayout) {}

  refresh(weights: Float32Array): void {
    if (weights.length !== this.layout.size) {
      throw new RangeError(
        `weights have ${weights.length} values, layout needs ${this.layout.size}`,
      );
    }
    tf.dispose(this.current);
    this.current = toTensors(this.layout, weights);
  }

  get tensors(): readonly tf.Tensor[] {
    return this.current;
  }

  dispose(): void {
    tf.dispose(this.current);
    this.current = [];
  }
}
