/**
 * The RunSpec: everything that defines one training job. Its canonical JSON hashes to the runId,
 * so two nodes agree on a run exactly when they agree on every field here. Its parts and their
 * parsers: model-spec.ts, dataset-spec.ts, algorithm-spec.ts; the shared field readers:
 * spec-fields.ts.
 */
import { peerIdFromString } from "@libp2p/peer-id";
import { algorithmSpec } from "./algorithm-spec.js";
import { sha256Hex } from "./bytes.js";
import { datasetSpec } from "./dataset-spec.js";
import { MAX_MEMBERS, MAX_STALENESS } from "./limits.js";
import { modelSpec } from "./model-spec.js";
import { fail, int, obj, RunSpecError, str } from "./spec-fields.js";
/**
 * The spec's algorithm, checked to be of `kind` (for code that only makes sense for one).
 * @throws RunSpecError RUNSPEC_INVALID naming both kinds otherwise.
 */
export function algorithmOf(spec, kind) {
    if (spec.algorithm.kind !== kind)
        fail("algorithm.kind", `must be "${kind}" here`, spec.algorithm.kind);
    return spec.algorithm;
}
/**
 * The spec's image model (MLP or CNN), for code that only makes sense for one.
 * @throws RunSpecError RUNSPEC_INVALID naming model.kind otherwise.
 */
export function imageModelOf(spec) {
    if (spec.model.kind === "transformer")
        fail("model.kind", 'must be "mlp", "cnn" or "bitmlp" here', spec.model.kind);
    return spec.model;
}
/**
 * The members of a member run in canonical form: each a peer id in its canonical string (the form
 * a signer's id takes on the wire), sorted, duplicates dropped. An empty list is refused: it would
 * be a run nobody may take part in, not an open one.
 */
function members(v) {
    if (!Array.isArray(v) || v.length < 1 || v.length > MAX_MEMBERS)
        fail("spec.members", `must be a list of 1..${MAX_MEMBERS} peer ids`, Array.isArray(v) ? v.length : v);
    const ids = v.map((id, i) => {
        if (typeof id !== "string" || id.length > 128)
            fail(`spec.members[${i}]`, "must be a peer id string", id);
        let canonical;
        try {
            canonical = peerIdFromString(id).toString();
        }
        catch {
            return fail(`spec.members[${i}]`, "is not a peer id", id);
        }
        if (canonical !== id)
            fail(`spec.members[${i}]`, `must be written as ${canonical}`, id);
        return id;
    });
    return [...new Set(ids)].sort();
}
/** Validates an untrusted value as a RunSpec; throws RunSpecError naming the first bad field. */
export function parseRunSpec(v) {
    const o = obj(v, "spec", [
        "version",
        "name",
        "model",
        "dataset",
        "algorithm",
        "seed",
        "iterations",
        "roundTimeoutMs",
        "members",
        "staleness",
    ]);
    if (o.version !== 1)
        fail("spec.version", "must be 1", o.version);
    const model = modelSpec(o.model);
    const spec = {
        version: 1,
        name: str(o, "name", "spec"),
        model,
        dataset: datasetSpec(o.dataset),
        algorithm: algorithmSpec(o.algorithm, model),
        seed: int(o, "seed", "spec", 0, 0xffffffff),
        iterations: int(o, "iterations", "spec", 1, 1e9),
        roundTimeoutMs: int(o, "roundTimeoutMs", "spec", 10, 3_600_000),
        ...(o.members === undefined ? {} : { members: members(o.members) }),
        // 0 is written as absent, so a spec that says "no pipelining" has the runId of one that is silent.
        ...(o.staleness === undefined || o.staleness === 0 ? {} : { staleness: int(o, "staleness", "spec", 0, MAX_STALENESS) }),
    };
    if (spec.staleness !== undefined && spec.algorithm.kind !== "spsa")
        fail("spec.staleness", `pipelined rounds are for SPSA runs only, not ${spec.algorithm.kind}`, spec.staleness);
    if (spec.algorithm.kind === "binary") {
        const total = spec.algorithm.stages.reduce((a, b) => a + b, 0);
        if (total !== spec.iterations)
            fail("algorithm.stages", `must add up to spec.iterations ${spec.iterations} (they add up to ${total})`, spec.algorithm.stages);
    }
    if ((spec.model.kind === "transformer") !== (spec.dataset.kind === "text"))
        fail("dataset.kind", spec.model.kind === "transformer" ? 'must be "text" for a transformer' : `cannot be "text" for a ${spec.model.kind} model`, spec.dataset.kind);
    if (spec.dataset.kind === "synthetic" && spec.model.kind !== "transformer") {
        const [h, w, c] = spec.model.inputShape;
        if (h * w * c !== spec.dataset.features)
            fail("model.inputShape", `must hold ${spec.dataset.features} features`, spec.model.inputShape);
        if (spec.model.classes !== spec.dataset.classes)
            fail("model.classes", `must equal dataset.classes ${spec.dataset.classes}`, spec.model.classes);
    }
    return spec;
}
/**
 * The spec with another run length (a different run). A staged algorithm's last stage takes the
 * difference, so the stages still add up (a last stage that would drop below 1 is refused).
 */
export function withIterations(spec, iterations) {
    const a = spec.algorithm;
    if (a.kind !== "binary")
        return parseRunSpec({ ...spec, iterations });
    const last = a.stages[a.stages.length - 1] + iterations - spec.iterations;
    return parseRunSpec({ ...spec, iterations, algorithm: { ...a, stages: [...a.stages.slice(0, -1), last] } });
}
/** The spec as a member run of `members` (a different run: the list is part of the runId). */
export function withMembers(spec, members) {
    return parseRunSpec({ ...spec, members });
}
/** Parses RunSpec JSON text; syntax errors become RunSpecError too. */
export function parseRunSpecJson(text, source = "run spec") {
    let value;
    try {
        value = JSON.parse(text);
    }
    catch (err) {
        throw new RunSpecError("RUNSPEC_PARSE", `${source}: not valid JSON: ${err.message}`, { source });
    }
    return parseRunSpec(value);
}
/** JSON with object keys sorted at every level: the same spec always gives the same bytes. */
export function canonicalJson(v) {
    if (Array.isArray(v))
        return `[${v.map(canonicalJson).join(",")}]`;
    if (v !== null && typeof v === "object") {
        const o = v;
        return `{${Object.keys(o)
            .sort()
            .filter((k) => o[k] !== undefined)
            .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
            .join(",")}}`;
    }
    return JSON.stringify(v);
}
/** runId = hex SHA-256 of the canonical JSON of the spec. */
export function runIdOf(spec) {
    return sha256Hex(canonicalJson(spec));
}
//# sourceMappingURL=run-spec.js.map