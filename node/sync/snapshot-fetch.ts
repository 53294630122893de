/**
 * Downloading a snapshot that the verified chain vouches for (issue 11, attacks 5 and 6). A holder's
 * word is never the reference: the state is adopted only if the checksum of the decoded weights
 * equals the checksum field of a verified commit at that iteration (the caller's `reference`:
 * a commit of our own chain, or, for a joiner, one anchoring a run of verified commits). No vote:
 * the number of holders that serve a snapshot counts for nothing.
 *
 * Sizes are checked before anything is kept: the chunk count must be the one the run's weight
 * count gives, every chunk exactly its share of weightCount x 4 bytes, the iteration one we can
 * verify. Blame is chunk-level without per-chunk hashes on the wire (the served `chunkHash` is the
 * sender's own, a transport check only): chunks are first spread over the holders; when the whole
 * fails the commit's checksum, each holder in turn must serve the whole snapshot alone. The first
 * whole that verifies is the truth, and every holder that served a chunk differing from it, or a
 * whole that fails, is charged (`blame`) and avoided for the rest of the download.
 *
 * Only holders whose header claims the verified checksum are used, or blamed: one that claims
 * another is on another chain at that iteration (an honest node across a fork serves its own
 * state), not a liar. Blaming those charged honest nodes on the other side of a fork enough to
 * graylist their gossip, which kept a fork from healing (security.md, the deep-fork finding).
 */
import type { PeerId } from "@libp2p/interface";
import { equalBytes, sha256, sha256Hex, toHex } from "../../protocol/bytes.js";
import type { SnapshotResponse } from "../../protocol/sync-codec.js";
import { checksum as checksumOf, type Weights } from "../../training/params.js";
import type { EncodedCommit } from "../chain/commit.js";
import type { SwarmNode } from "../network/libp2p.js";
import { type Logger, reportProgress } from "../ground/index.js";
import { fetchChunks } from "./chunk-scheduler.js";
import { fetchChunk, type SnapshotPlan, SyncError, type SyncOptions } from "./protocols.js";
import type { Snapshot } from "./snapshot-store.js";

/** Holders asked about one snapshot: bounds the work a flood of planned holders can cause. */
export const MAX_SNAPSHOT_HOLDERS = 8;
/** Distinct iterations tried per download, newest first. */
const MAX_CANDIDATES = 4;
/** Chunks asked of one holder at once: within its serve slots (serve-limits.ts, 4 per peer). */
export const CHUNKS_PER_HOLDER = 2;
/** Chunks in flight in all: 16 x 256 KiB keeps a fast link busy and bounds what is buffered. */
export const MAX_CHUNKS_IN_FLIGHT = 16;
/** Chunks a holder may fail (time out included) before it is dropped for the download. */
const MAX_HOLDER_FAILURES = 2;
/** The slowest download we wait for, all holders together: below it a holder set is not worth waiting on. */
export const MIN_SNAPSHOT_BYTES_PER_S = 256 * 1024;
/** One pass's deadline is `downloadDeadlineMs`; a download (the spread pass and every holder alone) gets this many. */
const DEADLINE_PASSES = 3;

/** How long one pass over a snapshot of `bytes` may take: a fixed allowance plus the bytes at the slowest rate we accept. */
export function downloadDeadlineMs(bytes: number): number {
  return 30_000 + (bytes / MIN_SNAPSHOT_BYTES_PER_S) * 1000;
}

/** What a verified commit says the state after `iteration` iterations is. */
export interface SnapshotReference {
  /** The checksum field of the verified commit for iteration - 1 (hex); at iteration 0, the spec's initial checksum. */
  readonly checksum: string;
  /** That commit: the anchor the next commit chains to (null at iteration 0: the chain starts there). */
  readonly anchor: EncodedCommit | null;
  /**
   * How many distinct peers served that anchor (a joiner's, anchor-run.ts); absent when our own
   * chain, or the fork choice's winning run, vouches for it.
   */
  readonly vouchers?: number;
}

export interface SnapshotFetchParts {
  readonly node: SwarmNode;
  readonly runId: string;
  readonly log: Logger;
  readonly opts: SyncOptions;
  /** Weights (float32 or packed 32-bit words) in the run's model: every snapshot has weightCount x 4 bytes. */
  readonly weightCount: number;
  /** The state from verified bytes (a packed model's decoder). */
  readonly decode: (bytes: Uint8Array) => Weights;
  /** The verified commit for `iteration` - 1 (at 0: the spec's checksum), or null when we cannot verify one (never a holder's word). */
  reference(iteration: number, holders: readonly PeerId[]): Promise<SnapshotReference | null>;
  /** Charges a holder that provably served wrong bytes. */
  blame(peer: string, reason: string): void;
}

