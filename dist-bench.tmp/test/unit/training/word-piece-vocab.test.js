/** The demo's WordPiece vocabulary: a tokenizer.json that @huggingface/tokenizers reads, deterministic, covering its corpus. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { tokenizerFromJson } from "../../../training/data/tokenizer.js";
import { WORD_PIECE_SPECIALS, wordPieceTokenizerJson, wordsOf } from "../../../training/data/word-piece-vocab.js";
const CORPUS = [
    "Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse,",
    "and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part of the world.",
    "The whale! The whale! Call the whale, Ishmael.",
];
describe("WordPiece vocabulary (training/data/word-piece-vocab.ts)", () => {
    it("counts BERT-style words: lower case, letter/digit runs, punctuation alone", () => {
        assert.deepEqual(wordsOf("Call me Ishmael, 42 times!"), ["call", "me", "ishmael", ",", "42", "times", "!"]);
    });
    it("frequent words are whole tokens, required words are kept, the size is exact, and it is deterministic", () => {
        const json = wordPieceTokenizerJson(CORPUS, { size: 80, required: ["spam", "ham"] });
        const vocab = json.model.vocab;
        assert.equal(Object.keys(vocab).length, 80);
        assert.equal(vocab[WORD_PIECE_SPECIALS[0]], 0);
        assert.equal(vocab[WORD_PIECE_SPECIALS[1]], 1);
        for (const w of ["whale", "the", "spam", "ham"])
            assert.ok(w in vocab, w);
        assert.deepEqual(wordPieceTokenizerJson([...CORPUS], { size: 80, required: ["spam", "ham"] }), json);
        assert.throws(() => wordPieceTokenizerJson(CORPUS, { size: 10 }), /do not fit a vocabulary of 10/);
    });
    it("@huggingface/tokenizers encodes with it: known words are one id, unknown words split into pieces, no [UNK] in the corpus", () => {
        const tok = tokenizerFromJson(wordPieceTokenizerJson(CORPUS, { size: 80, required: ["spam", "ham"] }));
        assert.equal(tok.encode(" spam").length, 1);
        assert.equal(tok.encode(" ham").length, 1);
        assert.notEqual(tok.encode(" spam")[0], tok.encode(" ham")[0]);
        assert.deepEqual(tok.encode("The WHALE"), tok.encode("the whale"), "lower-cased");
        for (const line of CORPUS)
            assert.ok(!tok.encode(line).includes(1), `no [UNK] in ${line}`);
        const pieces = tok.encode("whalemael");
        assert.ok(pieces.length > 1, "an unseen word splits into pieces");
        assert.equal(tok.decode(tok.encode("call me ishmael .")), "call me ishmael.");
    });
    it("rare characters get no token (and encode as [UNK]) when minCharCount says so", () => {
        const tok = tokenizerFromJson(wordPieceTokenizerJson([...CORPUS, "z"], { size: 80, minCharCount: 2 }));
        assert.deepEqual(tok.encode("z"), [1]);
    });
});
//# sourceMappingURL=word-piece-vocab.test.js.map