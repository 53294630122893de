/**
 * The dataset part of a RunSpec: which examples a run trains on, and for text, the task.
 */
import { fail, int, obj, type Obj, sha256, str } from "./spec-fields.js";

/** What a transformer run measures on a text dataset. */
export type TextTaskSpec =
  | {
      /** Next-token loss on windows of `contextLength` tokens of the (unlabelled) texts. */
      readonly kind: "causal-lm";
      readonly contextLength: number;
    }
  | {
      /** MeZO's prompt classification: `template` holds {text}; label i scores labelWords[i]. */
      readonly kind: "prompt-classification";
      readonly template: string;
      /** One single-token word per label, in the dataset's label order (sorted label strings). */
      readonly labelWords: readonly string[];
    };

/** Text from a JSONL or CSV file (fields text, label), named by the SHA-256 of its bytes. */
export interface TextDatasetSpec {
  readonly kind: "text";
  readonly format: "jsonl" | "csv";
  /** Hex SHA-256 of the file's bytes: a node checks the file it is given against it. */
  readonly contentHash: string;
  readonly task: TextTaskSpec;
}

export type DatasetSpec =
  | { readonly kind: "mnist" }
  | {
      /**
       * An IDX image set a node is given as a directory (`--idx-dir`, MNIST's file names), named
       * by the hex SHA-256 of its four files' bytes (train images, train labels, test images, test
       * labels): the spec names the bytes, never a path.
       */
      readonly kind: "idx";
      readonly contentHash: string;
    }
  | {
      readonly kind: "synthetic";
      readonly features: number;
      readonly classes: number;
      readonly trainSize: number;
      readonly testSize: number;
      readonly seed: number;
    }
  | TextDatasetSpec;

function textTask(v: unknown): TextTaskSpec {
  const kind = (v as Obj | null)?.kind;
  if (kind === "causal-lm") {
    const o = obj(v, "dataset.task", ["kind", "contextLength"]);
    return { kind, contextLength: int(o, "contextLength", "dataset.task", 2, 1 << 16) };
  }
  if (kind === "prompt-classification") {
    const o = obj(v, "dataset.task", ["kind", "template", "labelWords"]);
    const template = str(o, "template", "dataset.task");
    if (!template.includes("{text}")) fail("dataset.task.template", "must contain {text}", template);
    const words = o.labelWords;
    if (
      !Array.isArray(words) ||
      words.length < 2 ||
      words.length > 256 ||
      !words.every((w) => typeof w === "string" && w.length > 0 && w.length <= 256) ||
      new Set(words).size !== words.length
    ) {
      fail("dataset.task.labelWords", "must be 2..256 distinct non-empty strings", words);
    }
    return { kind, template, labelWords: [...(words as string[])] };
  }
  return fail("dataset.task.kind", 'must be "causal-lm" or "prompt-classification"', kind);
}

/**
 * Largest synthetic dataset a spec may imply (security review, finding 16): its examples are
 * generated in memory as float32 features plus a label byte, so 2^20 features x 2^24 rows would
 * be 64 TiB. 1 GiB is far above any preset.
 */
export const MAX_SYNTHETIC_DATASET_BYTES = 2 ** 30;

/** Bytes a synthetic dataset's examples take in memory. */
export function syntheticDatasetBytes(d: { features: number; trainSize: number; testSize: number }): number {
  return (d.features * 4 + 1) * (d.trainSize + d.testSize);
}

export function datasetSpec(v: unknown): DatasetSpec {
  const kind = (v as Obj | null)?.kind;
  if (kind === "mnist") {
    obj(v, "dataset", ["kind"]);
    return { kind };
  }
  if (kind === "idx") {
    const o = obj(v, "dataset", ["kind", "contentHash"]);
    return { kind, contentHash: sha256(o, "contentHash", "dataset") };
  }
  if (kind === "synthetic") {
    const o = obj(v, "dataset", ["kind", "features", "classes", "trainSize", "testSize", "seed"]);
    const d: DatasetSpec & { kind: "synthetic" } = {
      kind,
      features: int(o, "features", "dataset", 1, 1 << 20),
      classes: int(o, "classes", "dataset", 2, 256),
      trainSize: int(o, "trainSize", "dataset", 1, 1 << 24),
      testSize: int(o, "testSize", "dataset", 1, 1 << 24),
      seed: int(o, "seed", "dataset", 0, 0xffffffff),
    };
    const bytes = syntheticDatasetBytes(d);
    if (bytes > MAX_SYNTHETIC_DATASET_BYTES)
      fail("dataset", `would need ${bytes} bytes of examples (${(bytes / 2 ** 30).toFixed(1)} GiB); at most ${MAX_SYNTHETIC_DATASET_BYTES}`, { bytes });
    return d;
  }
  if (kind === "text") {
    const o = obj(v, "dataset", ["kind", "format", "contentHash", "task"]);
    if (o.format !== "jsonl" && o.format !== "csv") fail("dataset.format", 'must be "jsonl" or "csv"', o.format);
    return { kind, format: o.format, contentHash: sha256(o, "contentHash", "dataset"), task: textTask(o.task) };
  }
  return fail("dataset.kind", 'must be "mnist", "idx", "synthetic" or "text"', kind);
}
