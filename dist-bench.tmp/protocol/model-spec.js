/**
 * The model part of a RunSpec: image models (MLP, CNN, binary/ternary MLP) and Hugging Face
 * transformers, their types and their parser.
 */
import { fail, int, num, obj, sha256, shape } from "./spec-fields.js";
/** Architectures of model kind `transformer` (training/hf/config.ts parses their config.json). */
export const TRANSFORMER_ARCHITECTURES = ["gpt2", "opt", "llama"];
/** Weights of a bitmlp: one bit (+/-1) or one trit (-1, 0, +1) each. */
export const WEIGHT_KINDS = ["binary", "ternary"];
/**
 * The move indices of a bitmlp, stage by stage. Weight g of the model (layer by layer: hidden
 * kernel unit-major, then its head class-major) is move g (binary: a flip) or moves 2g (+1) and
 * 2g + 1 (-1) for trits. Stage s owns [start, end): its layer's kernel and head.
 */
export function bitStageRanges(m) {
    const [h, w, c] = m.inputShape;
    const per = m.weights === "ternary" ? 2 : 1;
    let inputs = h * w * c;
    let start = 0;
    return m.hidden.map((units) => {
        const size = per * (inputs * units + units * m.classes);
        const r = { start, end: start + size };
        start += size;
        inputs = units;
        return r;
    });
}
/** Layers of a model, the units a Marketplace spec groups (see training/models/model.ts). */
export function modelLayerCount(m) {
    return m.kind === "cnn" ? 5 : m.hidden.length + 1;
}
export function modelSpec(v) {
    const kind = v?.kind;
    if (kind === "mlp") {
        const o = obj(v, "model", ["kind", "inputShape", "hidden", "classes"]);
        const hidden = o.hidden;
        if (!Array.isArray(hidden) ||
            hidden.length > 8 ||
            !hidden.every((h) => Number.isInteger(h) && h >= 1 && h <= 65536)) {
            fail("model.hidden", "must be a list of at most 8 layer widths in 1..65536", hidden);
        }
        return {
            kind,
            inputShape: shape(o, "inputShape", "model"),
            hidden: [...hidden],
            classes: int(o, "classes", "model", 2, 65536),
        };
    }
    if (kind === "cnn") {
        const o = obj(v, "model", ["kind", "inputShape", "classes"]);
        const inputShape = shape(o, "inputShape", "model");
        if (inputShape[0] !== 28 || inputShape[1] !== 28)
            fail("model.inputShape", "must be 28x28 for the cnn", inputShape);
        return { kind, inputShape, classes: int(o, "classes", "model", 2, 65536) };
    }
    if (kind === "bitmlp") {
        const o = obj(v, "model", ["kind", "inputShape", "hidden", "classes", "weights", "inputThreshold", "logitScale"]);
        const hidden = o.hidden;
        if (!Array.isArray(hidden) ||
            hidden.length < 1 ||
            hidden.length > 8 ||
            !hidden.every((h) => Number.isInteger(h) && h >= 1 && h <= 65536)) {
            fail("model.hidden", "must be a list of 1 to 8 layer widths in 1..65536", hidden);
        }
        if (!WEIGHT_KINDS.includes(o.weights))
            fail("model.weights", `must be one of ${WEIGHT_KINDS.join(", ")}`, o.weights);
        const logitScale = num(o, "logitScale", "model", 2 ** -16, 1);
        if (Math.log2(logitScale) !== Math.round(Math.log2(logitScale)))
            fail("model.logitScale", "must be a power of two", logitScale);
        const inputShape = shape(o, "inputShape", "model");
        if (inputShape[0] * inputShape[1] * inputShape[2] > 65536)
            fail("model.inputShape", "must hold at most 65536 features for a bitmlp", inputShape);
        return {
            kind,
            inputShape,
            hidden: [...hidden],
            classes: int(o, "classes", "model", 2, 65536),
            weights: o.weights,
            inputThreshold: num(o, "inputThreshold", "model", -1e9, 1e9),
            logitScale,
        };
    }
    if (kind === "transformer") {
        const o = obj(v, "model", ["kind", "architecture", "weightsHash"]);
        const architecture = o.architecture;
        if (!TRANSFORMER_ARCHITECTURES.some((a) => a === architecture))
            fail("model.architecture", `must be one of ${TRANSFORMER_ARCHITECTURES.join(", ")}`, architecture);
        return {
            kind,
            architecture: architecture,
            weightsHash: sha256(o, "weightsHash", "model"),
        };
    }
    return fail("model.kind", 'must be "mlp", "cnn", "bitmlp" or "transformer"', kind);
}
//# sourceMappingURL=model-spec.js.map