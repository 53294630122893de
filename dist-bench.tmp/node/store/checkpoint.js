/**
 * Checkpoints: one self-contained file with the RunSpec, the iteration, the checksum and the
 * canonical weights; enough to resume exactly. Written atomically (temp file, fsync, rename), so a
 * kill at any moment leaves either the old checkpoint or the new one, never half of one. The one
 * replaced is kept as `<path>.prev`: a checkpoint that later reads back corrupt (a bad disk, a
 * torn write the filesystem did not order) falls back to it, never to garbage.
 *
 * Layout: "SSCK" | u32 LE format version (1) | u32 LE header length | header JSON | weights
 * (little-endian float32, layout order).
 */
import { readFile, rename } from "node:fs/promises";
import { SeedswarmError } from "../../protocol/errors.js";
import { parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { canonicalBytes, checksum } from "../../training/params.js";
import { StateBytesError, stateFromBytes } from "../../training/state-bytes.js";
import { writeFileAtomic } from "./atomic-file.js";
import { corruptCheckpointPath, previousCheckpointPath } from "./data-dir.js";
const MAGIC = "SSCK";
const FORMAT = 1;
export class CheckpointError extends SeedswarmError {
}
/** Writes a checkpoint atomically and durably; the one it replaces becomes `<path>.prev`. */
export async function saveCheckpoint(path, spec, iteration, weights, chain) {
    const cp = {
        spec,
        runId: runIdOf(spec),
        iteration,
        checksum: checksum(weights),
        weights,
        chain,
    };
    const header = Buffer.from(JSON.stringify({
        runId: cp.runId,
        iteration,
        checksum: cp.checksum,
        params: weights.length,
        spec,
        chain,
    }));
    const prefix = Buffer.alloc(12);
    prefix.write(MAGIC, 0, "ascii");
    prefix.writeUInt32LE(FORMAT, 4);
    prefix.writeUInt32LE(header.length, 8);
    await writeFileAtomic(path, Buffer.concat([prefix, header, canonicalBytes(weights)]), { previous: previousCheckpointPath(path) });
    return cp;
}
function corrupt(path, problem) {
    throw new CheckpointError("CHECKPOINT_CORRUPT", `checkpoint ${path}: ${problem}`, { path });
}
/** Reads and verifies a checkpoint (format, spec, runId, size and checksum of the weights). */
export async function loadCheckpoint(path) {
    const buf = await readFile(path);
    if (buf.length < 12 || buf.toString("ascii", 0, 4) !== MAGIC)
        corrupt(path, "not a seedswarm checkpoint");
    if (buf.readUInt32LE(4) !== FORMAT)
        corrupt(path, `unsupported format ${buf.readUInt32LE(4)}`);
    const len = buf.readUInt32LE(8);
    if (12 + len > buf.length)
        corrupt(path, "truncated header");
    let header;
    try {
        header = JSON.parse(buf.toString("utf8", 12, 12 + len));
    }
    catch {
        return corrupt(path, "unreadable header");
    }
    const spec = parseRunSpec(header.spec);
    const runId = runIdOf(spec);
    if (runId !== header.runId)
        corrupt(path, "runId does not match its spec");
    const body = buf.subarray(12 + len);
    if (body.length !== header.params * 4)
        corrupt(path, `weights are ${body.length} bytes, expected ${header.params * 4}`);
    let weights;
    try {
        weights = stateFromBytes(spec.model, body, header.params);
    }
    catch (err) {
        if (err instanceof StateBytesError)
            corrupt(path, err.message);
        throw err;
    }
    const sum = checksum(weights);
    if (sum !== header.checksum)
        corrupt(path, `weights checksum ${sum.slice(0, 12)} != recorded ${header.checksum.slice(0, 12)}`);
    return { spec, runId, iteration: header.iteration, checksum: sum, weights, chain: header.chain };
}
const missing = (err) => err.code === "ENOENT";
/**
 * The newest readable checkpoint at `path`: the last one, else the one before it. An unreadable
 * last one is moved to `<path>.corrupt` (so the next save does not rotate it into the fallback,
 * and no human has to delete it); an unreadable previous one is only reported. Other errors (a
 * permission problem) are thrown: they need a human.
 */
export async function loadUsableCheckpoint(path) {
    const skipped = [];
    const candidates = [
        { file: path, source: "checkpoint" },
        { file: previousCheckpointPath(path), source: "previous checkpoint" },
    ];
    for (const { file, source } of candidates) {
        try {
            return { checkpoint: await loadCheckpoint(file), source, skipped };
        }
        catch (err) {
            if (missing(err))
                continue;
            if (!(err instanceof SeedswarmError))
                throw err;
            skipped.push({ path: file, problem: err.message });
            if (source === "checkpoint")
                await rename(file, corruptCheckpointPath(path));
        }
    }
    return { checkpoint: null, source: null, skipped };
}
/** Writes one run's checkpoints one after another, never interleaved. */
export class CheckpointWriter {
    path;
    spec;
    saving = Promise.resolve();
    constructor(path, spec) {
        this.path = path;
        this.spec = spec;
    }
    /**
     * Saves after the saves already queued; `weights` must be a copy the caller no longer changes.
     * A failed write (ENOSPC, EIO, ...) rejects with CHECKPOINT_WRITE_FAILED; the checkpoint that
     * was there stays intact.
     */
    save(iteration, weights, chain) {
        this.saving = this.saving
            .catch(() => { })
            .then(() => saveCheckpoint(this.path, this.spec, iteration, weights, chain))
            .then(() => { }, (err) => {
            const why = err.code === "ENOSPC" ? "disk full" : (err.code ?? err.message);
            throw new CheckpointError("CHECKPOINT_WRITE_FAILED", `checkpoint at iteration ${iteration} not written: ${why}`, {
                path: this.path,
                iteration,
                errno: err.code ?? null,
            });
        });
        return this.saving;
    }
}
//# sourceMappingURL=checkpoint.js.map