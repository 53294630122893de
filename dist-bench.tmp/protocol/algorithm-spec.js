/**
 * The algorithm part of a RunSpec: SPSA (one-byte projected gradients), Marketplace (vendor
 * paths) and binary (bit flips), with their schedules, and their parser.
 */
import { GRADIENT_BYTE_MAX, GRADIENT_BYTE_MIN } from "./gradient-byte.js";
import { MAX_PAYLOAD_BYTES } from "./limits.js";
import { v2PayloadSize } from "./marketplace-payload.js";
import { bitStageRanges, modelLayerCount } from "./model-spec.js";
import { fail, int, num, obj } from "./spec-fields.js";
import { worstCaseSparseBytes } from "./sparse-payload.js";
/** Most rank of a low-rank perturbation: bounds the noise an update regenerates per byte. */
export const MAX_PERTURBATION_RANK = 64;
/**
 * Products after each spec of a Marketplace split (the last is the number of paths an author
 * evaluates): spec 0 gives one per vendor; spec s > 0 feeds each vendor `upstreamSampling` (or
 * all) of the previous products.
 */
export function marketplaceProducts(a) {
    const out = [];
    for (let s = 0; s < a.specs.length; s++) {
        const upstream = s === 0 ? 1 : Math.min(a.upstreamSampling ?? out[s - 1], out[s - 1]);
        out.push(a.vendors * upstream);
    }
    return out;
}
/** Most paths one author may evaluate: bounds a step's memory and time. */
export const MAX_MARKETPLACE_PATHS = 65536;
function schedule(v) {
    const s = obj(v, "algorithm.schedule", ["lr", "warmup", "minFactor"]);
    return {
        lr: num(s, "lr", "algorithm.schedule", 0, 1e3),
        warmup: int(s, "warmup", "algorithm.schedule", 0, 1e9),
        minFactor: num(s, "minFactor", "algorithm.schedule", 0, 1),
    };
}
function marketplaceSpec(v, model) {
    if (model.kind === "transformer")
        fail("algorithm.kind", 'must be "spsa" for a transformer (Marketplace splits image models by layer)', "marketplace");
    const o = obj(v, "algorithm", [
        "kind",
        "version",
        "vendors",
        "specs",
        "batchSize",
        "probeScale",
        "schedule",
        "upstreamSampling",
    ]);
    if (o.version !== 1 && o.version !== 2)
        fail("algorithm.version", "must be 1 or 2", o.version);
    const layers = modelLayerCount(model);
    const specs = o.specs;
    if (!Array.isArray(specs) ||
        specs.length < 1 ||
        !specs.every((n) => Number.isInteger(n) && n >= 1) ||
        specs.reduce((a, b) => a + b, 0) !== layers) {
        fail("algorithm.specs", `must be layer counts (>= 1 each) summing to the model's ${layers} layers`, specs);
    }
    const upstream = o.upstreamSampling === undefined ? 0 : int(o, "upstreamSampling", "algorithm", 0, MAX_MARKETPLACE_PATHS);
    const a = {
        kind: "marketplace",
        version: o.version,
        vendors: int(o, "vendors", "algorithm", 2, 256),
        specs: [...specs],
        batchSize: int(o, "batchSize", "algorithm", 1, 65536),
        probeScale: num(o, "probeScale", "algorithm", 1e-8, 1e3),
        schedule: schedule(o.schedule),
        // 0 means "all": dropped, so both spellings are the same run.
        ...(upstream > 0 ? { upstreamSampling: upstream } : {}),
    };
    const products = marketplaceProducts(a);
    const paths = products[products.length - 1];
    if (products.some((p) => p > MAX_MARKETPLACE_PATHS))
        fail("algorithm", `evaluates more than ${MAX_MARKETPLACE_PATHS} products per spec; lower vendors or set upstreamSampling`, paths);
    if (a.version === 2 && v2PayloadSize(paths) > MAX_PAYLOAD_BYTES)
        fail("algorithm", `V2 sends one byte per path: ${paths} paths do not fit the ${MAX_PAYLOAD_BYTES}-byte payload limit; lower vendors or set upstreamSampling`, paths);
    return a;
}
function binarySpec(v, model) {
    const o = obj(v, "algorithm", ["kind", "batchSize", "flipsPerIteration", "maxEntries", "stages"]);
    if (model.kind !== "bitmlp")
        fail("algorithm.kind", `"binary" trains one-bit weights: the model must be a bitmlp, not ${model.kind}`, o.kind);
    const ranges = bitStageRanges(model);
    const stages = o.stages;
    if (!Array.isArray(stages) ||
        stages.length !== ranges.length ||
        !stages.every((n) => Number.isInteger(n) && n >= 1 && n <= 1e9))
        fail("algorithm.stages", `must list iterations (>= 1) for each of the model's ${ranges.length} hidden layers`, stages);
    const smallest = Math.min(...ranges.map((r) => r.end - r.start));
    const a = {
        kind: "binary",
        batchSize: int(o, "batchSize", "algorithm", 1, 65536),
        flipsPerIteration: int(o, "flipsPerIteration", "algorithm", 1, smallest),
        maxEntries: int(o, "maxEntries", "algorithm", 1, MAX_PAYLOAD_BYTES),
        stages: [...stages],
    };
    const worst = worstCaseSparseBytes(a.maxEntries, ranges[ranges.length - 1].end);
    if (worst > MAX_PAYLOAD_BYTES)
        fail("algorithm.maxEntries", `can make a ${worst}-byte payload, above the ${MAX_PAYLOAD_BYTES}-byte limit`, a.maxEntries);
    return a;
}
export function algorithmSpec(v, model) {
    const kind = v?.kind;
    if (kind === "binary")
        return binarySpec(v, model);
    if (kind !== "spsa" && kind !== "marketplace")
        return fail("algorithm.kind", 'must be "spsa", "marketplace" or "binary"', kind);
    if (model.kind === "bitmlp")
        fail("algorithm.kind", 'must be "binary" for a bitmlp model (one-bit weights have no gradient)', kind);
    if (kind === "marketplace")
        return marketplaceSpec(v, model);
    const o = obj(v, "algorithm", [
        "kind",
        "perturbations",
        "batchSize",
        "eps",
        "schedule",
        "lrScaling",
        "perturbation",
        "fitness",
        "clip",
    ]);
    const scaling = o.lrScaling === undefined ? undefined : lrScaling(o.lrScaling);
    const direction = o.perturbation === undefined ? undefined : perturbation(o.perturbation);
    if (o.fitness !== undefined && o.fitness !== "difference" && o.fitness !== "sign")
        fail("algorithm.fitness", 'must be "difference" or "sign"', o.fitness);
    return {
        kind,
        perturbations: int(o, "perturbations", "algorithm", 1, 1024),
        batchSize: int(o, "batchSize", "algorithm", 1, 65536),
        eps: num(o, "eps", "algorithm", 1e-8, 1),
        schedule: schedule(o.schedule),
        // "none" without a cap is the default: dropped, so both spellings are the same run.
        ...(scaling && (scaling.rule !== "none" || scaling.cap !== undefined) ? { lrScaling: scaling } : {}),
        // The defaults (full rank, difference) are dropped too: today's runs keep their runIds.
        ...(direction && direction.kind !== "full" ? { perturbation: direction } : {}),
        ...(o.fitness === "sign" ? { fitness: "sign" } : {}),
        // Absent unless given: specs without it keep their runIds.
        ...(o.clip === undefined ? {} : { clip: clipBound(o) }),
    };
}
/**
 * `clip`: a bound some byte code meets (at least the smallest magnitude, else every byte would
 * clamp to 0) and some code exceeds (below the largest, else it bounds nothing).
 */
