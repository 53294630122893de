/**
 * The dataset part of a RunSpec: which examples a run trains on, and for text, the task.
 */
import { fail, int, obj, sha256, str } from "./spec-fields.js";
function textTask(v) {
    const kind = v?.kind;
    if (kind === "causal-lm") {
        const o = obj(v, "dataset.task", ["kind", "contextLength"]);
        return { kind, contextLength: int(o, "contextLength", "dataset.task", 2, 1 << 16) };
    }
    if (kind === "prompt-classification") {
        const o = obj(v, "dataset.task", ["kind", "template", "labelWords"]);
        const template = str(o, "template", "dataset.task");
        if (!template.includes("{text}"))
            fail("dataset.task.template", "must contain {text}", template);
        const words = o.labelWords;
        if (!Array.isArray(words) ||
            words.length < 2 ||
            words.length > 256 ||
            !words.every((w) => typeof w === "string" && w.length > 0 && w.length <= 256) ||
            new Set(words).size !== words.length) {
            fail("dataset.task.labelWords", "must be 2..256 distinct non-empty strings", words);
        }
        return { kind, template, labelWords: [...words] };
    }
    return fail("dataset.task.kind", 'must be "causal-lm" or "prompt-classification"', kind);
}
export function datasetSpec(v) {
    const kind = v?.kind;
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
        return {
            kind,
            features: int(o, "features", "dataset", 1, 1 << 20),
            classes: int(o, "classes", "dataset", 2, 256),
            trainSize: int(o, "trainSize", "dataset", 1, 1 << 24),
            testSize: int(o, "testSize", "dataset", 1, 1 << 24),
            seed: int(o, "seed", "dataset", 0, 0xffffffff),
        };
    }
    if (kind === "text") {
        const o = obj(v, "dataset", ["kind", "format", "contentHash", "task"]);
        if (o.format !== "jsonl" && o.format !== "csv")
            fail("dataset.format", 'must be "jsonl" or "csv"', o.format);
        return { kind, format: o.format, contentHash: sha256(o, "contentHash", "dataset"), task: textTask(o.task) };
    }
    return fail("dataset.kind", 'must be "mnist", "idx", "synthetic" or "text"', kind);
}
//# sourceMappingURL=dataset-spec.js.map