/** A snapshot whose checksum a verified commit vouches for, and that commit. */
export interface VerifiedSnapshot extends Snapshot {
  readonly anchor: EncodedCommit | null;
  /** SnapshotReference.vouchers of the reference it was verified against. */
  readonly vouchers?: number;
  /** Holders blamed during the download. */
  readonly blamed: readonly string[];
  /** Holders asked for its chunks and not blamed. */
  readonly holders: readonly string[];
}

/** Which snapshots to ask for. */
export interface SnapshotWant {
  /** Exact iterations to ask for, newest first; none: the holders' latest (and the plan's). */
  readonly iterations?: readonly number[];
  readonly plan?: SnapshotPlan;
  /**
   * Snapshots before this iteration are of no use (default 1: the initial state is only asked for
   * by a node without it, with 0, and vouched for by the spec's checksum).
   */
  readonly minIteration?: number;
  /**
   * Snapshots past this iteration are not asked about: past the head peers back (catch-up.ts
   * plausibleHead), a claim is one peer's word, and tried newest first it cost every joiner an
   * anchor search on a fabricated chain (security review, finding 8).
   */
  readonly maxIteration?: number;
}

/** Chunk count and byte length of chunk `i` for a state of `weightCount` weights. */
export function chunkLayout(weightCount: number, chunkBytes: number): { total: number; bytes: number; size(i: number): number } {
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
export async function fetchVerifiedSnapshot(
  p: SnapshotFetchParts,
  holders: readonly PeerId[],
  want: SnapshotWant = {},
): Promise<VerifiedSnapshot> {
  const layout = chunkLayout(p.weightCount, p.opts.chunkBytes);
  const asked = dedupe(holders).slice(0, MAX_SNAPSHOT_HOLDERS);
  if (asked.length === 0) throw new SyncError("SYNC_NO_PEERS", "no peers to download a snapshot from");
  const blamed = new Set<string>();
  const blame = (peer: PeerId, reason: string) => {
    const id = peer.toString();
    p.log.warn({ peer: id, reason }, "snapshot holder blamed");
    if (!blamed.has(id)) p.blame(id, reason);
    blamed.add(id);
  };
  const fetch = (peer: PeerId, chunk: number, iteration: number | undefined) =>
    fetchChunk(p.node, peer, p.runId, chunk, p.opts, iteration);

  // Headers: what each holder says it serves (chunk 0). A header of the wrong shape is proof of a
  // bad holder (every honest snapshot of a run has the same layout): charged, never used.
  // A plan (DHT records, anyone may write them) is a hint: the holders' latest is asked too, so a
  // planned iteration nobody can vouch for costs one candidate, not the download.
  const asks = want.iterations ?? (want.plan ? [want.plan.iteration, undefined] : [undefined]);
  const claims = new Map<number, Map<string, { peer: PeerId; first: SnapshotResponse }>>();
  const began = performance.now();
  // Every ask at once: a plan's iteration and the holders' latest cost one round trip, not two.
  const replies = await Promise.all(asks.map((iteration) => Promise.allSettled(asked.map((peer) => fetch(peer, 0, iteration)))));
  asks.forEach((iteration, k) => {
    replies[k].forEach((h, i) => {
      if (h.status !== "fulfilled" || h.value.totalChunks === 0) return;
      const bad = shapeError(h.value, 0, layout, iteration);
      if (bad) return blame(asked[i], bad);
      if (h.value.iteration < (want.minIteration ?? 1) || h.value.iteration > (want.maxIteration ?? Infinity)) return;
      const byPeer = claims.get(h.value.iteration) ?? new Map();
      byPeer.set(asked[i].toString(), { peer: asked[i], first: h.value });
      claims.set(h.value.iteration, byPeer);
    });
  });
  p.log.debug({ holders: asked.length, iterations: [...claims.keys()], ms: Math.round(performance.now() - began) }, "snapshot headers");
  if (claims.size === 0)
    throw new SyncError("SYNC_FAILED", `none of ${asked.length} peers served a usable snapshot`, { peers: asked.length });

  let lastErr: SyncError | null = null;
  for (const iteration of [...claims.keys()].sort((a, b) => b - a).slice(0, MAX_CANDIDATES)) {
    const byPeer = claims.get(iteration)!;
    const serving = [...byPeer.values()].filter((c) => !blamed.has(c.peer.toString())).map((c) => c.peer);
    if (serving.length === 0) continue;
    const asking = performance.now();
    const ref = await p.reference(iteration, serving);
    p.log.debug({ iteration, found: ref !== null, ms: Math.round(performance.now() - asking) }, "snapshot reference");
    if (!ref) {
      lastErr = new SyncError("SYNC_BEYOND_CHAIN", `no verified commit vouches for a snapshot at ${iteration}`, { iteration });
      p.log.info({ iteration, holders: serving.length }, "snapshot beyond the verified chain; not used");
      continue;
    }
    // A holder that claims another state at this iteration is on another chain: not used, not blamed.
    const claiming = serving.filter((peer) => toHex(byPeer.get(peer.toString())!.first.checksum) === ref.checksum);
    if (claiming.length < serving.length)
      p.log.info({ iteration, holders: serving.length - claiming.length }, "snapshot holders on another chain at this iteration; not used");
    if (claiming.length === 0) {
      lastErr = new SyncError("SYNC_UNVERIFIED", `no holder claims the snapshot at ${iteration} that the verified chain vouches for`, {
        iteration,
        holders: serving.length,
      });
      continue;
    }
    const firsts = new Map([...byPeer].map(([id, c]) => [id, c.first.data]));
    const got = await download(p, layout, iteration, claiming, ref.checksum, firsts, fetch, blame, blamed);
    if (got) {
      const holders = claiming.map(String).filter((id) => !blamed.has(id));
      const vouched = ref.vouchers !== undefined ? { vouchers: ref.vouchers } : {};
      return { iteration, checksum: ref.checksum, weights: got, anchor: ref.anchor, ...vouched, blamed: [...blamed], holders };
    }
    lastErr = new SyncError("SYNC_UNVERIFIED", `no holder served the snapshot at ${iteration} that the verified chain vouches for`, {
      iteration,
      holders: serving.length,
    });
  }
  throw lastErr ?? new SyncError("SYNC_FAILED", "every snapshot holder was blamed", { peers: asked.length });
}

/** Why a chunk reply has the wrong shape, or null. */
function shapeError(
  r: SnapshotResponse,
  chunk: number,
  layout: ReturnType<typeof chunkLayout>,
  iteration: number | undefined,
): string | null {
  if (iteration !== undefined && r.iteration !== iteration) return `chunk ${chunk}: iteration ${r.iteration}, asked ${iteration}`;
  if (r.totalChunks !== layout.total) return `snapshot of ${r.totalChunks} chunks; the run's state has ${layout.total}`;
  if (r.data.byteLength !== layout.size(chunk)) return `chunk ${chunk}: ${r.data.byteLength} bytes, must be ${layout.size(chunk)}`;
  if (!equalBytes(sha256(r.data), r.chunkHash)) return `chunk ${chunk}: data does not match its own hash`;
  return null;
}

type ChunkFetch = (peer: PeerId, chunk: number, iteration: number) => Promise<SnapshotResponse>;

/**
 * The snapshot at `iteration` whose decoded weights hash to `expected`, or null. Chunks spread
 * over `holders` first; if the whole fails, each holder alone (see the file comment).
 */
async function download(
  p: SnapshotFetchParts,
  layout: ReturnType<typeof chunkLayout>,
  iteration: number,
  holders: readonly PeerId[],
  expected: string,
  firsts: ReadonlyMap<string, Uint8Array>,
  fetch: ChunkFetch,
  blame: (peer: PeerId, reason: string) => void,
  blamed: Set<string>,
): Promise<Weights | null> {
  /** SHA-256 (hex) of every chunk each holder served: evidence once the truth is known. */
  const served = new Map<string, Map<number, string>>();
  const note = (peer: PeerId, i: number, data: Uint8Array) => {
    const m = served.get(peer.toString()) ?? new Map<number, string>();
    m.set(i, sha256Hex(data));
    served.set(peer.toString(), m);
  };
  // Every holder's first chunk (from the headers) is evidence too, used or not.
  for (const peer of holders) {
    const first = firsts.get(peer.toString());
    if (first) note(peer, 0, first);
  }
  /** Chunk i from `peer` (checked), or null after blaming or giving up on it. */
  const chunkFrom = async (peer: PeerId, i: number): Promise<Uint8Array | null> => {
    const cached = i === 0 ? firsts.get(peer.toString()) : undefined;
    try {
      const data = cached ?? (await checked(peer, i));
      note(peer, i, data);
      return data;
    } catch (err) {
      if (err instanceof SyncError && err.code === "SYNC_BAD_CHUNK") blame(peer, err.message);
      else p.log.debug({ chunk: i, peer: peer.toString(), err: (err as Error).message }, "chunk failed");
      return null;
    }
  };
  const checked = async (peer: PeerId, i: number): Promise<Uint8Array> => {
    const r = await fetch(peer, i, iteration);
    const bad = shapeError(r, i, layout, iteration);
    if (bad) throw new SyncError("SYNC_BAD_CHUNK", bad, { peer: peer.toString(), chunk: i });
    return r.data;
  };
  const verify = (chunks: Uint8Array[]): Weights | null => {
    const bytes = Buffer.concat(chunks);
    if (bytes.byteLength !== layout.bytes) return null;
    const weights = p.decode(bytes);
    return checksumOf(weights) === expected ? weights : null;
  };
  const usable = () => holders.filter((h) => !blamed.has(h.toString()));

  // Pass 1: chunks spread over the holders by measured throughput, a few in flight each (a bad
  // chunk: refetched from another holder, its sender blamed and skipped from then on).
  const until = performance.now() + downloadDeadlineMs(layout.bytes) * DEADLINE_PASSES;
  const left = () => Math.max(0, Math.min(downloadDeadlineMs(layout.bytes), until - performance.now()));
  const job = (from: readonly PeerId[]) => ({
    holders: from,
    // Chunk 0 came with the first holder's header.
    have: new Map(firsts.has(from[0].toString()) ? [[0, firsts.get(from[0].toString())!]] : []),
    total: layout.total,
    perHolder: CHUNKS_PER_HOLDER,
    maxInFlight: MAX_CHUNKS_IN_FLIGHT,
    maxFailures: MAX_HOLDER_FAILURES,
    deadlineMs: left(),
    fetch: chunkFrom,
    usable: (h: PeerId) => !blamed.has(h.toString()),
  });
  const spread = await fetchChunks({ ...job(holders), onChunk: (n) => reportProgress("snapshot download", n, layout.total, "chunks") });
  if (spread.dropped.length > 0 || spread.timedOut)
    p.log.info({ iteration, dropped: spread.dropped, timedOut: spread.timedOut }, "slow or failing snapshot holders avoided");
  let truth: { weights: Weights; chunks: Uint8Array[] } | null = null;
  const whole = (c: (Uint8Array | undefined)[]): c is Uint8Array[] => c.every((x) => x !== undefined);
  if (whole(spread.chunks)) {
    const w = verify(spread.chunks);
    if (w) truth = { weights: w, chunks: spread.chunks };
  }
  // Pass 2: the spread whole failed the verified checksum: each holder must serve it alone,
  // fastest first, each within what is left of the deadline.
  if (!truth) {
    p.log.warn({ iteration, holders: holders.length }, "snapshot fails the verified commit's checksum; checking holder by holder");
    const rated = (h: PeerId) => spread.rates.get(h.toString()) ?? 0;
    for (const peer of usable().sort((a, b) => rated(b) - rated(a))) {
      if (left() === 0) break;
      const own = (await fetchChunks({ ...job([peer]), maxFailures: 1 })).chunks;
      if (blamed.has(peer.toString()) || !whole(own)) continue;
      const w = verify(own);
      if (w) {
        truth = { weights: w, chunks: own };
        break;
      }
      blame(peer, `served a snapshot at ${iteration} that the verified commit's checksum disproves`);
    }
  }
  if (!truth) return null;
  // Every chunk that differs from the verified bytes is proof against its sender.
  const truthHashes = truth.chunks.map((c) => sha256Hex(c));
  for (const [id, byChunk] of served) {
    if (blamed.has(id)) continue;
    const wrong = [...byChunk].find(([i, h]) => truthHashes[i] !== h);
    if (wrong) blame(holders.find((h) => h.toString() === id)!, `served chunk ${wrong[0]} of snapshot ${iteration} unlike the verified state`);
  }
  return truth.weights;
}

function dedupe(peers: readonly PeerId[]): PeerId[] {
  return [...new Map(peers.map((x) => [x.toString(), x])).values()];
}
