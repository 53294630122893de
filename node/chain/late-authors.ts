/**
 * Authors whose contribution missed its commit (a joiner, a node that was behind or slow), with
 * the head when that was noticed. The rounds wait for them (at most 0.5 x roundTimeout a round)
 * in the next two rounds, so they get included instead of chasing a fast swarm forever.
 */

/** How many iterations back a late contribution still makes its author expected. */
const LATE_WINDOW = 64;

export class LateAuthors {
  private readonly late = new Map<string, number>();

  /**
   * `author` contributed for `iteration`, already committed (our head is `head`): wait for it
   * unless it is a member already (`members`, the last commit's authors) or hopelessly far behind.
   */
  note(author: string, iteration: number, head: number, members: readonly string[]): void {
    if (iteration >= head - LATE_WINDOW && !members.includes(author)) this.late.set(author, head);
  }

  /** The late authors a round at `head` still waits for (noticed at most one round ago). */
  recent(head: number): string[] {
    return [...this.late].filter(([, at]) => at >= head - 1).map(([a]) => a);
  }

  /**
   * Commit `iteration` was applied with `included` as its authors; `held` contributed for it but
   * are not in it (a fallback proposer's view, a race): they are late too. Older ones are dropped.
   */
  afterCommit(iteration: number, included: ReadonlySet<string>, held: Iterable<string>): void {
    for (const a of included) this.late.delete(a);
    for (const a of held) if (!included.has(a)) this.late.set(a, iteration + 1);
    for (const [a, at] of this.late) if (at < iteration) this.late.delete(a);
  }
}
