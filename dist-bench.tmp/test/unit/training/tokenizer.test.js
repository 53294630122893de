/** Tokenizers: tokenizer.json through @huggingface/tokenizers reproduces Hugging Face tokenizers' ids; GPT-2's BPE its known ids. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { gpt2Tokenizer, tokenizerFromJson } from "../../../training/data/tokenizer.js";
import { LM_FIXTURES } from "../../helpers/lm-fixtures.js";
describe("tokenizers", () => {
    it("llama-tiny/tokenizer.json reproduces tokenizer-reference.json (Hugging Face tokenizers 0.23.2) exactly", () => {
        const tok = tokenizerFromJson(JSON.parse(readFileSync(`${LM_FIXTURES}llama-tiny/tokenizer.json`, "utf8")));
        const ref = JSON.parse(readFileSync(`${LM_FIXTURES}llama-tiny/tokenizer-reference.json`, "utf8"));
        assert.ok(ref.length >= 4);
        for (const r of ref) {
            assert.deepEqual(tok.encode(r.text), r.ids, r.text);
            assert.equal(tok.decode(r.ids), r.text);
        }
    });
    it("GPT-2's BPE: ' great' is 1049 and ' terrible' 7818, and text round-trips", () => {
        const tok = gpt2Tokenizer();
        assert.deepEqual(tok.encode(" great"), [1049]);
        assert.deepEqual(tok.encode(" terrible"), [7818]);
        assert.deepEqual(tok.encode("Hello world"), [15496, 995]);
        const text = "It was great. <|endoftext|> café — über";
        assert.equal(tok.decode(tok.encode(text)), text);
        assert.ok(!tok.encode(text).includes(50256), "special-token text is not the control id");
    });
});
//# sourceMappingURL=tokenizer.test.js.map