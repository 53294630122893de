import { equalBytes, sha256, sha256Hex } from "../../protocol/bytes.js";
import { checksum as checksumOf } from "../../training/params.js";
import { reportProgress } from "../observe/progress.js";
import { fetchChunk, SyncError } from "./protocols.js";
/** Holders asked about one snapshot: bounds the work a flood of planned holders can cause. */
export const MAX_SNAPSHOT_HOLDERS = 8;
/** Distinct iterations tried per download, newest first. */
const MAX_CANDIDATES = 4;
/** Chunk count and byte length of chunk `i` for a state of `weightCount` weights. */
export function chunkLayout(weightCount, chunkBytes) {
    const bytes = weightCount * 4;
    const total = Math.max(1, Math.ceil(bytes / chunkBytes));
    return { total, bytes, size: (i) => Math.max(0, Math.min(chunkBytes, bytes - i * chunkBytes)) };
}
/**
 * Downloads the newest snapshot the verified chain vouches for, from `holders`. Throws SyncError:
 * SYNC_NO_PEERS (nobody to ask), SYNC_FAILED (nobody served a usable snapshot),
 * SYNC_BEYOND_CHAIN (only iterations we cannot verify), SYNC_UNVERIFIED (no holder's bytes match
 * the verified commit).
 */
export async function fetchVerifiedSnapshot(p, holders, want = {}) {
    const layout = chunkLayout(p.weightCount, p.opts.chunkBytes);
    const asked = dedupe(holders).slice(0, MAX_SNAPSHOT_HOLDERS);
    if (asked.length === 0)
        throw new SyncError("SYNC_NO_PEERS", "no peers to download a snapshot from");
    const blamed = new Set();
    const blame = (peer, reason) => {
        const id = peer.toString();
        p.log.warn({ peer: id, reason }, "snapshot holder blamed");
        if (!blamed.has(id))
            p.blame(id, reason);
        blamed.add(id);
    };
    const fetch = (peer, chunk, iteration) => fetchChunk(p.node, peer, p.runId, chunk, p.opts, iteration);
    // Headers: what each holder says it serves (chunk 0). A header of the wrong shape is proof of a
    // bad holder (every honest snapshot of a run has the same layout): charged, never used.
    // A plan (DHT records, anyone may write them) is a hint: the holders' latest is asked too, so a
    // planned iteration nobody can vouch for costs one candidate, not the download.
    const asks = want.iterations ?? (want.plan ? [want.plan.iteration, undefined] : [undefined]);
    const claims = new Map();
    for (const iteration of asks) {
        const heads = await Promise.allSettled(asked.map((peer) => fetch(peer, 0, iteration)));
        heads.forEach((h, i) => {
            if (h.status !== "fulfilled" || h.value.totalChunks === 0)
                return;
            const bad = shapeError(h.value, 0, layout, iteration);
            if (bad)
                return blame(asked[i], bad);
            if (h.value.iteration < (want.minIteration ?? 1))
                return;
            const byPeer = claims.get(h.value.iteration) ?? new Map();
            byPeer.set(asked[i].toString(), { peer: asked[i], first: h.value });
            claims.set(h.value.iteration, byPeer);
        });
    }
    if (claims.size === 0)
        throw new SyncError("SYNC_FAILED", `none of ${asked.length} peers served a usable snapshot`, { peers: asked.length });
    let lastErr = null;
    for (const iteration of [...claims.keys()].sort((a, b) => b - a).slice(0, MAX_CANDIDATES)) {
        const byPeer = claims.get(iteration);
        const serving = [...byPeer.values()].filter((c) => !blamed.has(c.peer.toString())).map((c) => c.peer);
        if (serving.length === 0)
            continue;
        const ref = await p.reference(iteration, serving);
        if (!ref) {
            lastErr = new SyncError("SYNC_BEYOND_CHAIN", `no verified commit vouches for a snapshot at ${iteration}`, { iteration });
            p.log.info({ iteration, holders: serving.length }, "snapshot beyond the verified chain; not used");
            continue;
        }
        const firsts = new Map([...byPeer].map(([id, c]) => [id, c.first.data]));
        const got = await download(p, layout, iteration, serving, ref.checksum, firsts, fetch, blame, blamed);
        if (got) {
            const holders = serving.map(String).filter((id) => !blamed.has(id));
            return { iteration, checksum: ref.checksum, weights: got, anchor: ref.anchor, blamed: [...blamed], holders };
        }
        lastErr = new SyncError("SYNC_UNVERIFIED", `no holder served the snapshot at ${iteration} that the verified chain vouches for`, {
            iteration,
            holders: serving.length,
        });
    }
    throw lastErr ?? new SyncError("SYNC_FAILED", "every snapshot holder was blamed", { peers: asked.length });
}
/** Why a chunk reply has the wrong shape, or null. */
function shapeError(r, chunk, layout, iteration) {
    if (iteration !== undefined && r.iteration !== iteration)
        return `chunk ${chunk}: iteration ${r.iteration}, asked ${iteration}`;
    if (r.totalChunks !== layout.total)
        return `snapshot of ${r.totalChunks} chunks; the run's state has ${layout.total}`;
    if (r.data.byteLength !== layout.size(chunk))
        return `chunk ${chunk}: ${r.data.byteLength} bytes, must be ${layout.size(chunk)}`;
    if (!equalBytes(sha256(r.data), r.chunkHash))
        return `chunk ${chunk}: data does not match its own hash`;
    return null;
}
/**
 * The snapshot at `iteration` whose decoded weights hash to `expected`, or null. Chunks spread
 * over `holders` first; if the whole fails, each holder alone (see the file comment).
 */
