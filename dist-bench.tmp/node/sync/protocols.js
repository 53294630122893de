import { lpStream } from "@libp2p/utils";
import { decodeChecksumRequest, decodeChecksumResponse, decodeCommitsRequest, decodeCommitsResponse, decodeRunSpecRequest, decodeRunSpecResponse, decodeSnapshotRequest, decodeSnapshotResponse, encodeChecksumRequest, encodeChecksumResponse, encodeCommitsRequest, encodeCommitsResponse, encodeRunSpecRequest, encodeRunSpecResponse, encodeSnapshotRequest, encodeSnapshotResponse, } from "../../protocol/sync-codec.js";
import { fromHex, sha256 } from "../../protocol/bytes.js";
import { SeedswarmError } from "../../protocol/errors.js";
import { DEFAULT_SNAPSHOT_CHUNK_BYTES, MAX_COMMITS_PER_RESPONSE, MAX_COMMITS_RESPONSE_BYTES, MAX_REQUEST_BYTES, MAX_SNAPSHOT_CHUNK_BYTES, MAX_MESSAGE_BYTES, } from "../../protocol/limits.js";
import { parseRunSpecJson, runIdOf } from "../../protocol/run-spec.js";
import { PROTOCOLS } from "../../protocol/topics.js";
import { canonicalBytes } from "../../training/params.js";
export class SyncError extends SeedswarmError {
}
export const defaultSyncOptions = {
    // A chunk of 256 KiB crosses a slow (1 MB/s) link in well under this.
    requestTimeoutMs: 10_000,
    chunkBytes: DEFAULT_SNAPSHOT_CHUNK_BYTES,
};
/** Registers the handlers; returns a function that removes them. */
export async function serveSync(node, src, log) {
    const slog = log.child({ module: "sync" });
    const serve = async (protocol, answer) => {
        await node.handle(protocol, async (stream, connection) => {
            const peer = connection.remotePeer.toString();
            if (!src.admits(peer)) {
                // Nothing read, nothing answered: a non-member learns no state, commit or spec.
                slog.debug({ protocol, peer }, "request from a non-member refused");
                stream.abort(new SyncError("SYNC_NOT_MEMBER", "not a member of the run", { peer }));
                src.served?.(protocol, "refused");
                return;
            }
            try {
                // The reader is sized by what a request may be, never by the response: a peer must not
                // make us buffer a response-sized message per stream (the limit bounds reads only).
                const lp = lpStream(stream, { maxDataLength: MAX_REQUEST_BYTES });
                const req = await lp.read({
                    signal: AbortSignal.timeout(defaultSyncOptions.requestTimeoutMs),
                });
                await lp.write(answer(req.subarray()));
                await stream.close();
                src.served?.(protocol, "answered");
            }
            catch (err) {
                src.served?.(protocol, "failed");
                slog.debug({ protocol, err: err.message }, "request failed");
                stream.abort(err);
            }
        }, { maxInboundStreams: 16 });
    };
    await serve(PROTOCOLS.checksum, (bytes) => {
        const req = decodeChecksumRequest(bytes);
        const at = req.runId === src.runId
            ? src.checksumAt(req.iteration === Number.MAX_SAFE_INTEGER ? -1 : req.iteration)
            : null;
        return encodeChecksumResponse(at
            ? { iteration: at.iteration, checksum: fromHex(at.checksum), known: true }
            : { iteration: req.iteration, checksum: new Uint8Array(0), known: false });
    });
    await serve(PROTOCOLS.snapshot, (bytes) => {
        const req = decodeSnapshotRequest(bytes);
        const snap = req.runId === src.runId ? src.snapshot(req.iteration) : null;
        if (!snap)
            return encodeSnapshotResponse({
                iteration: 0,
                checksum: new Uint8Array(32),
                totalChunks: 0,
                data: new Uint8Array(0),
                chunkHash: new Uint8Array(32),
            });
        const all = canonicalBytes(snap.weights);
        const size = Math.min(Math.max(1024, req.chunkSize), MAX_SNAPSHOT_CHUNK_BYTES);
        const total = Math.ceil(all.length / size);
        const data = all.subarray(req.chunk * size, Math.min(all.length, (req.chunk + 1) * size));
        return encodeSnapshotResponse({
            iteration: snap.iteration,
            checksum: fromHex(snap.checksum),
            totalChunks: total,
            data: req.chunk < total ? data : new Uint8Array(0),
            chunkHash: sha256(data),
        });
    });
    await serve(PROTOCOLS.runspec, (bytes) => {
        const req = decodeRunSpecRequest(bytes);
        return encodeRunSpecResponse({ specJson: req.runId === src.runId ? src.specJson : "" });
    });
    await serve(PROTOCOLS.commits, (bytes) => {
        const req = decodeCommitsRequest(bytes);
        const commits = req.runId === src.runId
            ? src.commitsFrom(req.fromIteration, Math.min(req.max, MAX_COMMITS_PER_RESPONSE))
            : [];
        return encodeCommitsResponse({ commits: withinReplyBudget(commits) });
    });
    return async () => {
        await node.unhandle([
            PROTOCOLS.runspec,
            PROTOCOLS.checksum,
            PROTOCOLS.snapshot,
            PROTOCOLS.commits,
        ]);
    };
}
/**
 * The longest prefix of `commits` whose reply fits MAX_COMMITS_RESPONSE_BYTES (each commit costs
 * its bytes plus a tag and a length varint, counted at their widest): a reply is never larger,
 * and a log of large commits is served in several pages instead of failing to encode (the whole
 * reply used to be refused, so a fetcher behind such a log could never catch up). One commit
 * always fits (MAX_MESSAGE_BYTES.commit is about half the budget).
 */
