/**
 * Authors whose contribution missed its commit (a joiner, a node that was behind), with the head
 * when that was noticed. The rounds wait for them (at most 0.5 x roundTimeout a round) in the
 * next two rounds, so they get included instead of chasing a fast swarm forever. An author
 * included in one of the last PACE_WINDOW commits is keeping pace, or is a straggler the quorum
 * rule left out (proposer-schedule.ts): its misses are not waited for, or one slow node would
 * hold every other round again.
 */

/** How many iterations back a late contribution still makes its author expected. */
const LATE_WINDOW = 64;
/** Commits back within which an included author is not waited for as late. */
export const PACE_WINDOW = 128;

export class LateAuthors {
  private readonly late = new Map<string, number>();
  /** Author -> the last iteration that included it (bounded: pruned every 16 commits). */
  private readonly included = new Map<string, number>();

  /**
   * `author` contributed for `iteration`, already committed (our head is `head`): wait for it
   * unless it is a member already (`members`, the last commit's authors), keeps pace, or is
   * hopelessly far behind.
   */
  note(author: string, iteration: number, head: number, members: readonly string[]): void {
    if (iteration >= head - LATE_WINDOW && !members.includes(author) && !this.keepsPace(author, head)) this.late.set(author, head);
  }

  /** The late authors a round at `head` still waits for (noticed at most one round ago). */
  recent(head: number): string[] {
    return [...this.late].filter(([, at]) => at >= head - 1).map(([a]) => a);
  }

  /**
   * Commit `iteration` was applied with `included` as its authors; `held` contributed for it but
   * are not in it (a fallback proposer's view, a race): they are late too, unless they keep pace.
   * Older ones are dropped.
   */
  afterCommit(iteration: number, included: ReadonlySet<string>, held: Iterable<string>): void {
    for (const a of included) {
      this.late.delete(a);
      this.included.set(a, iteration);
    }
    for (const a of held) if (!included.has(a) && !this.keepsPace(a, iteration)) this.late.set(a, iteration + 1);
    for (const [a, at] of this.late) if (at < iteration) this.late.delete(a);
    if (iteration % 16 === 0) for (const [a, at] of this.included) if (at < iteration - PACE_WINDOW) this.included.delete(a);
  }

  private keepsPace(author: string, head: number): boolean {
    const at = this.included.get(author);
    return at !== undefined && at >= head - PACE_WINDOW;
  }
}
