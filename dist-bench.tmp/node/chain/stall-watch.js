/** CPU time (user + system, all threads) this process has used, ms: it does not advance while stopped. */
function cpuMs() {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
}
export class StallWatch {
    limitMs;
    onStall;
    seenAt = performance.now();
    timer;
    constructor(
    /** A gap longer than this is a stall (the round deadline). */
    limitMs, 
    /** Called once per stall, with its length. */
    onStall) {
        this.limitMs = limitMs;
        this.onStall = onStall;
    }
    start() {
        if (this.timer)
            return;
        this.seenAt = performance.now();
        this.timer = setInterval(() => this.check(), Math.max(10, Math.min(250, this.limitMs / 4)));
        this.timer.unref();
    }
    stop() {
        clearInterval(this.timer);
        this.timer = undefined;
    }
    /** Marks the start of a piece of synchronous work (a forward pass, an apply); pass it to `worked`. */
    begin() {
        return { wall: performance.now(), cpu: cpuMs() };
    }
    /**
     * The work begun at `mark` is done: the CPU time it took counts as running, not as a stall. Wall
     * time the CPU does not account for (a SIGSTOP in the middle of the work) stays a gap.
     */
    worked(mark) {
        const now = performance.now();
        const idle = Math.max(0, now - mark.wall - (cpuMs() - mark.cpu));
        this.seenAt = Math.max(this.seenAt, now - idle);
    }
    /** True, after reporting it, when the process has not run for longer than the limit (false while stopped). */
    check() {
        if (!this.timer)
            return false;
        const now = performance.now();
        const gap = now - this.seenAt;
        this.seenAt = now;
        if (gap <= this.limitMs)
            return false;
        this.onStall(gap);
        return true;
    }
}
//# sourceMappingURL=stall-watch.js.map