export function withinReplyBudget(commits, budget = MAX_COMMITS_RESPONSE_BYTES) {
    const out = [];
    let used = 0;
    for (const c of commits) {
        used += c.byteLength + 6;
        if (used > budget && out.length > 0)
            break;
        out.push(c);
    }
    return out;
}
async function request(node, peer, protocol, req, maxResponse, timeoutMs) {
    const signal = AbortSignal.timeout(timeoutMs);
    const stream = await node.dialProtocol(peer, protocol, { signal });
    try {
        // The byte buffer under the reader must hold one whole response and its prefix: its default
        // (4 MiB) is below a commits reply's budget and a full snapshot chunk.
        const lp = lpStream(stream, { maxDataLength: maxResponse, maxBufferSize: maxResponse + 16 });
        await lp.write(req, { signal });
        const res = await lp.read({ signal });
        await stream.close({ signal });
        return res.subarray();
    }
    catch (err) {
        stream.abort(err);
        throw err;
    }
}
/**
 * A run's spec from a peer, checked: valid, and hashing to the runId asked for (so no peer can
 * hand a joiner another run). Throws SyncError when the peer does not serve this run.
 */
export async function fetchRunSpec(node, peer, runId, timeoutMs = defaultSyncOptions.requestTimeoutMs) {
    const res = decodeRunSpecResponse(await request(node, peer, PROTOCOLS.runspec, encodeRunSpecRequest({ runId }), MAX_MESSAGE_BYTES.runSpecResponse, timeoutMs));
    if (res.specJson === "")
        throw new SyncError("SYNC_FAILED", `peer ${peer.toString()} does not serve run ${runId}`, {
            peer: peer.toString(),
        });
    const spec = parseRunSpecJson(res.specJson, `run spec from ${peer.toString()}`);
    if (runIdOf(spec) !== runId)
        throw new SyncError("SYNC_BAD_SPEC", `peer ${peer.toString()} served a spec of another run`, {
            peer: peer.toString(),
            runId,
            got: runIdOf(spec),
        });
    return spec;
}
/** A peer's checksum after `iteration` (or its head when iteration is undefined). */
export async function fetchChecksum(node, peer, runId, iteration, timeoutMs = defaultSyncOptions.requestTimeoutMs) {
    const req = encodeChecksumRequest({ runId, iteration: iteration ?? Number.MAX_SAFE_INTEGER });
    return decodeChecksumResponse(await request(node, peer, PROTOCOLS.checksum, req, 256, timeoutMs));
}
/**
 * Encoded commits from a peer's log, starting at `from` (still unverified: callers verify each,
 * catch-up.ts `verifiedReply`). A reply over MAX_COMMITS_RESPONSE_BYTES is refused on its length
 * prefix before it is buffered, and one that does not decode (over MAX_COMMITS_PER_RESPONSE
 * commits, a commit over the commit limit, garbage) is refused whole: either rejects with a
 * SyncError naming the peer, never anything untyped. Every caller catches (`.catch(() => [])`).
 */
export async function fetchCommits(node, peer, runId, from, timeoutMs = defaultSyncOptions.requestTimeoutMs) {
    const req = encodeCommitsRequest({ runId, fromIteration: from, max: MAX_COMMITS_PER_RESPONSE });
    let reply;
    try {
        reply = await request(node, peer, PROTOCOLS.commits, req, MAX_COMMITS_RESPONSE_BYTES, timeoutMs);
    }
    catch (err) {
        throw new SyncError("SYNC_FAILED", `commits from ${peer.toString()}: ${err.message}`, { peer: peer.toString() });
    }
    try {
        return [...decodeCommitsResponse(reply).commits];
    }
    catch (err) {
        throw new SyncError("SYNC_BAD_REPLY", `commits from ${peer.toString()}: ${err.message}`, {
            peer: peer.toString(),
            bytes: reply.byteLength,
        });
    }
}
/** One chunk of a peer's snapshot (its latest, or after exactly `iteration`): unchecked, see snapshot-fetch.ts. */
export async function fetchChunk(node, peer, runId, chunk, opts, iteration) {
    const req = encodeSnapshotRequest({
        runId,
        chunk,
        chunkSize: opts.chunkBytes,
        ...(iteration === undefined ? {} : { iteration }),
    });
    return decodeSnapshotResponse(await request(node, peer, PROTOCOLS.snapshot, req, MAX_SNAPSHOT_CHUNK_BYTES + 1024, opts.requestTimeoutMs));
}
//# sourceMappingURL=protocols.js.map