function clipBound(o) {
    const v = o.clip;
    if (typeof v !== "number" || !Number.isFinite(v) || v < GRADIENT_BYTE_MIN || v >= GRADIENT_BYTE_MAX)
        fail("algorithm.clip", `must be a number from ${GRADIENT_BYTE_MIN.toPrecision(3)} (the smallest byte magnitude) up to, not including, ${GRADIENT_BYTE_MAX.toPrecision(3)} (the largest, which bounds nothing)`, v);
    return v;
}
function perturbation(v) {
    const kind = v?.kind;
    if (kind === "full") {
        obj(v, "algorithm.perturbation", ["kind"]);
        return { kind };
    }
    if (kind !== "lowrank")
        return fail("algorithm.perturbation.kind", 'must be "full" or "lowrank"', kind);
    const o = obj(v, "algorithm.perturbation", ["kind", "rank"]);
    // The rank is always written out, so {kind: "lowrank"} and rank 1 are one run.
    const rank = o.rank === undefined ? 1 : int(o, "rank", "algorithm.perturbation", 1, MAX_PERTURBATION_RANK);
    return { kind, rank };
}
function lrScaling(v) {
    const o = obj(v, "algorithm.lrScaling", ["rule", "cap"]);
    if (o.rule !== "none" && o.rule !== "sqrt" && o.rule !== "linear")
        fail("algorithm.lrScaling.rule", 'must be "none", "sqrt" or "linear"', o.rule);
    return {
        rule: o.rule,
        ...(o.cap === undefined ? {} : { cap: num(o, "cap", "algorithm.lrScaling", 1, 1024) }),
    };
}
//# sourceMappingURL=algorithm-spec.js.map