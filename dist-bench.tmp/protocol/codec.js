/**
 * Typed codecs for the gossip messages (contribution, commit, leave, heartbeat) over the protons
 * messages. Every decode checks the byte length against its limit before parsing, parses with
 * finite repeated-field limits, then checks each field's shape, so a caller only ever sees
 * in-limit messages with 32-byte hashes and safe-integer iterations. Encodes run the same
 * checks: a message we could not decode ourselves never leaves. Request/response messages:
 * protocol/sync-codec.ts.
 *
 * Decoded byte fields are copies, never views into the input: holding a 4 KiB payload must not
 * pin a whole gossip frame.
 */
import { sha256 } from "./bytes.js";
import { runIdBytes, runIdHex } from "./run-id.js";
import { MAX_COMMIT_ENTRIES, MAX_COMMIT_EXCLUSIONS, MAX_PAYLOAD_BYTES, MAX_STALENESS, SIGNATURE_BYTES } from "./limits.js";
import * as pb from "./messages.js";
import { bad, hash, signature, upTo, peerId, fromU64, toU64, u32, U32_MAX, out, encodeWire, decodeWire, encodeRunIteration, decodeRunIteration } from "./wire-fields.js";
/** The hash that chains commits: SHA-256 of the commit exactly as encoded on the wire. */
export function commitHash(encodedCommit) {
    return sha256(encodedCommit);
}
/** Encodes a contribution for its gossip topic. */
export function encodeContribution(m) {
    return encodeWire("contribution", pb.Contribution, {
        runId: out(runIdBytes(m.runId)),
        iteration: toU64(m.iteration, "contribution.iteration"),
        joinedAt: toU64(m.joinedAt, "contribution.joinedAt"),
        payload: out(upTo(m.payload, MAX_PAYLOAD_BYTES, "contribution.payload")),
        parentHash: out(hash(m.parentHash, "contribution.parentHash")),
        signature: out(signature(m.signature, "contribution.signature")),
        staleness: u32(m.staleness ?? 0, 0, MAX_STALENESS, "contribution.staleness"),
    });
}
/** Decodes a contribution; the payload is still to be checked against the run (validation.ts). */
export function decodeContribution(bytes) {
    const w = decodeWire("contribution", pb.Contribution, bytes);
    return {
        runId: runIdHex(w.runId),
        iteration: fromU64(w.iteration, "contribution.iteration"),
        joinedAt: fromU64(w.joinedAt, "contribution.joinedAt"),
        payload: upTo(w.payload, MAX_PAYLOAD_BYTES, "contribution.payload").slice(),
        parentHash: hash(w.parentHash, "contribution.parentHash").slice(),
        signature: signature(w.signature, "contribution.signature").slice(),
        // Absent when 0, as the encoder leaves it.
        ...(w.staleness === 0 ? {} : { staleness: u32(w.staleness, 0, MAX_STALENESS, "contribution.staleness") }),
    };
}
/**
 * The parent an entry of `m` was signed over: the commit's prevHash, or for a stale entry the
 * older parent it names. Null when the commit does not carry that parent.
 */
export function entryParent(m, staleness) {
    const k = staleness ?? 0;
    return k === 0 ? m.prevHash : (m.olderParents?.[k - 1] ?? null);
}
function commitToPb(m, sig) {
    if (m.entries.length > MAX_COMMIT_ENTRIES) {
        bad("commit.entries", `must hold at most ${MAX_COMMIT_ENTRIES}`, {
            count: m.entries.length,
        });
    }
    const olderParents = m.olderParents ?? [];
    if (olderParents.length > MAX_STALENESS)
        bad("commit.olderParents", `must hold at most ${MAX_STALENESS}`, { count: olderParents.length });
    const exclusions = m.exclusions ?? [];
    if (exclusions.length > MAX_COMMIT_EXCLUSIONS) {
        bad("commit.exclusions", `must hold at most ${MAX_COMMIT_EXCLUSIONS}`, { count: exclusions.length });
    }
    return {
        runId: out(runIdBytes(m.runId)),
        iteration: toU64(m.iteration, "commit.iteration"),
        prevHash: out(hash(m.prevHash, "commit.prevHash")),
        entries: m.entries.map((e, i) => ({
            author: out(peerId(e.author, `commit.entries[${i}].author`)),
            joinedAt: toU64(e.joinedAt, `commit.entries[${i}].joinedAt`),
            payload: out(upTo(e.payload, MAX_PAYLOAD_BYTES, `commit.entries[${i}].payload`)),
            signature: out(signature(e.signature, `commit.entries[${i}].signature`)),
            staleness: u32(e.staleness ?? 0, 0, MAX_STALENESS, `commit.entries[${i}].staleness`),
        })),
        checksum: out(hash(m.checksum, "commit.checksum")),
        rank: u32(m.rank, 0, U32_MAX, "commit.rank"),
        proposer: out(peerId(m.proposer, "commit.proposer")),
        exclusions: exclusions.map((x, i) => ({
            author: out(peerId(x.author, `commit.exclusions[${i}].author`)),
            iteration: toU64(x.iteration, `commit.exclusions[${i}].iteration`),
        })),
        olderParents: olderParents.map((h, i) => out(hash(h, `commit.olderParents[${i}]`))),
        signature: out(sig),
    };
}
/**
 * The bytes a proposer signs (behind the domain tag): the commit encoded with no signature
 * field. Protobuf omits an empty bytes field, so these are the signed commit's bytes minus it.
 */
