/**
 * How much serving sync requests may hold (security review, finding 3b). A reply is built whole
 * and stays in memory until the peer has read it; a peer that asks and never reads used to keep
 * up to 16 streams per protocol per connection, each with a 4 MiB chunk or an 8 MiB commits page,
 * for good. Here each serve first takes one of its peer's few slots, then reserves its reply's
 * bytes from one budget for the whole node, both waited for in order of arrival and never past
 * the serve's deadline (protocols.ts aborts the stream on it). So all peers together hold at most
 * `maxBytes` of replies (plus one reply larger than the budget, alone), and no peer more than
 * `perPeer` serves at once.
 */
import { SeedswarmError } from "../../protocol/errors.js";

export class ServeLimitError extends SeedswarmError<"SERVE_DEADLINE"> {}

export interface ServeLimitOptions {
  /** Serves in progress per peer (the rest wait). */
  readonly perPeer: number;
  /** Reply bytes held for all peers together. */
  readonly maxBytes: number;
}

export const defaultServeLimitOptions: ServeLimitOptions = {
  // 4: what an honest fetcher asks of one holder at once (snapshot-fetch.ts CHUNKS_PER_HOLDER)
  // plus a commits or checksum request beside it.
  perPeer: 4,
  // 32 MiB: eight full snapshot chunks or four full commits pages on the wire at once.
  maxBytes: 32 * 1024 * 1024,
};

interface Waiter {
  readonly fits: () => boolean;
  /** Takes what was waited for, synchronously, so the next waiter's `fits` sees it. */
  readonly take: () => void;
  readonly resolve: () => void;
}

export class ServeLimits {
  private readonly active = new Map<string, number>();
  private readonly peerWaiters = new Map<string, Waiter[]>();
  private readonly byteWaiters: Waiter[] = [];
  private bytes = 0;

  constructor(private readonly opts: ServeLimitOptions = defaultServeLimitOptions) {}

  /** Reply bytes held now (tests, metrics). */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Serves in progress for `peer`. */
  activeFor(peer: string): number {
    return this.active.get(peer) ?? 0;
  }

  /** Waits for one of `peer`'s slots; returns its release (call once). */
  async enter(peer: string, signal: AbortSignal): Promise<() => void> {
    const fits = () => this.activeFor(peer) < this.opts.perPeer;
    const take = () => this.active.set(peer, this.activeFor(peer) + 1);
    const queue = this.peerWaiters.get(peer) ?? [];
    if (fits() && queue.length === 0) take();
    else {
      this.peerWaiters.set(peer, queue);
      try {
        await this.wait(queue, fits, take, signal, { peer });
      } finally {
        if (queue.length === 0) this.peerWaiters.delete(peer);
      }
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = this.activeFor(peer) - 1;
      if (n > 0) this.active.set(peer, n);
      else this.active.delete(peer);
      this.wake(this.peerWaiters.get(peer) ?? []);
    };
  }

  /**
   * Waits until `bytes` fit in the budget (or nothing is held: one reply larger than the budget
   * goes alone) and holds them; returns the holding, which may shrink to the reply's real size.
   */
  async reserve(bytes: number, signal: AbortSignal): Promise<{ shrink(to: number): void; release(): void }> {
    const fits = () => this.bytes === 0 || this.bytes + bytes <= this.opts.maxBytes;
    const take = () => {
      this.bytes += bytes;
    };
    if (fits() && this.byteWaiters.length === 0) take();
    else await this.wait(this.byteWaiters, fits, take, signal, { bytes });
    let held = bytes;
    const set = (to: number) => {
      this.bytes -= held - to;
      held = to;
      this.wake(this.byteWaiters);
    };
    return { shrink: (to) => set(Math.min(held, to)), release: () => set(0) };
  }

  private wait(queue: Waiter[], fits: () => boolean, take: () => void, signal: AbortSignal, context: Record<string, unknown>): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const i = queue.indexOf(w);
        if (i >= 0) queue.splice(i, 1);
        // The next in line may fit where this one did not.
        this.wake(queue);
        reject(new ServeLimitError("SERVE_DEADLINE", "serve deadline passed while waiting for a slot", context));
      };
      const w: Waiter = {
        fits,
        take,
        resolve: () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      queue.push(w);
    });
  }

  /** Lets waiters through in order, while the first fits. */
  private wake(queue: Waiter[]): void {
    while (queue.length > 0 && queue[0].fits()) {
      const w = queue.shift()!;
      w.take();
      w.resolve();
    }
  }
}
