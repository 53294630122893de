/**
 * The recent history of what a node applied: the commits in chain order (what the commits
 * protocol serves and fork choice compares against) and the checksum of the state after each
 * iteration. Both keep the last CHAIN_KEEP iterations only.
 */
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { CHAIN_KEEP, type ChainedCommit, chained, type EncodedCommit, ZERO_HASH } from "./commit.js";

export class AppliedHistory {
  /** Commits applied, oldest first. */
  private readonly log: ChainedCommit[] = [];
  /** Checksum of the state after `iteration` applied iterations, recent ones only. */
  private readonly checksums = new Map<number, string>();

  /** Starts at the state after `iteration` applied iterations, with checksum `sum`. */
  constructor(iteration: number, sum: string) {
    this.checksums.set(iteration, sum);
  }

  checksumAt(iteration: number): string | undefined {
    return this.checksums.get(iteration);
  }

  /** The last commit applied (none before the first, or right after a snapshot without anchor). */
  last(): ChainedCommit | undefined {
    return this.log[this.log.length - 1];
  }

  /** The commits kept, oldest first (a copy). */
  all(): readonly ChainedCommit[] {
    return [...this.log];
  }

  /**
   * The hash a contribution measured after our commit `iteration` is signed over: that commit's,
   * while kept; ZERO_HASH for -1 (the state before the first commit); undefined otherwise.
   */
  hashAt(iteration: number): Uint8Array | undefined {
    return iteration === -1 ? ZERO_HASH : this.commitAt(iteration)?.hash;
  }

  /** The commit kept for `iteration`, if any. */
  commitAt(iteration: number): ChainedCommit | undefined {
    const last = this.last();
    if (!last) return undefined;
    // Kept commits are consecutive except across a snapshot jump: try the direct index first.
    const guess = this.log[this.log.length - 1 - (last.commit.iteration - iteration)];
    if (guess?.commit.iteration === iteration) return guess;
    return this.log.find((l) => l.commit.iteration === iteration);
  }

  /**
   * The authors excluded by the kept commits, each with the iteration of the commit that
   * excluded it (the first, if several did).
   */
  excluded(): Map<string, number> {
    const out = new Map<string, number>();
    for (const l of this.log)
      for (const x of l.commit.exclusions ?? []) if (!out.has(x.author)) out.set(x.author, l.commit.iteration);
    return out;
  }

  /** The encoded commits from `from` on, at most `max` of them. */
  encodedFrom(from: number, max: number): Uint8Array[] {
    return this.log
      .filter((l) => l.commit.iteration >= from)
      .slice(0, max)
      .map((l) => l.encoded);
  }

  /**
   * After a snapshot: `commits` (oldest first) are the chain behind the first one kept, linked to
   * it by hash (sync/chain-behind.ts); they go before it, within CHAIN_KEEP. Anything else is
   * ignored.
   */
  prepend(commits: readonly EncodedCommit[]): void {
    const first = this.log[0];
    const last = commits[commits.length - 1];
    if (!first || !last || last.commit.iteration !== first.commit.iteration - 1 || !equalBytes(chained(last).hash, first.commit.prevHash)) return;
    const room = Math.max(0, CHAIN_KEEP - this.log.length);
    this.log.unshift(...commits.slice(Math.max(0, commits.length - room)).map(chained));
  }

  /** After a restart: commits read back from the commit log file, oldest first. */
  restore(commits: readonly EncodedCommit[]): void {
    for (const c of commits) this.log.push(chained(c));
  }

  /** The checksum the state before applying iteration t must have: commit t-1's, or the one we started from. */
  checksumBefore(t: number): string | undefined {
    const last = this.last();
    if (last && last.commit.iteration === t - 1) return toHex(last.commit.checksum);
    return this.checksums.get(t);
  }

  /** Records commit `entry`, after which the state (at `iteration`) has checksum `sum`. */
  record(entry: ChainedCommit, iteration: number, sum: string): void {
    this.log.push(entry);
    if (this.log.length > CHAIN_KEEP) this.log.shift();
    this.checksums.set(iteration, sum);
    this.checksums.delete(iteration - CHAIN_KEEP);
  }

  /** Forgets the last commit, which had brought the state to `iteration` (a one-step fork switch). */
  undoLast(iteration: number): void {
    this.log.pop();
    this.checksums.delete(iteration);
  }

  /**
   * Jumps to a snapshot after `iteration` applied iterations with checksum `sum`: nothing from
   * its anchor commit (iteration - 1) on can be served as our chain any more, nor anything before
   * it that the anchor does not build on; `anchor`, when known, becomes the last commit.
   */
  jumpTo(iteration: number, sum: string, anchor: ChainedCommit | null): void {
    while (this.log.length > 0 && this.log[this.log.length - 1].commit.iteration >= iteration - 1) this.log.pop();
    // What stays must be the chain the anchor builds on. A snapshot of the other side of a deep
    // fork leaves our own commits from before it, which are not: kept, they would be served as
    // our chain and found to differ from the winner's at the next check (another switch).
    const last = this.last();
    if (anchor && last && !(last.commit.iteration === iteration - 2 && equalBytes(last.hash, anchor.commit.prevHash))) {
      this.log.length = 0;
      this.checksums.clear();
    }
    for (const k of [...this.checksums.keys()]) if (k > iteration) this.checksums.delete(k);
    this.checksums.set(iteration, sum);
    if (anchor) this.log.push(anchor);
  }
}
