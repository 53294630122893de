/**
 * Peers that stop reading (security review, finding 3). Whatever we write to a stream the peer
 * does not read stays in that stream's write buffer once yamux's window (256 KiB) is spent:
 * gossipsub pushes every publish and forward into it, and a muxer caps nothing by default. This
 * guard samples every stream's write buffer and closes the connection of a peer whose buffer
 * stays above `stallBytes` without shrinking for `stallSamples` samples in a row, and, when the
 * bytes held for all peers pass `maxTotalBytes`, the connection holding the most. An honest
 * peer drains its buffer between samples; one that reads nothing can hold at most what we write
 * to it in `stallSamples` x `intervalMs`, and all of them together about `maxTotalBytes`.
 *
 * Consecutive samples, not elapsed time: when our own event loop is blocked (a long training
 * step), no window update is read either, and one late sample must not look like a stall.
 */
import type { Connection, Stream } from "@libp2p/interface";
import type { Logger } from "../ground/index.js";

export interface SlowReaderOptions {
  /** Sampling period. */
  readonly intervalMs: number;
  /** A stream holding more than this, not shrinking, counts as stalled. */
  readonly stallBytes: number;
  /** Stalled samples in a row before the peer is disconnected. */
  readonly stallSamples: number;
  /** Bytes held in write buffers for all peers together before the largest holder is dropped. */
  readonly maxTotalBytes: number;
}

export const defaultSlowReaderOptions: SlowReaderOptions = {
  // 1 s: a paused subscriber gains at most one second of our traffic between two looks.
  intervalMs: 1000,
  // 1 MiB: a little more than yamux's window; an honest reader's buffer drains below it or shrinks.
  stallBytes: 1024 * 1024,
  // 10 samples (about 10 s): a sync reply's fetcher gives up after 10 s anyway, and an honest
  // node pausing for a GC or a step reads again well within it.
  stallSamples: 10,
  // 64 MiB for everyone: two full sync budgets (node/sync/serve-limits.ts) and gossip in flight.
  maxTotalBytes: 64 * 1024 * 1024,
};

/** Where the guard finds connections: libp2p's host, or anything that lists them. */
export interface ConnectionSource {
  getConnections(): Connection[];
}

/** Why a connection was closed, for logs and tests. */
export type SlowReaderVerdict = "stalled" | "over-total";

export class SlowReaderGuard {
  private timer: NodeJS.Timeout | null = null;
  /** Per stream: the buffer at the last sample and how many samples in a row it did not shrink. */
  private readonly seen = new WeakMap<Stream, { bytes: number; stalled: number }>();
  /** Connections closed, by verdict (tests and metrics read it). */
  readonly closed: Record<SlowReaderVerdict, number> = { stalled: 0, "over-total": 0 };

  constructor(
    private readonly host: ConnectionSource,
    private readonly log: Logger,
    private readonly opts: SlowReaderOptions = defaultSlowReaderOptions,
    private readonly onClose: (peer: string, verdict: SlowReaderVerdict) => void = () => {},
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), this.opts.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One sample: closes stalled connections, then the largest holders while over the total. */
  check(): void {
    const held: { conn: Connection; bytes: number }[] = [];
    let total = 0;
    for (const conn of this.host.getConnections()) {
      let bytes = 0;
      let stalled = false;
      for (const s of conn.streams) {
        const b = s.writeBufferLength;
        bytes += b;
        const prev = this.seen.get(s);
        const count = b > this.opts.stallBytes && prev !== undefined && b >= prev.bytes ? prev.stalled + 1 : 0;
        this.seen.set(s, { bytes: b, stalled: count });
        if (count >= this.opts.stallSamples) stalled = true;
      }
      if (stalled) this.drop(conn, "stalled", bytes);
      else if (bytes > 0) {
        held.push({ conn, bytes });
        total += bytes;
      }
    }
    held.sort((a, b) => b.bytes - a.bytes);
    for (const h of held) {
      if (total <= this.opts.maxTotalBytes) break;
      this.drop(h.conn, "over-total", h.bytes);
      total -= h.bytes;
    }
  }

  private drop(conn: Connection, verdict: SlowReaderVerdict, bytes: number): void {
    const peer = conn.remotePeer.toString();
    this.closed[verdict]++;
    this.log.warn({ peer, verdict, bytes }, "peer not reading what we send; disconnected");
    // abort: a graceful close would wait for the very buffers the peer does not read.
    conn.abort(new Error(`peer does not read (${verdict}, ${bytes} bytes queued)`));
    this.onClose(peer, verdict);
  }
}
