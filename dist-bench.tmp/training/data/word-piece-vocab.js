/**
 * A Hugging Face `tokenizer.json` for a small model trained from scratch: a WordPiece vocabulary
 * (BERT's lower-casing normalizer and pre-tokenizer) of the most frequent words of a corpus, plus
 * every character it holds as a word start and as a `##` continuation, so any word of the corpus
 * tokenizes without [UNK]. This only chooses the vocabulary: encoding and decoding are
 * @huggingface/tokenizers' (or transformers') WordPiece, reading the file like any other.
 */
/** Special tokens at ids 0 and 1 (padding is id 0, as tokenBatch pads). */
export const WORD_PIECE_SPECIALS = ["[PAD]", "[UNK]"];
/**
 * What BERT's normalizer and pre-tokenizer make of a text, near enough to count words: lower case,
 * runs of letters or digits, and each other visible character alone.
 */
export function wordsOf(text) {
    return text.toLowerCase().match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? [];
}
/** The tokenizer.json object (serialize with JSON.stringify) of the corpus's WordPiece vocabulary. */
export function wordPieceTokenizerJson(texts, options) {
    const counts = new Map();
    const chars = new Map();
    for (const text of texts) {
        for (const w of wordsOf(text)) {
            counts.set(w, (counts.get(w) ?? 0) + 1);
            for (const ch of w)
                chars.set(ch, (chars.get(ch) ?? 0) + 1);
        }
    }
    const vocab = [...WORD_PIECE_SPECIALS];
    const seen = new Set(vocab);
    const add = (token) => {
        if (!seen.has(token)) {
            seen.add(token);
            vocab.push(token);
        }
    };
    // Code-point order, not locale order: the same ids on every machine.
    const minChar = options.minCharCount ?? 1;
    for (const ch of [...chars].filter(([, n]) => n >= minChar).map(([c]) => c).sort()) {
        add(ch);
        add(`##${ch}`);
    }
    for (const w of options.required ?? [])
        add(w);
    if (vocab.length > options.size) {
        throw new RangeError(`${vocab.length} characters and required words do not fit a vocabulary of ${options.size}`);
    }
    // Most frequent first, ties in code-point order.
    const words = [...counts].filter(([w]) => [...w].length > 1).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [w] of words) {
        if (vocab.length >= options.size)
            break;
        add(w);
    }
    return {
        version: "1.0",
        truncation: null,
        padding: null,
        added_tokens: WORD_PIECE_SPECIALS.map((content, id) => ({
            id,
            content,
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: false,
            special: true,
        })),
        normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
        pre_tokenizer: { type: "BertPreTokenizer" },
        post_processor: null,
        decoder: { type: "WordPiece", prefix: "##", cleanup: true },
        model: {
            type: "WordPiece",
            unk_token: "[UNK]",
            continuing_subword_prefix: "##",
            max_input_chars_per_word: 100,
            vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
        },
    };
}
//# sourceMappingURL=word-piece-vocab.js.map