export function encodeCommitBody(m) {
    return encodeWire("commit", pb.Commit, commitToPb(m, new Uint8Array(0)));
}
/** Encodes a signed commit; its bytes are what commitHash chains. */
export function encodeCommit(m) {
    return encodeWire("commit", pb.Commit, commitToPb(m, signature(m.signature, "commit.signature")));
}
/** The signature field as the encoder writes it last: tag (field 8, bytes), length 64, then the 64 bytes. */
const COMMIT_SIGNATURE_TAG = Uint8Array.of((8 << 3) | 2, SIGNATURE_BYTES);
const COMMIT_SIGNATURE_FIELD_BYTES = COMMIT_SIGNATURE_TAG.byteLength + SIGNATURE_BYTES;
/**
 * encodeCommitBody(m) without encoding again, for bytes already known to be encodeCommit(m) (the
 * canonical check compared them): protons writes fields in the order messages.proto declares
 * them and the signature is declared last, so the body is those bytes minus their last 66. A view, not a copy; null
 * when the bytes do not end in m's signature field (then they were not encodeCommit(m)).
 */
export function commitBodyOf(m, encoded) {
    const at = encoded.byteLength - COMMIT_SIGNATURE_FIELD_BYTES;
    if (at < 0 || m.signature.byteLength !== SIGNATURE_BYTES)
        return null;
    if (encoded[at] !== COMMIT_SIGNATURE_TAG[0] || encoded[at + 1] !== COMMIT_SIGNATURE_TAG[1])
        return null;
    for (let i = 0; i < SIGNATURE_BYTES; i++)
        if (encoded[at + 2 + i] !== m.signature[i])
            return null;
    return encoded.subarray(0, at);
}
/** Decodes a commit: at most MAX_COMMIT_ENTRIES entries, each author and the proposer a peer id multihash, 64-byte signatures. */
export function decodeCommit(bytes) {
    const w = decodeWire("commit", pb.Commit, bytes, { limits: { entries: MAX_COMMIT_ENTRIES, exclusions: MAX_COMMIT_EXCLUSIONS, olderParents: MAX_STALENESS } });
    return {
        runId: runIdHex(w.runId),
        iteration: fromU64(w.iteration, "commit.iteration"),
        prevHash: hash(w.prevHash, "commit.prevHash").slice(),
        entries: w.entries.map((e, i) => ({
            author: peerId(e.author, `commit.entries[${i}].author`).slice(),
            joinedAt: fromU64(e.joinedAt, `commit.entries[${i}].joinedAt`),
            payload: upTo(e.payload, MAX_PAYLOAD_BYTES, `commit.entries[${i}].payload`).slice(),
            signature: signature(e.signature, `commit.entries[${i}].signature`).slice(),
            ...(e.staleness === 0 ? {} : { staleness: u32(e.staleness, 0, MAX_STALENESS, `commit.entries[${i}].staleness`) }),
        })),
        checksum: hash(w.checksum, "commit.checksum").slice(),
        rank: w.rank,
        proposer: peerId(w.proposer, "commit.proposer").slice(),
        // Absent when empty, as the encoder leaves it.
        ...(w.exclusions.length > 0
            ? {
                exclusions: w.exclusions.map((x, i) => ({
                    author: peerId(x.author, `commit.exclusions[${i}].author`).slice(),
                    iteration: fromU64(x.iteration, `commit.exclusions[${i}].iteration`),
                })),
            }
            : {}),
        ...(w.olderParents.length > 0 ? { olderParents: w.olderParents.map((h, i) => hash(h, `commit.olderParents[${i}]`).slice()) } : {}),
        signature: signature(w.signature, "commit.signature").slice(),
    };
}
/** Encodes a leave announcement. */
export function encodeLeave(m) {
    return encodeRunIteration("leave", pb.Leave, m);
}
/** Decodes a leave announcement. */
export function decodeLeave(bytes) {
    return decodeRunIteration("leave", pb.Leave, bytes);
}
/** Encodes a heartbeat (a node's head and checksum). */
export function encodeHeartbeat(m) {
    return encodeWire("heartbeat", pb.Heartbeat, {
        runId: out(runIdBytes(m.runId)),
        iteration: toU64(m.iteration, "heartbeat.iteration"),
        checksum: out(hash(m.checksum, "heartbeat.checksum")),
        joinedAt: toU64(m.joinedAt, "heartbeat.joinedAt"),
    });
}
/** Decodes a heartbeat. */
export function decodeHeartbeat(bytes) {
    const w = decodeWire("heartbeat", pb.Heartbeat, bytes);
    return {
        runId: runIdHex(w.runId),
        iteration: fromU64(w.iteration, "heartbeat.iteration"),
        checksum: hash(w.checksum, "heartbeat.checksum").slice(),
        joinedAt: fromU64(w.joinedAt, "heartbeat.joinedAt"),
    };
}
//# sourceMappingURL=codec.js.map