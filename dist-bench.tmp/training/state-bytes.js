/**
 * A model's state from its canonical bytes, checked: the one decoder checkpoints and snapshots
 * use. Float models hold float32 weights; a bitmlp holds packed words (training/models/bit-mlp.ts),
 * which must also be canonical (stage in range, padding bits and zero trits' sign bits clear), so
 * that one model state has exactly one byte string and one checksum.
 */
import { SeedswarmError } from "../protocol/errors.js";
import { bitGeometry, bitStateProblem } from "./models/bit-mlp.js";
import { buildModel } from "./models/model.js";
import { weightsFromBytes } from "./params.js";
export class StateBytesError extends SeedswarmError {
}
/**
 * Elements of a model's state (float32 weights or packed words; 4 bytes each), or null for a
 * transformer, whose size comes from its config.json, not the spec (its bytes are checked against
 * the weightsHash or a verified checksum instead).
 */
export function stateLength(model) {
    if (model.kind === "transformer")
        return null;
    return model.kind === "bitmlp" ? bitGeometry(model).words : buildModel(model).layout.size;
}
/**
 * Decodes and checks a model's state. @throws StateBytesError naming what is wrong.
 * @param transformerLength elements of a transformer's state (its layout size, from config.json):
 *   the spec alone does not say, and a state of the wrong length must never reach the replica.
 */
export function stateFromBytes(model, bytes, transformerLength) {
    const length = stateLength(model) ?? transformerLength;
    if (length === undefined)
        throw new StateBytesError("STATE_BYTES_INVALID", "a transformer's state length comes from its config.json; none was given");
    const expected = 4 * length;
    const packed = model.kind === "bitmlp";
    if (bytes.byteLength !== expected)
        throw new StateBytesError("STATE_BYTES_INVALID", `${packed ? "packed " : ""}state is ${bytes.byteLength} bytes, the ${model.kind} needs ${expected}`, { length: bytes.byteLength, expected });
    const state = weightsFromBytes(bytes, packed ? "packed" : "float32");
    if (model.kind === "bitmlp") {
        const problem = bitStateProblem(state, bitGeometry(model));
        if (problem)
            throw new StateBytesError("STATE_BYTES_INVALID", `packed state is not canonical: ${problem}`);
    }
    return state;
}
//# sourceMappingURL=state-bytes.js.map