/**
 * State sync over request/response protocols (/seedswarm/<name>/1.0.0): the run spec, snapshot
 * chunks, the commit log and checksums. Serving and fetching live together so both sides of each
 * exchange read as one.
 *
 * Snapshots are taken at fixed iterations (multiples of `snapshotEvery`), so every honest peer
 * serves byte-identical chunks of the same snapshot: a joiner downloads chunks from several peers
 * in parallel, checks each chunk's hash, and checks the whole against the checksum that the
 * most peers report. Then it replays the commits since the snapshot.
 */
import type { PeerId } from "@libp2p/interface";
import { lpStream } from "@libp2p/utils";
import {
  type ChecksumResponse,
  decodeChecksumRequest,
  decodeChecksumResponse,
  decodeCommitsRequest,
  decodeCommitsResponse,
  decodeRunSpecRequest,
  decodeRunSpecResponse,
  decodeSnapshotRequest,
  decodeSnapshotResponse,
  encodeChecksumRequest,
  encodeChecksumResponse,
  encodeCommitsRequest,
  encodeCommitsResponse,
  encodeRunSpecRequest,
  encodeRunSpecResponse,
  encodeSnapshotRequest,
  encodeSnapshotResponse,
  type SnapshotResponse,
} from "../../protocol/codec.js";
import { equalBytes, fromHex, sha256, sha256Hex, toHex } from "../../protocol/bytes.js";
import { SeedswarmError } from "../../protocol/errors.js";
import {
  DEFAULT_SNAPSHOT_CHUNK_BYTES,
  MAX_COMMITS_PER_RESPONSE,
  MAX_COMMITS_RESPONSE_BYTES,
  MAX_REQUEST_BYTES,
  MAX_SNAPSHOT_CHUNK_BYTES,
  MAX_MESSAGE_BYTES,
} from "../../protocol/limits.js";
import { parseRunSpecJson, type RunSpec, runIdOf } from "../../protocol/run-spec.js";
import { PROTOCOLS } from "../../protocol/topics.js";
import type { Snapshot } from "./snapshot-store.js";
import { canonicalBytes, type Weights, weightsFromBytes } from "../../training/params.js";
import type { SwarmNode } from "../network/libp2p.js";
import type { Logger } from "../observe/logger.js";
import { reportProgress } from "../observe/progress.js";

export class SyncError extends SeedswarmError<
  | "SYNC_NO_PEERS"
  | "SYNC_NO_AGREEMENT"
  | "SYNC_BAD_CHUNK"
  | "SYNC_FAILED"
  | "SYNC_BAD_SPEC"
  | "SYNC_NOT_MEMBER"
  | "SYNC_BAD_REPLY"
> {}

/** What this node serves. */
export interface SyncSource {
  readonly runId: string;
  /** The run spec's canonical JSON (its SHA-256 is the runId). */
  readonly specJson: string;
  /**
   * The snapshot after exactly `iteration` iterations if this node still holds it, or with no
   * iteration the latest one (taken at the last multiple of snapshotEvery this node passed).
   */
  snapshot(iteration?: number): Snapshot | null;
  /** Encoded commits from `from` on, at most `max`. */
  commitsFrom(from: number, max: number): Uint8Array[];
  /** The checksum after `iteration` applied iterations, if known; the head when iteration is -1. */
  checksumAt(iteration: number): { iteration: number; checksum: string } | null;
  /** Whether a peer may ask (protocol/membership.ts): a member run serves its members only. */
  admits(peerId: string): boolean;
  /** Told the outcome of every request received (metrics). */
  served?(protocol: string, outcome: "answered" | "failed" | "refused"): void;
}

export interface SyncOptions {
  /** Per-request time limit. */
  readonly requestTimeoutMs: number;
  readonly chunkBytes: number;
}

export const defaultSyncOptions: SyncOptions = {
  // A chunk of 256 KiB crosses a slow (1 MB/s) link in well under this.
  requestTimeoutMs: 10_000,
  chunkBytes: DEFAULT_SNAPSHOT_CHUNK_BYTES,
};