async function download(p, layout, iteration, holders, expected, firsts, fetch, blame, blamed) {
    /** SHA-256 (hex) of every chunk each holder served: evidence once the truth is known. */
    const served = new Map();
    const note = (peer, i, data) => {
        const m = served.get(peer.toString()) ?? new Map();
        m.set(i, sha256Hex(data));
        served.set(peer.toString(), m);
    };
    // Every holder's first chunk (from the headers) is evidence too, used or not.
    for (const peer of holders) {
        const first = firsts.get(peer.toString());
        if (first)
            note(peer, 0, first);
    }
    /** Chunk i from `peer` (checked), or null after blaming or giving up on it. */
    const chunkFrom = async (peer, i) => {
        const cached = i === 0 ? firsts.get(peer.toString()) : undefined;
        try {
            const data = cached ?? (await checked(peer, i));
            note(peer, i, data);
            return data;
        }
        catch (err) {
            if (err instanceof SyncError && err.code === "SYNC_BAD_CHUNK")
                blame(peer, err.message);
            else
                p.log.debug({ chunk: i, peer: peer.toString(), err: err.message }, "chunk failed");
            return null;
        }
    };
    const checked = async (peer, i) => {
        const r = await fetch(peer, i, iteration);
        const bad = shapeError(r, i, layout, iteration);
        if (bad)
            throw new SyncError("SYNC_BAD_CHUNK", bad, { peer: peer.toString(), chunk: i });
        return r.data;
    };
    const verify = (chunks) => {
        const bytes = Buffer.concat(chunks);
        if (bytes.byteLength !== layout.bytes)
            return null;
        const weights = p.decode(bytes);
        return checksumOf(weights) === expected ? weights : null;
    };
    const usable = () => holders.filter((h) => !blamed.has(h.toString()));
    // Pass 1: chunk i from holder i mod n, the next holder on failure (a bad chunk: refetched
    // from another holder, its sender blamed and skipped from then on).
    const chunks = new Array(layout.total);
    let received = 0;
    await Promise.all(Array.from({ length: layout.total }, async (_, i) => {
        for (let attempt = 0; attempt < holders.length; attempt++) {
            const peer = holders[(i + attempt) % holders.length];
            if (blamed.has(peer.toString()))
                continue;
            const data = await chunkFrom(peer, i);
            if (data) {
                chunks[i] = data;
                reportProgress("snapshot download", ++received, layout.total, "chunks");
                return;
            }
        }
    }));
    let truth = null;
    if (chunks.every((c) => c !== undefined)) {
        const w = verify(chunks);
        if (w)
            truth = { weights: w, chunks };
    }
    // Pass 2: the spread whole failed the verified checksum: each holder must serve it alone.
    if (!truth) {
        p.log.warn({ iteration, holders: holders.length }, "snapshot fails the verified commit's checksum; checking holder by holder");
        for (const peer of usable()) {
            const own = [];
            for (let i = 0; i < layout.total; i++) {
                const data = await chunkFrom(peer, i);
                if (!data)
                    break;
                own.push(data);
            }
            if (blamed.has(peer.toString()) || own.length < layout.total)
                continue;
            const w = verify(own);
            if (w) {
                truth = { weights: w, chunks: own };
                break;
            }
            blame(peer, `served a snapshot at ${iteration} that the verified commit's checksum disproves`);
        }
    }
    if (!truth)
        return null;
    // Every chunk that differs from the verified bytes is proof against its sender.
    const truthHashes = truth.chunks.map((c) => sha256Hex(c));
    for (const [id, byChunk] of served) {
        if (blamed.has(id))
            continue;
        const wrong = [...byChunk].find(([i, h]) => truthHashes[i] !== h);
        if (wrong)
            blame(holders.find((h) => h.toString() === id), `served chunk ${wrong[0]} of snapshot ${iteration} unlike the verified state`);
    }
    return truth.weights;
}
function dedupe(peers) {
    return [...new Map(peers.map((x) => [x.toString(), x])).values()];
}
//# sourceMappingURL=snapshot-fetch.js.map