/** Text datasets: JSONL and CSV read to the same examples, the content hash, the deterministic split, and errors naming the line. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { DatasetError } from "../../../training/data/dataset.js";
import { textDataset } from "../../../training/data/text-dataset.js";
const rows = Array.from({ length: 200 }, (_, i) => ({ text: `review number ${i}, "quoted", with a comma`, label: i % 3 === 0 ? "terrible" : "great" }));
const jsonl = new TextEncoder().encode(rows.map((r) => JSON.stringify(r)).join("\n") + "\n\n");
const csv = new TextEncoder().encode(`text,label\n${rows.map((r) => `"${r.text.replace(/"/g, '""')}",${r.label}`).join("\n")}\n`);
describe("text datasets", () => {
    it("JSONL and CSV give the same examples, labels and split; the name is the hash of the bytes", () => {
        const a = textDataset(jsonl, "jsonl", "a.jsonl", 0.2);
        const b = textDataset(csv, "csv", "b.csv", 0.2);
        assert.deepEqual(a.labels, ["great", "terrible"]);
        assert.deepEqual(a.train, b.train);
        assert.deepEqual(a.test, b.test);
        assert.equal(a.train.length + a.test.length, 200);
        // About a fifth held out (binomial: 40 +/- 6 at one sigma).
        assert.ok(a.test.length > 20 && a.test.length < 60, `${a.test.length} held out`);
        assert.equal(a.contentHash, createHash("sha256").update(jsonl).digest("hex"));
        assert.notEqual(a.contentHash, b.contentHash);
        // The split depends on the texts alone: reordering the file keeps every example on its side.
        const reversed = new TextEncoder().encode([...rows].reverse().map((r) => JSON.stringify(r)).join("\n"));
        const c = textDataset(reversed, "jsonl", "c.jsonl", 0.2);
        assert.deepEqual(new Set(c.test.map((e) => e.text)), new Set(a.test.map((e) => e.text)));
    });
    it("unlabelled text is fine; a file mixing labelled and unlabelled lines, or a bad line, is refused naming it", () => {
        const plain = textDataset(new TextEncoder().encode('{"text":"call me Ishmael"}\n{"text":"some years ago"}\n'), "jsonl", "moby.jsonl", 0);
        assert.deepEqual(plain.labels, []);
        assert.equal(plain.train.length, 2);
        assert.throws(() => textDataset(new TextEncoder().encode('{"text":"a","label":"x"}\n{"text":"b"}\n'), "jsonl", "mixed.jsonl"), (e) => e instanceof DatasetError && /mixed\.jsonl.*1 of 2 examples have a label/.test(e.message));
        assert.throws(() => textDataset(new TextEncoder().encode('{"text":"a"}\n{"text": 5}\n'), "jsonl", "bad.jsonl"), (e) => e instanceof DatasetError && /bad\.jsonl: line 2: text must be a non-empty string/.test(e.message));
        assert.throws(() => textDataset(new TextEncoder().encode('text,label\n"unterminated,1\n'), "csv", "bad.csv"), (e) => e instanceof DatasetError && /bad\.csv: CSV/.test(e.message));
    });
});
//# sourceMappingURL=text-dataset.test.js.map