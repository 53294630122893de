/**
 * Prompt-based classification as in MeZO (Malladi et al. 2023): each example becomes a prompt from
 * a template (`{text} It was`), each class a label word (` great` / ` terrible`); the model's
 * logits for the label words at the prompt's last position are the class scores. Loss is their
 * cross-entropy against the label, accuracy their argmax. Pure: tokens in, numbers out.
 */
import * as tf from "@tensorflow/tfjs-core";
import { SeedswarmError } from "../../protocol/errors.js";
import { crossEntropy } from "../models/model.js";
import { tokenBatch } from "../models/transformer.js";
import { sampleIndices } from "../data/dataset.js";
export class PromptTaskError extends SeedswarmError {
}
/** Where the example's text goes in a template. */
export const TEXT_SLOT = "{text}";
/**
 * Tokenizes a task's label words (each must be exactly one token, and all different) and binds
 * the template. A prompt longer than `maxTokens` (the model's positions) keeps the template's
 * tail (the answer cue, e.g. " It was") and as much of the start as fits, as MeZO truncates
 * long inputs. @throws PromptTaskError naming the word or the template.
 */
export function tokenizePromptTask(task, tokenizer, maxTokens = Infinity) {
    if (!task.template.includes(TEXT_SLOT)) {
        throw new PromptTaskError("PROMPT_TASK_INVALID", `template ${JSON.stringify(task.template)} has no ${TEXT_SLOT}`, { template: task.template });
    }
    if (task.labelWords.length < 2) {
        throw new PromptTaskError("PROMPT_TASK_INVALID", `a task needs at least 2 label words, got ${task.labelWords.length}`, {});
    }
    const labelIds = task.labelWords.map((word) => {
        const ids = tokenizer.encode(word);
        if (ids.length !== 1) {
            throw new PromptTaskError("PROMPT_TASK_INVALID", `label word ${JSON.stringify(word)} is ${ids.length} tokens (${JSON.stringify(ids)}) for ${tokenizer.name}; each must be exactly one`, { word, ids });
        }
        return ids[0];
    });
    if (new Set(labelIds).size !== labelIds.length) {
        throw new PromptTaskError("PROMPT_TASK_INVALID", `label words ${JSON.stringify(task.labelWords)} share a token`, { labelIds });
    }
    const [before, after] = [task.template.slice(0, task.template.indexOf(TEXT_SLOT)), task.template.slice(task.template.indexOf(TEXT_SLOT) + TEXT_SLOT.length)];
    // The tail's own ids, without the special tokens (a BOS) the tokenizer puts before any text.
    const specials = tokenizer.encode("");
    const tailIds = after === "" ? [] : tokenizer.encode(after);
    const tail = specials.every((id, i) => tailIds[i] === id) ? tailIds.slice(specials.length) : tailIds;
    if (tail.length >= maxTokens) {
        throw new PromptTaskError("PROMPT_TASK_INVALID", `template tail ${JSON.stringify(after)} is ${tail.length} tokens, the model has ${maxTokens} positions`, { template: task.template });
    }
    return {
        labelIds,
        prompt: (text) => {
            const ids = tokenizer.encode(`${before}${text}${after}`);
            return ids.length <= maxTokens ? ids : [...tokenizer.encode(`${before}${text}`).slice(0, maxTokens - tail.length), ...tail];
        },
    };
}
/**
 * Label-word logits [examples, classes] at each prompt's last token (right-padded batch, so the
 * answer position is each prompt's own length - 1). Runs inside the caller's tidy or returns a
 * tensor the caller disposes.
 */
export function labelWordLogits(model, weights, prompts, labelIds) {
    const batch = tokenBatch(prompts);
    const rows = prompts.map((p, b) => b * batch.length + p.length - 1);
    return tf.tidy(() => {
        const h = tf.gather(model.hidden(weights, batch), tf.tensor1d(rows, "int32"));
        return tf.gather(model.head(weights, h), tf.tensor1d([...labelIds], "int32"), 1);
    });
}
/** Loss and accuracy of prompts with integer labels (indices into the label words). */
export function scorePrompts(model, weights, prompts, labels, labelIds) {
    if (prompts.length !== labels.length || prompts.length === 0) {
        throw new RangeError(`${prompts.length} prompts and ${labels.length} labels`);
    }
    const [loss, hits] = tf.tidy(() => {
        const logits = labelWordLogits(model, weights, prompts, labelIds);
        const y = tf.tensor1d([...labels], "int32");
        const ce = crossEntropy(logits, y);
        const correct = tf.sum(tf.cast(tf.equal(tf.argMax(logits, 1), y), "float32"));
        return [ce.dataSync()[0], correct.dataSync()[0]];
    });
    return { loss, accuracy: hits / prompts.length, examples: prompts.length };
}
/** The classification task over tokenized prompts and their labels (indices into the label words). */
export function promptClassificationTask(model, prompts, labels, labelIds) {
    if (prompts.length !== labels.length)
        throw new RangeError(`${prompts.length} prompts and ${labels.length} labels`);
    return {
        batch(seed, size) {
            const idx = Array.from(sampleIndices(prompts.length, seed, size));
            const p = idx.map((i) => prompts[i]);
            const y = idx.map((i) => labels[i]);
            return { loss: (weights) => scorePrompts(model, weights, p, y, labelIds).loss, dispose: () => { } };
        },
    };
}
//# sourceMappingURL=prompt-classification.js.map