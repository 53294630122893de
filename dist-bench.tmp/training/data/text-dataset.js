/**
 * Labelled or plain text from JSONL or CSV files (fields `text` and, optionally, `label`), named
 * by the SHA-256 of the file's bytes, with a deterministic train/test split: an example is held
 * out when the hash of its text says so, so the split depends on nothing but the texts (the same
 * text is always on the same side, which also keeps duplicates from leaking into the test set).
 */
import { createHash } from "node:crypto";
import { parse } from "csv-parse/sync";
import { DatasetError } from "./dataset.js";
const bad = (name, where, problem) => {
    throw new DatasetError("DATASET_BAD_LABEL", `${name}: ${where}: ${problem}`, { name, where });
};
function example(row, name, where) {
    if (typeof row !== "object" || row === null || Array.isArray(row))
        return bad(name, where, "not an object with a text field");
    const { text, label } = row;
    if (typeof text !== "string" || text.length === 0)
        return bad(name, where, "text must be a non-empty string");
    if (label !== undefined && label !== null && typeof label !== "string" && typeof label !== "number" && typeof label !== "boolean") {
        return bad(name, where, `label ${JSON.stringify(label)} is not a string, number or boolean`);
    }
    return { text, label: label === undefined || label === null || label === "" ? null : String(label) };
}
/** The examples of a JSONL (one object per line, blank lines skipped) or CSV (header row naming `text`, `label`) file. */
export function parseTextExamples(bytes, format, name) {
    const content = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    if (format === "jsonl") {
        const out = [];
        content.split("\n").forEach((line, i) => {
            if (line.trim() === "")
                return;
            let row;
            try {
                row = JSON.parse(line);
            }
            catch (err) {
                bad(name, `line ${i + 1}`, `not JSON (${err.message})`);
            }
            out.push(example(row, name, `line ${i + 1}`));
        });
        return out;
    }
    let rows;
    try {
        rows = parse(content, { columns: true, skip_empty_lines: true, bom: true });
    }
    catch (err) {
        return bad(name, "CSV", err.message);
    }
    return rows.map((r, i) => example(r, name, `row ${i + 2}`));
}
/** Whether an example belongs to the test split: the first 32 bits of SHA-256(text) below fraction * 2^32. */
function heldOut(text, testFraction) {
    return createHash("sha256").update(text).digest().readUInt32BE(0) < testFraction * 2 ** 32;
}
/**
 * A dataset from a file's bytes. Either every example has a label or none has.
 * @throws DatasetError naming the file and the line or row at fault.
 */
export function textDataset(bytes, format, name, testFraction = 0.1) {
    if (!(testFraction >= 0 && testFraction < 1))
        throw new RangeError(`test fraction must be in [0, 1), got ${testFraction}`);
    const examples = parseTextExamples(bytes, format, name);
    if (examples.length === 0)
        bad(name, "file", "holds no examples");
    const labelled = examples.filter((e) => e.label !== null).length;
    if (labelled !== 0 && labelled !== examples.length) {
        bad(name, "file", `${labelled} of ${examples.length} examples have a label: label all or none`);
    }
    const labels = [...new Set(examples.flatMap((e) => (e.label === null ? [] : [e.label])))].sort();
    return {
        name,
        contentHash: createHash("sha256").update(bytes).digest("hex"),
        labels,
        train: examples.filter((e) => !heldOut(e.text, testFraction)),
        test: examples.filter((e) => heldOut(e.text, testFraction)),
    };
}
//# sourceMappingURL=text-dataset.js.map