/**
 * The ONNX ModelProto bytes of a graph: the few messages and fields of onnx.proto (IR version 8)
 * that a transformer forward needs, written by hand.
 *
 * Why by hand: protobufjs is not a dependency of seedswarm (only a build-time dependency of
 * protons' CLI), `onnx-proto` would add it and a generated module of the whole onnx.proto for
 * seven messages, and protons (our wire codegen) speaks proto3 while onnx.proto is proto2. The
 * writer below is the protobuf wire format itself (varints, length-delimited fields, fixed32
 * floats); a message is a list of chunks, so a weight's raw bytes are referenced, never copied,
 * until the one final concatenation.
 */

/** onnx.proto TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, INT32: 6, INT64: 7 } as const;
export type DataTypeCode = (typeof DataType)[keyof typeof DataType];

/** AttributeProto.AttributeType values used here. */
const AttrType = { FLOAT: 1, INT: 2, STRING: 3, INTS: 7 } as const;

/** A protobuf message under construction: its encoded chunks in order. */
class Message {
  readonly parts: Uint8Array[] = [];
  length = 0;

  private push(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.length;
  }

  private tag(field: number, wire: number): void {
    this.push(varint(BigInt((field << 3) | wire)));
  }

  int(field: number, v: number): this {
    this.tag(field, 0);
    this.push(varint(BigInt(v)));
    return this;
  }

  float(field: number, v: number): this {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.push(b);
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2);
    this.push(varint(BigInt(b.length)));
    this.push(b);
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }

  message(field: number, m: Message): this {
    this.tag(field, 2);
    this.push(varint(BigInt(m.length)));
    for (const p of m.parts) this.push(p);
    return this;
  }
}

/** A base-128 varint; a negative int64 is its 64-bit two's complement (10 bytes). */
function varint(v: bigint): Uint8Array {
  let u = BigInt.asUintN(64, v);
  const out: number[] = [];
  while (u >= 0x80n) {
    out.push(Number(u & 0x7fn) | 0x80);
    u >>= 7n;
  }
  out.push(Number(u));
  return Uint8Array.from(out);
}

export type Attribute =
  | { readonly name: string; readonly f: number }
  | { readonly name: string; readonly i: number }
  | { readonly name: string; readonly s: string }
  | { readonly name: string; readonly ints: readonly number[] };

export interface NodeSpec {
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes?: readonly Attribute[];
  /** Operator domain; "" is the default ONNX domain, "com.microsoft" onnxruntime's contrib ops. */
  readonly domain?: string;
}

/** A dimension: a size, or a symbolic name bound at run time. */
export type Dim = number | string;

export interface ValueSpec {
  readonly name: string;
  readonly type: DataTypeCode;
  readonly dims: readonly Dim[];
}

export interface TensorSpec {
  readonly name: string;
  readonly type: DataTypeCode;
  readonly dims: readonly number[];
  /** Little-endian element bytes (a typed array's view, not copied). */
  readonly raw: Uint8Array;
}

export interface GraphSpec {
  readonly name: string;
  readonly nodes: readonly NodeSpec[];
  readonly inputs: readonly ValueSpec[];
  readonly outputs: readonly ValueSpec[];
  readonly initializers: readonly TensorSpec[];
  /** Operator sets the nodes use: domain -> version. */
  readonly opsets: Readonly<Record<string, number>>;
}

function attribute(a: Attribute): Message {
  const m = new Message().string(1, a.name);
  if ("f" in a) return m.float(2, a.f).int(20, AttrType.FLOAT);
  if ("i" in a) return m.int(3, a.i).int(20, AttrType.INT);
  if ("s" in a) return m.string(4, a.s).int(20, AttrType.STRING);
  for (const v of a.ints) m.int(8, v);
  return m.int(20, AttrType.INTS);
}

function node(n: NodeSpec, index: number): Message {
  const m = new Message();
  for (const i of n.inputs) m.string(1, i);
  for (const o of n.outputs) m.string(2, o);
  m.string(3, `n${index}_${n.op}`).string(4, n.op);
  for (const a of n.attributes ?? []) m.message(5, attribute(a));
  if (n.domain) m.string(7, n.domain);
  return m;
}

function valueInfo(v: ValueSpec): Message {
  const shape = new Message();
  for (const d of v.dims) shape.message(1, typeof d === "number" ? new Message().int(1, d) : new Message().string(2, d));
  const tensorType = new Message().int(1, v.type).message(2, shape);
  return new Message().string(1, v.name).message(2, new Message().message(1, tensorType));
}

function tensor(t: TensorSpec): Message {
  const m = new Message();
  for (const d of t.dims) m.int(1, d);
  return m.int(2, t.type).string(8, t.name).bytes(9, t.raw);
}

/** The serialized ModelProto of a graph. */
export function encodeModel(g: GraphSpec): Uint8Array {
  const graph = new Message();
  g.nodes.forEach((n, i) => graph.message(1, node(n, i)));
  graph.string(2, g.name);
  for (const t of g.initializers) graph.message(5, tensor(t));
  for (const v of g.inputs) graph.message(11, valueInfo(v));
  for (const v of g.outputs) graph.message(12, valueInfo(v));
  const model = new Message().int(1, 8).string(2, "seedswarm");
  for (const [domain, version] of Object.entries(g.opsets)) {
    const op = new Message();
    if (domain) op.string(1, domain);
    model.message(8, op.int(2, version));
  }
  model.message(7, graph);
  const out = new Uint8Array(model.length);
  let at = 0;
  for (const p of model.parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The bytes of a typed array's view, without a copy. */
export function rawBytes(a: Float32Array | Int32Array | BigInt64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
