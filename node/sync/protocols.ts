/**
 * State sync over request/response protocols (/seedswarm/<name>/1.0.0): the run spec, snapshot
 * chunks, the commit log and checksums. Serving and fetching live together so both sides of each
 * exchange read as one.
 *
 * Snapshots are taken at fixed iterations (multiples of `snapshotEvery`), so every honest peer
 * serves byte-identical chunks of the same snapshot. What a downloaded snapshot must match (a
 * verified commit's checksum, never a peer's) is snapshot-fetch.ts's business.
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
} from "../../protocol/sync-codec.js";
import { fromHex, sha256 } from "../../protocol/bytes.js";
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
import { ServeLimits } from "./serve-limits.js";
import type { Snapshot } from "./snapshot-store.js";
import { canonicalBytes } from "../../training/params.js";
import type { SwarmNode } from "../network/libp2p.js";
import type { Logger } from "../ground/index.js";

export class SyncError extends SeedswarmError<
  | "SYNC_NO_PEERS"
  | "SYNC_BAD_CHUNK"
  | "SYNC_FAILED"
  | "SYNC_BAD_SPEC"
  | "SYNC_NOT_MEMBER"
  | "SYNC_BAD_REPLY"
  /** Only snapshots at iterations no verified commit of ours (or anchor run) covers. */
  | "SYNC_BEYOND_CHAIN"
  /** No holder's bytes hash to the verified commit's checksum. */
  | "SYNC_UNVERIFIED"
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


/**
 * How long one serve may take from its stream's opening to its close: the request read, the wait
 * for a slot and the budget, the write and the close. A fetcher gives up after its own 10 s
 * (`requestTimeoutMs`), so a reply not yet read by then is read by nobody honest: the stream is
 * aborted and its bytes released (finding 3b: a peer that asks and never reads).
 */
export const SERVE_DEADLINE_MS = 15_000;

/** Streams per protocol per connection (libp2p resets the rest); serve-limits.ts bounds what they hold. */
const MAX_INBOUND_SYNC_STREAMS = 16;

/** Registers the handlers; returns a function that removes them. */
export async function serveSync(
  node: SwarmNode,
  src: SyncSource,
  log: Logger,
  serving: { readonly limits?: ServeLimits; readonly deadlineMs?: number } = {},
): Promise<() => Promise<void>> {
  const limits = serving.limits ?? new ServeLimits();
  const deadlineMs = serving.deadlineMs ?? SERVE_DEADLINE_MS;
  const slog = log.child({ module: "sync" });
  /**
   * `bound`: the most bytes the reply to this request can take, reserved before it is built;
   * `answer`: the reply. Both see a request of at most MAX_REQUEST_BYTES.
   */
  const serve = async (protocol: string, bound: (req: Uint8Array) => number, build: (req: Uint8Array) => Uint8Array) => {
    // The last reply, reused for the same request while the head is the same: a crowd (or a
    // swarm of joiners) asking the same thing shares one buffer instead of one built per stream
    // (32 paused hosts' unread /commits streams: a megabyte of garbage each, every few seconds).
    let last: { readonly key: string; readonly reply: Uint8Array } | null = null;
    const answer = (req: Uint8Array): Uint8Array => {
      const head = src.checksumAt(-1);
      const key = `${head?.iteration ?? -1}/${head?.checksum ?? ""}/${Buffer.from(req).toString("hex")}`;
      if (last?.key !== key) last = { key, reply: build(req) };
      return last.reply;
    };
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
        const deadline = AbortSignal.timeout(deadlineMs);
        let leave: (() => void) | undefined;
        let hold: { shrink(to: number): void; release(): void } | undefined;
        try {
          // The reader is sized by what a request may be, never by the response: a peer must not
          // make us buffer a response-sized message per stream (the limit bounds reads only).
          const lp = lpStream(stream, { maxDataLength: MAX_REQUEST_BYTES });
          const req = (
            await lp.read({ signal: AbortSignal.any([deadline, AbortSignal.timeout(defaultSyncOptions.requestTimeoutMs)]) })
          ).subarray();
          leave = await limits.enter(peer, deadline);
          hold = await limits.reserve(bound(req) + REPLY_FRAMING_BYTES, deadline);
          const reply = answer(req);
          hold.shrink(reply.byteLength + REPLY_FRAMING_BYTES);
          // Both wait on the peer reading: the write for the muxer to take the bytes, the close
          // for the last of them to leave. The deadline aborts either.
          await lp.write(reply, { signal: deadline });
          await stream.close({ signal: deadline });
          src.served?.(protocol, "answered");
        } catch (err) {
          src.served?.(protocol, "failed");
          // Debug: a crowd of unread streams must not become a flood of log lines.
          if (deadline.aborted) slog.debug({ protocol, peer }, "sync reply not read before the serve deadline; stream aborted");
          else slog.debug({ protocol, peer, err: (err as Error).message }, "request failed");
          stream.abort(err as Error);
        } finally {
          hold?.release();
          leave?.();
        }
      },
      { maxInboundStreams: MAX_INBOUND_SYNC_STREAMS },
    );
  };
  await serve(PROTOCOLS.checksum, () => MAX_MESSAGE_BYTES.checksumResponse, (bytes) => {
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
  await serve(PROTOCOLS.snapshot, snapshotReplyBound, (bytes) => {
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
  const specBytes = Buffer.byteLength(src.specJson) + 16;
  await serve(PROTOCOLS.runspec, () => specBytes, (bytes) => {
    const req = decodeRunSpecRequest(bytes);
    return encodeRunSpecResponse({ specJson: req.runId === src.runId ? src.specJson : "" });
  });
  await serve(PROTOCOLS.commits, () => MAX_COMMITS_RESPONSE_BYTES, (bytes) => {
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

/** A reply's length prefix, at its widest. */
const REPLY_FRAMING_BYTES = 16;

/** The most bytes a snapshot reply to `bytes` can take: its chunk size as served, and the header. */
function snapshotReplyBound(bytes: Uint8Array): number {
  const req = decodeSnapshotRequest(bytes);
  return Math.min(Math.max(1024, req.chunkSize), MAX_SNAPSHOT_CHUNK_BYTES) + 256;
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

/** One chunk of a peer's snapshot (its latest, or after exactly `iteration`): unchecked, see snapshot-fetch.ts. */
export async function fetchChunk(
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

/** Which snapshot to download and who serves which chunk, as the DHT's expert records say (hints only). */
export interface SnapshotPlan {
  readonly iteration: number;
  /** Peers that announced chunk i. */
  holders(chunk: number): readonly PeerId[];
}
