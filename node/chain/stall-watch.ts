/**
 * Notices that this process did not run for longer than a round deadline: SIGSTOP, a frozen VM,
 * a suspended laptop. After such a sleep, the iteration this node believes open may long be
 * committed by the others, and a proposal for it (an overdue timer, or the contributions that
 * queued in the socket while we slept) would fork the chain. Timers and I/O both fire late after
 * a sleep, in either order, so the proposer asks this watch before every proposal; a timer
 * refreshes it in between.
 */
/** Where a piece of work began: wall clock, ms. */
export interface WorkMark {
  readonly wall: number;
}

/** CPU time (user + system, all threads) this process has used, ms: it does not advance while stopped. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export class StallWatch {
  private seenAt = performance.now();
  private timer: NodeJS.Timeout | undefined;
  /**
   * Wall clock and CPU time at the timer's last tick. Work long enough to matter measures its CPU
   * from here: reading the CPU time is a system call, too dear twice per piece of work.
   */
  private tick = { wall: performance.now(), cpu: cpuMs() };

  constructor(
    /** A gap longer than this is a stall (the round deadline). */
    private readonly limitMs: number,
    /** Called once per stall, with its length. */
    private readonly onStall: (gapMs: number) => void,
  ) {}

  start(): void {
    if (this.timer) return;
    this.seenAt = performance.now();
    this.tick = { wall: this.seenAt, cpu: cpuMs() };
    this.timer = setInterval(() => {
      this.check();
      this.tick = { wall: performance.now(), cpu: cpuMs() };
    }, Math.max(10, Math.min(250, this.limitMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Marks the start of a piece of synchronous work (a forward pass, an apply); pass it to `worked`. */
  begin(): WorkMark {
    return { wall: performance.now() };
  }

  /**
   * The work begun at `mark` is done: the CPU time it took counts as running, not as a stall. Wall
   * time the CPU does not account for (a SIGSTOP in the middle of the work) stays a gap. Work
   * shorter than half the limit cannot hold a gap past the limit: it counts as running unmeasured.
   * Longer work is measured from the timer's last tick (no tick runs during synchronous work), so
   * the loop's idle time between that tick and the work, at most a tick's period, counts as a gap
   * too; the check at the next tick resets it.
   */
  worked(mark: WorkMark): void {
    const now = performance.now();
    if (now - mark.wall <= this.limitMs / 2) {
      this.seenAt = Math.max(this.seenAt, now);
      return;
    }
    const idle = Math.max(0, now - this.tick.wall - (cpuMs() - this.tick.cpu));
    this.seenAt = Math.max(this.seenAt, now - idle);
  }

  /** True, after reporting it, when the process has not run for longer than the limit (false while stopped). */
  check(): boolean {
    if (!this.timer) return false;
    const now = performance.now();
    const gap = now - this.seenAt;
    this.seenAt = now;
    if (gap <= this.limitMs) return false;
    this.onStall(gap);
    return true;
  }
}
