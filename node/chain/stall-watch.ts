/**
 * Notices that this process did not run for longer than a round deadline: SIGSTOP, a frozen VM,
 * a suspended laptop. After such a sleep, the iteration this node believes open may long be
 * committed by the others, and a proposal for it (an overdue timer, or the contributions that
 * queued in the socket while we slept) would fork the chain. Timers and I/O both fire late after
 * a sleep, in either order, so the proposer asks this watch before every proposal; a timer
 * refreshes it in between.
 */
export class StallWatch {
  private seenAt = performance.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** A gap longer than this is a stall (the round deadline). */
    private readonly limitMs: number,
    /** Called once per stall, with its length. */
    private readonly onStall: (gapMs: number) => void,
  ) {}

  start(): void {
    if (this.timer) return;
    this.seenAt = performance.now();
    this.timer = setInterval(() => this.check(), Math.max(10, Math.min(250, this.limitMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** We were busy on purpose (a forward pass, an apply): the time since was work, not a stall. */
  touch(): void {
    this.seenAt = performance.now();
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
