/**
 * The field readers every part of the RunSpec parser shares: each checks one untrusted JSON
 * value and throws a RunSpecError naming its path.
 */
import { SeedswarmError } from "./errors.js";
export class RunSpecError extends SeedswarmError {
}
export function fail(path, problem, value) {
    throw new RunSpecError("RUNSPEC_INVALID", `run spec: ${path} ${problem} (got ${JSON.stringify(value)})`, {
        path,
        value,
    });
}
export function obj(v, path, keys) {
    if (typeof v !== "object" || v === null || Array.isArray(v))
        fail(path, "must be an object", v);
    for (const k of Object.keys(v))
        if (!keys.includes(k))
            fail(`${path}.${k}`, "is not a known field", v[k]);
    return v;
}
export function int(o, k, path, min, max) {
    const v = o[k];
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
        fail(`${path}.${k}`, `must be an integer in ${min}..${max}`, v);
    }
    return v;
}
export function num(o, k, path, min, max) {
    const v = o[k];
    if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) {
        fail(`${path}.${k}`, `must be a number in ${min}..${max}`, v);
    }
    return v;
}
export function str(o, k, path) {
    const v = o[k];
    if (typeof v !== "string" || v.length === 0 || v.length > 4096)
        fail(`${path}.${k}`, "must be a non-empty string", v);
    return v;
}
export function shape(o, k, path) {
    const v = o[k];
    if (!Array.isArray(v) ||
        v.length !== 3 ||
        !v.every((d) => Number.isInteger(d) && d >= 1 && d <= 4096)) {
        fail(`${path}.${k}`, "must be [height, width, channels] of positive integers", v);
    }
    return [v[0], v[1], v[2]];
}
export function sha256(o, k, path) {
    const v = o[k];
    if (typeof v !== "string" || !/^[0-9a-f]{64}$/.test(v))
        fail(`${path}.${k}`, "must be a hex SHA-256 (64 lowercase hex digits)", v);
    return v;
}
//# sourceMappingURL=spec-fields.js.map