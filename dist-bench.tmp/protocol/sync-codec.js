/**
 * Typed codecs for the request/response protocols (run spec, snapshot chunks, commits, checksums)
 * and the DHT expert records, with the same checks as the gossip codecs (protocol/codec.ts):
 * size before parse, bounded parse, every field's shape.
 */
import { runIdBytes, runIdHex } from "./run-id.js";
import { MAX_COMMITS_PER_RESPONSE, MAX_EXPERT_ENTRIES, MAX_MESSAGE_BYTES, MAX_SNAPSHOT_CHUNK_BYTES } from "./limits.js";
import * as pb from "./messages.js";
import { bad, hash, signature, upTo, peerId, fromU64, toU64, u32, U32_MAX, out, encodeWire, decodeWire, encodeRunIteration, decodeRunIteration } from "./wire-fields.js";
// ---- Request/response ----
/** Encodes a request for a run's spec. */
export function encodeRunSpecRequest(m) {
    return encodeWire("runSpecRequest", pb.RunSpecRequest, { runId: out(runIdBytes(m.runId)) });
}
/** Decodes a request for a run's spec. */
export function decodeRunSpecRequest(bytes) {
    return { runId: runIdHex(decodeWire("runSpecRequest", pb.RunSpecRequest, bytes).runId) };
}
/** Encodes a run spec as JSON text. */
export function encodeRunSpecResponse(m) {
    return encodeWire("runSpecResponse", pb.RunSpecResponse, { specJson: m.specJson });
}
/** The JSON text still has to pass parseRunSpecJson, and hash to the runId that was asked for. */
export function decodeRunSpecResponse(bytes) {
    return { specJson: decodeWire("runSpecResponse", pb.RunSpecResponse, bytes).specJson };
}
/** Encodes a request for one chunk of the state snapshot. */
export function encodeSnapshotRequest(m) {
    return encodeWire("snapshotRequest", pb.SnapshotRequest, {
        runId: out(runIdBytes(m.runId)),
        chunk: u32(m.chunk, 0, U32_MAX, "snapshotRequest.chunk"),
        chunkSize: u32(m.chunkSize, 1, MAX_SNAPSHOT_CHUNK_BYTES, "snapshotRequest.chunkSize"),
        iteration: toU64(m.iteration ?? 0, "snapshotRequest.iteration"),
        exact: m.iteration !== undefined,
    });
}
/** Decodes a snapshot chunk request; chunkSize is 1..MAX_SNAPSHOT_CHUNK_BYTES. */
export function decodeSnapshotRequest(bytes) {
    const w = decodeWire("snapshotRequest", pb.SnapshotRequest, bytes);
    return {
        runId: runIdHex(w.runId),
        chunk: w.chunk,
        chunkSize: u32(w.chunkSize, 1, MAX_SNAPSHOT_CHUNK_BYTES, "snapshotRequest.chunkSize"),
        ...(w.exact ? { iteration: fromU64(w.iteration, "snapshotRequest.iteration") } : {}),
    };
}
/** Encodes one snapshot chunk. */
export function encodeSnapshotResponse(m) {
    return encodeWire("snapshotResponse", pb.SnapshotResponse, {
        iteration: toU64(m.iteration, "snapshotResponse.iteration"),
        checksum: out(hash(m.checksum, "snapshotResponse.checksum")),
        totalChunks: u32(m.totalChunks, 1, U32_MAX, "snapshotResponse.totalChunks"),
        data: out(upTo(m.data, MAX_SNAPSHOT_CHUNK_BYTES, "snapshotResponse.data")),
        chunkHash: out(hash(m.chunkHash, "snapshotResponse.chunkHash")),
    });
}
/** Shapes only: the node still checks chunkHash against the data and the checksum against peers. */
export function decodeSnapshotResponse(bytes) {
    const w = decodeWire("snapshotResponse", pb.SnapshotResponse, bytes);
    return {
        iteration: fromU64(w.iteration, "snapshotResponse.iteration"),
        checksum: hash(w.checksum, "snapshotResponse.checksum").slice(),
        totalChunks: u32(w.totalChunks, 1, U32_MAX, "snapshotResponse.totalChunks"),
        data: upTo(w.data, MAX_SNAPSHOT_CHUNK_BYTES, "snapshotResponse.data").slice(),
        chunkHash: hash(w.chunkHash, "snapshotResponse.chunkHash").slice(),
    };
}
/** Encodes a request for up to `max` commits from `fromIteration` on. */
export function encodeCommitsRequest(m) {
    return encodeWire("commitsRequest", pb.CommitsRequest, {
        runId: out(runIdBytes(m.runId)),
        fromIteration: toU64(m.fromIteration, "commitsRequest.fromIteration"),
        max: u32(m.max, 1, MAX_COMMITS_PER_RESPONSE, "commitsRequest.max"),
    });
}
/** Decodes a commits request; max is 1..MAX_COMMITS_PER_RESPONSE. */
export function decodeCommitsRequest(bytes) {
    const w = decodeWire("commitsRequest", pb.CommitsRequest, bytes);
    return {
        runId: runIdHex(w.runId),
        fromIteration: fromU64(w.fromIteration, "commitsRequest.fromIteration"),
        max: u32(w.max, 1, MAX_COMMITS_PER_RESPONSE, "commitsRequest.max"),
    };
}
/** Encodes already encoded commits; the caller keeps the total under MAX_COMMITS_RESPONSE_BYTES. */
export function encodeCommitsResponse(m) {
    if (m.commits.length > MAX_COMMITS_PER_RESPONSE) {
        bad("commitsResponse.commits", `must hold at most ${MAX_COMMITS_PER_RESPONSE}`, {
            count: m.commits.length,
        });
    }
    return encodeWire("commitsResponse", pb.CommitsResponse, {
        commits: m.commits.map((c, i) => out(upTo(c, MAX_MESSAGE_BYTES.commit, `commitsResponse.commits[${i}]`))),
    });
}
/** Each commit is still raw: decode it with decodeCommit, hash it with commitHash. */
export function decodeCommitsResponse(bytes) {
    const w = decodeWire("commitsResponse", pb.CommitsResponse, bytes, {
        limits: { commits: MAX_COMMITS_PER_RESPONSE },
    });
    return {
        commits: w.commits.map((c, i) => upTo(c, MAX_MESSAGE_BYTES.commit, `commitsResponse.commits[${i}]`).slice()),
    };
}
/** Encodes a request for a peer's checksum after an iteration. */
export function encodeChecksumRequest(m) {
    return encodeRunIteration("checksumRequest", pb.ChecksumRequest, m);
}
/** Decodes a checksum request. */
export function decodeChecksumRequest(bytes) {
    return decodeRunIteration("checksumRequest", pb.ChecksumRequest, bytes);
}
/** A known checksum is 32 bytes; an unknown one is empty, so nobody mistakes it for a hash. */
function answer(checksum, known, at) {
    if (known)
        return hash(checksum, at);
    if (checksum.byteLength !== 0)
        bad(at, "must be empty when not known", { length: checksum.byteLength });
    return checksum;
}
/** Encodes a checksum answer. */
export function encodeChecksumResponse(m) {
    return encodeWire("checksumResponse", pb.ChecksumResponse, {
        iteration: toU64(m.iteration, "checksumResponse.iteration"),
        checksum: out(answer(m.checksum, m.known, "checksumResponse.checksum")),
        known: m.known,
    });
}
/** Decodes a checksum answer; checksum is 32 bytes exactly when known. */
export function decodeChecksumResponse(bytes) {
    const w = decodeWire("checksumResponse", pb.ChecksumResponse, bytes);
    return {
        iteration: fromU64(w.iteration, "checksumResponse.iteration"),
        checksum: answer(w.checksum, w.known, "checksumResponse.checksum").slice(),
        known: w.known,
    };
}
// ---- DHT records ----
/** Encodes an expert record (at most MAX_EXPERT_ENTRIES entries). */
export function encodeExpertRecord(m) {
    if (m.entries.length > MAX_EXPERT_ENTRIES)
        bad("expertRecord.entries", `must be at most ${MAX_EXPERT_ENTRIES}`, { length: m.entries.length });
    return encodeWire("expertRecord", pb.ExpertRecord, {
        entries: m.entries.map((e, i) => ({
            suffix: u32(e.suffix, 0, U32_MAX, `expertRecord.entries[${i}].suffix`),
            peer: out(peerId(e.peer, `expertRecord.entries[${i}].peer`)),
            timestamp: toU64(e.timestamp, `expertRecord.entries[${i}].timestamp`),
            expiresAt: toU64(e.expiresAt, `expertRecord.entries[${i}].expiresAt`),
            signature: out(signature(e.signature, `expertRecord.entries[${i}].signature`)),
        })),
    });
}
/** Decodes an expert record; every entry has a peer id, safe-integer times and a signature-sized signature (checked by protocol/experts.ts). */
export function decodeExpertRecord(bytes) {
    const w = decodeWire("expertRecord", pb.ExpertRecord, bytes, {
        limits: { entries: MAX_EXPERT_ENTRIES },
    });
    return {
        entries: w.entries.map((e, i) => ({
            suffix: e.suffix,
            peer: peerId(e.peer, `expertRecord.entries[${i}].peer`).slice(),
            timestamp: fromU64(e.timestamp, `expertRecord.entries[${i}].timestamp`),
            expiresAt: fromU64(e.expiresAt, `expertRecord.entries[${i}].expiresAt`),
            signature: signature(e.signature, `expertRecord.entries[${i}].signature`).slice(),
        })),
    };
}
//# sourceMappingURL=sync-codec.js.map