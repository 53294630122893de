/**
 * Which holder serves which snapshot chunk, and when (security review, finding 9). Every chunk
 * used to be asked at once (the server resets streams past 16 per connection, so most failed
 * at once), and the holder-by-holder pass asked one chunk at a time for 10 s each with no overall
 * deadline: a slow holder listed first cost chunks x 10 s, hours for a large model.
 *
 * Here a few chunks are in flight per holder and in all; each chunk goes to the free holder with
 * the best measured throughput (an unmeasured one is tried first, once a chunk), and a chunk is
 * not given to a holder at a quarter or less of the rate of a busy better one: it waits for that
 * one instead. A holder that fails `maxFailures` chunks (timeouts included) is dropped for the
 * rest of the download, and the whole stops at `deadlineMs` with what it has. Slow is not proof
 * of lying: a dropped holder is avoided, never charged.
 */
import type { PeerId } from "@libp2p/interface";

export interface ChunkJob {
  /** Holders, best first when nothing is measured yet. */
  readonly holders: readonly PeerId[];
  readonly total: number;
  /** Chunks in flight per holder. */
  readonly perHolder: number;
  /** Chunks in flight in all. */
  readonly maxInFlight: number;
  /** Failed chunks before a holder is dropped. */
  readonly maxFailures: number;
  readonly deadlineMs: number;
  /** Chunk i from `peer`, or null after a failure (a timeout, a bad chunk). */
  fetch(peer: PeerId, i: number): Promise<Uint8Array | null>;
  /** Whether a holder may still be asked (not blamed). */
  usable(peer: PeerId): boolean;
  /** Chunks already held (a holder's header carries chunk 0): not fetched again. */
  readonly have?: ReadonlyMap<number, Uint8Array>;
  /** Told of every chunk received. */
  onChunk?(received: number): void;
}

export interface ChunkResult {
  /** Chunk i, or undefined when no holder served it in time. */
  readonly chunks: (Uint8Array | undefined)[];
  /** Bytes per millisecond per holder that served anything, by peer id. */
  readonly rates: ReadonlyMap<string, number>;
  /** Holders dropped for failing chunks. */
  readonly dropped: readonly string[];
  /** The deadline passed before every chunk came. */
  readonly timedOut: boolean;
}

/** A holder this slow relative to a busy better one is not given chunks while that one works. */
const SLOW_FACTOR = 4;

interface HolderState {
  readonly peer: PeerId;
  readonly order: number;
  inFlight: number;
  bytes: number;
  ms: number;
  failures: number;
}

export function fetchChunks(job: ChunkJob): Promise<ChunkResult> {
  const chunks: (Uint8Array | undefined)[] = Array.from({ length: job.total }, (_, i) => job.have?.get(i));
  const state = job.holders.map((peer, order): HolderState => ({ peer, order, inFlight: 0, bytes: 0, ms: 0, failures: 0 }));
  const rate = (h: HolderState) => (h.ms > 0 ? h.bytes / h.ms : h.bytes > 0 ? Infinity : h.inFlight > 0 || h.failures > 0 ? 0 : Infinity);
  const alive = (h: HolderState) => h.failures < job.maxFailures && job.usable(h.peer);
  /** Chunks not yet received nor in flight, in order; each with the holders that failed it. */
  const pending = chunks.flatMap((c, i) => (c ? [] : [{ i, tried: new Set<HolderState>() }]));
  let inFlight = 0;
  let received = 0;
  let finished = false;

  return new Promise((resolve) => {
    const finish = (timedOut: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      const rates = new Map(state.filter((h) => h.bytes > 0).map((h) => [h.peer.toString(), rate(h)]));
      const dropped = state.filter((h) => h.failures >= job.maxFailures).map((h) => h.peer.toString());
      resolve({ chunks, rates, dropped, timedOut });
    };
    const timer = setTimeout(() => finish(true), job.deadlineMs);

    const pick = (tried: Set<HolderState>): HolderState | "wait" | null => {
      const open = state.filter((h) => alive(h) && !tried.has(h));
      if (open.length === 0) return null;
      const byRate = (a: HolderState, b: HolderState) => rate(b) - rate(a) || a.order - b.order;
      const free = open.filter((h) => h.inFlight < job.perHolder).sort(byRate);
      const best = [...open].sort(byRate)[0];
      if (free.length === 0) return "wait";
      // A far better holder is busy: wait for it rather than hand the chunk to a slow one.
      if (best.inFlight >= job.perHolder && rate(free[0]) * SLOW_FACTOR <= rate(best) && inFlight > 0) return "wait";
      return free[0];
    };

    const schedule = () => {
      if (finished) return;
      // Once a chunk nobody failed has to wait, every such chunk would: only retries are looked at.
      let freshWait = false;
      for (let k = 0; k < pending.length && inFlight < job.maxInFlight; ) {
        const next = pending[k];
        if (freshWait && next.tried.size === 0) {
          k++;
          continue;
        }
        const h = pick(next.tried);
        if (h === "wait") {
          if (next.tried.size === 0) freshWait = true;
          k++;
          continue;
        }
        pending.splice(k, 1);
        if (h === null) continue; // nobody left for this chunk: it stays missing
        start(h, next);
      }
      if (inFlight === 0) finish(false);
    };

    const start = (h: HolderState, task: { i: number; tried: Set<HolderState> }) => {
      h.inFlight++;
      inFlight++;
      const began = performance.now();
      job
        .fetch(h.peer, task.i)
        .catch(() => null)
        .then((data) => {
          h.inFlight--;
          inFlight--;
          if (finished) return;
          if (data) {
            h.bytes += data.byteLength;
            h.ms += Math.max(1, performance.now() - began);
            chunks[task.i] = data;
            job.onChunk?.(++received);
          } else {
            h.failures++;
            h.ms += Math.max(1, performance.now() - began);
            task.tried.add(h);
            pending.unshift(task);
          }
          schedule();
        });
    };

    schedule();
  });
}
