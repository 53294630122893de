/**
 * Tokenizers from maintained libraries, never a hand-written BPE: a Hugging Face `tokenizer.json`
 * through @huggingface/tokenizers (pure JS, reads the file's contents offline), and GPT-2's BPE
 * through js-tiktoken, whose r50k ranks ship inside the package (docs/architecture.md says why).
 */
import { Tokenizer } from "@huggingface/tokenizers";
import { Tiktoken } from "js-tiktoken/lite";
import gpt2Ranks from "js-tiktoken/ranks/gpt2";
/** A tokenizer from the parsed contents of `tokenizer.json` (and `tokenizer_config.json`, if any). */
export function tokenizerFromJson(tokenizerJson, tokenizerConfig = {}) {
    const tok = new Tokenizer(tokenizerJson, tokenizerConfig);
    return {
        name: "tokenizer.json (@huggingface/tokenizers)",
        encode: (text) => tok.encode(text).ids,
        decode: (ids) => tok.decode([...ids]),
    };
}
let gpt2 = null;
/** GPT-2's byte-level BPE (50,257 ids, r50k), as GPT-2 and its fine-tunes tokenize. */
export function gpt2Tokenizer() {
    gpt2 ??= new Tiktoken(gpt2Ranks);
    const enc = gpt2;
    return {
        name: "gpt2 (js-tiktoken)",
        // Special-token text ("<|endoftext|>") in data is encoded as plain text, never as the control id.
        encode: (text) => enc.encode(text, [], []),
        decode: (ids) => enc.decode([...ids]),
    };
}
//# sourceMappingURL=tokenizer.js.map