/** Registers the handlers; returns a function that removes them. */
export async function serveSync(
  node: SwarmNode,
  src: SyncSource,
  log: Logger,
): Promise<() => Promise<void>> {
  const slog = log.child({ module: "sync" });
  const serve = async (protocol: string, answer: (req: Uint8Array) => Uint8Array) => {
    await node.handle(
      protocol,
      async (stream, connection) => {
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
        } catch (err) {
          src.served?.(protocol, "failed");
          slog.debug({ protocol, err: (err as Error).message }, "request failed");
          stream.abort(err as Error);
        }
      },
      { maxInboundStreams: 16 },
    );
  };
  await serve(PROTOCOLS.checksum, (bytes) => {
    const req = decodeChecksumRequest(bytes);
    const at =
      req.runId === src.runId
        ? src.checksumAt(req.iteration === Number.MAX_SAFE_INTEGER ? -1 : req.iteration)
        : null;
    return encodeChecksumResponse(
      at
        ? { iteration: at.iteration, checksum: fromHex(at.checksum), known: true }
        : { iteration: req.iteration, checksum: new Uint8Array(0), known: false },
    );
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
    const commits =
      req.runId === src.runId
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
export function withinReplyBudget(commits: readonly Uint8Array[], budget = MAX_COMMITS_RESPONSE_BYTES): Uint8Array[] {
  const out: Uint8Array[] = [];
  let used = 0;
  for (const c of commits) {
    used += c.byteLength + 6;
    if (used > budget && out.length > 0) break;
    out.push(c);
  }
  return out;
}

async function request(
  node: SwarmNode,
  peer: PeerId,
  protocol: string,
  req: Uint8Array,
  maxResponse: number,
  timeoutMs: number,
): Promise<Uint8Array> {
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
  } catch (err) {
    stream.abort(err as Error);
    throw err;
  }
}

/**
 * A run's spec from a peer, checked: valid, and hashing to the runId asked for (so no peer can
 * hand a joiner another run). Throws SyncError when the peer does not serve this run.
 */
export async function fetchRunSpec(
  node: SwarmNode,
  peer: PeerId,
  runId: string,
  timeoutMs = defaultSyncOptions.requestTimeoutMs,
): Promise<RunSpec> {
  const res = decodeRunSpecResponse(
    await request(
      node,
      peer,
      PROTOCOLS.runspec,
      encodeRunSpecRequest({ runId }),
      MAX_MESSAGE_BYTES.runSpecResponse,
      timeoutMs,
    ),
  );
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
export async function fetchChecksum(
  node: SwarmNode,
  peer: PeerId,
  runId: string,
  iteration?: number,
  timeoutMs = defaultSyncOptions.requestTimeoutMs,
): Promise<ChecksumResponse> {
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
export async function fetchCommits(
  node: SwarmNode,
  peer: PeerId,
  runId: string,
  from: number,
  timeoutMs = defaultSyncOptions.requestTimeoutMs,
): Promise<Uint8Array[]> {
  const req = encodeCommitsRequest({ runId, fromIteration: from, max: MAX_COMMITS_PER_RESPONSE });
  let reply: Uint8Array;
  try {
    reply = await request(node, peer, PROTOCOLS.commits, req, MAX_COMMITS_RESPONSE_BYTES, timeoutMs);
  } catch (err) {
    throw new SyncError("SYNC_FAILED", `commits from ${peer.toString()}: ${(err as Error).message}`, { peer: peer.toString() });
  }
  try {
    return [...decodeCommitsResponse(reply).commits];
  } catch (err) {
    throw new SyncError("SYNC_BAD_REPLY", `commits from ${peer.toString()}: ${(err as Error).message}`, {
      peer: peer.toString(),
      bytes: reply.byteLength,
    });
  }
}

async function fetchChunk(
  node: SwarmNode,
  peer: PeerId,
  runId: string,
  chunk: number,
  opts: SyncOptions,
  iteration?: number,
): Promise<SnapshotResponse> {
  const req = encodeSnapshotRequest({
    runId,
    chunk,
    chunkSize: opts.chunkBytes,
    ...(iteration === undefined ? {} : { iteration }),
  });
  return decodeSnapshotResponse(
    await request(
      node,
      peer,
      PROTOCOLS.snapshot,
      req,
      MAX_SNAPSHOT_CHUNK_BYTES + 1024,
      opts.requestTimeoutMs,
    ),
  );
}

/** A snapshot downloaded from peers, with how many agreed on it. */
export interface DownloadedSnapshot extends Snapshot {
  /** Peers that reported this snapshot. */
  readonly agreeing: number;
  readonly sources: number;
}

/** Which snapshot to download and who serves which chunk, as the DHT's expert records say. */
export interface SnapshotPlan {
  readonly iteration: number;
  /** Peers that announced chunk i. */
  holders(chunk: number): readonly PeerId[];
}

/**
 * Downloads the snapshot the most peers agree on, chunks spread over those peers in parallel.
 * Every chunk is hashed; the whole is checked against the agreed checksum. With several peers,
 * a snapshot only one of them reports is refused (never trust a single peer when others exist).
 * With a plan, asks for that snapshot exactly and takes each chunk from the peers holding it.
 */
export async function fetchSnapshot(
  node: SwarmNode,
  peers: PeerId[],
  runId: string,
  log: Logger,
  opts: SyncOptions = defaultSyncOptions,
  plan?: SnapshotPlan,
  /** The state from the verified bytes (a packed model's decoder); default float32 weights. */
  decode: (bytes: Uint8Array) => Weights = weightsFromBytes,
): Promise<DownloadedSnapshot> {
  if (peers.length === 0)
    throw new SyncError("SYNC_NO_PEERS", "no peers to download a snapshot from");
  const heads = await Promise.allSettled(
    peers.map((p) => fetchChunk(node, p, runId, 0, opts, plan?.iteration)),
  );
  const votes = new Map<string, { peers: PeerId[]; first: SnapshotResponse }>();
  heads.forEach((h, i) => {
    if (h.status !== "fulfilled" || h.value.totalChunks === 0) return;
    const key = `${h.value.iteration}:${toHex(h.value.checksum)}`;
    const v = votes.get(key) ?? { peers: [], first: h.value };
    v.peers.push(peers[i]);
    votes.set(key, v);
  });
  const ranked = [...votes.values()].sort(
    (a, b) => b.peers.length - a.peers.length || b.first.iteration - a.first.iteration,
  );
  const best = ranked[0];
  const answered = [...votes.values()].reduce((s, v) => s + v.peers.length, 0);
  if (!best)
    throw new SyncError("SYNC_FAILED", `none of ${peers.length} peers served a snapshot`, {
      peers: peers.length,
    });
  if (answered > 1 && best.peers.length < 2) {
    throw new SyncError(
      "SYNC_NO_AGREEMENT",
      `no two of ${answered} peers report the same snapshot`,
      { answered },
    );
  }
  const { iteration, totalChunks } = best.first;
  const checksum = toHex(best.first.checksum);
  const chunks: Uint8Array[] = new Array(totalChunks);
  chunks[0] = best.first.data;
  const checkChunk = (r: SnapshotResponse, i: number) => {
    if (r.iteration !== iteration || toHex(r.checksum) !== checksum || r.totalChunks !== totalChunks)
      throw new SyncError("SYNC_BAD_CHUNK", `chunk ${i}: from another snapshot`);
    if (!equalBytes(sha256(r.data), r.chunkHash))
      throw new SyncError("SYNC_BAD_CHUNK", `chunk ${i}: hash mismatch`);
  };
  checkChunk(best.first, 0);
  let received = 1;
  const agreed = new Set(best.peers.map(String));
  // Chunk i from its holders that agreed (all agreeing peers without a plan), spread by i; on
  // failure, retry it from the next one.
  await Promise.all(
    Array.from({ length: totalChunks - 1 }, (_, k) => k + 1).map(async (i) => {
      const held = plan?.holders(i).filter((p) => agreed.has(p.toString())) ?? [];
      const from = held.length > 0 ? held : best.peers;
      let lastErr: unknown;
      for (let attempt = 0; attempt < from.length; attempt++) {
        const peer = from[(i + attempt) % from.length];
        try {
          const r = await fetchChunk(node, peer, runId, i, opts, plan?.iteration);
          checkChunk(r, i);
          chunks[i] = r.data;
          reportProgress("snapshot download", ++received, totalChunks, "chunks");
          return;
        } catch (err) {
          lastErr = err;
          log.debug(
            { chunk: i, peer: peer.toString(), err: (err as Error).message },
            "chunk failed; trying another peer",
          );
        }
      }
      throw lastErr;
    }),
  );
  const bytes = Buffer.concat(chunks);
  const got = sha256Hex(bytes);
  if (got !== checksum)
    throw new SyncError(
      "SYNC_BAD_CHUNK",
      `snapshot checksum ${got.slice(0, 12)} != agreed ${checksum.slice(0, 12)}`,
    );
  return {
    iteration,
    checksum,
    weights: decode(bytes),
    agreeing: best.peers.length,
    sources: answered,
  };
}
