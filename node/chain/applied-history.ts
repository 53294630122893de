/**
 * The recent history of what a node applied: the commits in chain order (what the commits
 * protocol serves and fork choice compares against) and the checksum of the state after each
 * iteration. Both keep the last CHAIN_KEEP iterations only.
 *
 * Only the newest DECODED_KEEP commits stay decoded: a decoded commit costs about six times its
 * bytes on the heap (an object, a peer id string and two byte views per entry; 3.1 KB for a
 * 514-byte commit of two entries), and CHAIN_KEEP of them grew every node by tens of MB
 * (issue 11, `history_mb_*` in docs/benchmarks.md). Older ones keep their exact bytes, hash,
 * iteration and exclusions, and decode again when asked for (they were verified when applied).
 */
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { decodeCommit } from "../../protocol/codec.js";
import { CHAIN_KEEP, type ChainedCommit, chained, type Commit, type EncodedCommit, type Exclusion, ZERO_HASH } from "./commit.js";
import { commitFromWire } from "./commit-wire.js";

/**
 * Commits kept decoded: audits, exclusions and pipelined parents read at most EXCLUSION_WINDOW +
 * MAX_STALENESS back, and fork choice a few.
 */
export const DECODED_KEEP = 64;

/** A commit of the history: a ChainedCommit whose decoded form may be dropped and made again. */
export class KeptCommit implements ChainedCommit {
  readonly iteration: number;
  readonly encoded: Uint8Array;
  readonly hash: Uint8Array;
  /** Read on every commit check (AppliedHistory.excluded), so never dropped. */
  readonly exclusions: readonly Exclusion[] | undefined;
  #decoded: Commit | null;

  constructor(c: ChainedCommit) {
    this.iteration = c.commit.iteration;
    // Own copies: a view would keep the whole buffer it came in (a gossip frame, a page of
    // /commits) alive for as long as the commit is kept.
    this.encoded = c.encoded.slice();
    this.hash = c.hash.slice();
    this.exclusions = c.commit.exclusions;
    this.#decoded = c.commit;
  }

  get commit(): Commit {
    return this.#decoded ?? commitFromWire(decodeCommit(this.encoded));
  }

  /** Drops the decoded form; `commit` decodes the bytes on each read from now on. */
  compact(): void {
    this.#decoded = null;
  }
}

export class AppliedHistory {
  /** Commits applied, oldest first; all but the newest DECODED_KEEP compacted. */
  private readonly log: KeptCommit[] = [];
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
  last(): KeptCommit | undefined {
    return this.log[this.log.length - 1];
  }

  /** The commits kept, oldest first (a copy). Read `iteration`, not `commit.iteration`: that decodes. */
  all(): readonly KeptCommit[] {
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
  commitAt(iteration: number): KeptCommit | undefined {
    const last = this.last();
    if (!last) return undefined;
    // Kept commits are consecutive except across a snapshot jump: try the direct index first.
    const guess = this.log[this.log.length - 1 - (last.iteration - iteration)];
    if (guess?.iteration === iteration) return guess;
    return this.log.find((l) => l.iteration === iteration);
  }

  /**
   * The authors excluded by the kept commits, each with the iteration of the commit that
   * excluded it (the first, if several did).
   */
  excluded(): Map<string, number> {
    const out = new Map<string, number>();
    for (const l of this.log) for (const x of l.exclusions ?? []) if (!out.has(x.author)) out.set(x.author, l.iteration);
    return out;
  }

  /** The encoded commits from `from` on, at most `max` of them. */
  encodedFrom(from: number, max: number): Uint8Array[] {
    return this.log
      .filter((l) => l.iteration >= from)
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
    if (!first || !last || last.commit.iteration !== first.iteration - 1 || !equalBytes(chained(last).hash, first.commit.prevHash)) return;
    const room = Math.max(0, CHAIN_KEEP - this.log.length);
    this.log.unshift(...commits.slice(Math.max(0, commits.length - room)).map((c) => new KeptCommit(chained(c))));
    this.compactOld();
  }

  /** After a restart: commits read back from the commit log file, oldest first. */
  restore(commits: readonly EncodedCommit[]): void {
    for (const c of commits) this.log.push(new KeptCommit(chained(c)));
    this.compactOld();
  }

  /** Compacts every commit older than the newest DECODED_KEEP (a no-op on compacted ones). */
  private compactOld(): void {
    for (let i = 0; i < this.log.length - DECODED_KEEP; i++) this.log[i].compact();
  }

  /** The checksum the state before applying iteration t must have: commit t-1's, or the one we started from. */
  checksumBefore(t: number): string | undefined {
    const last = this.last();
    if (last && last.iteration === t - 1) return toHex(last.commit.checksum);
    return this.checksums.get(t);
  }

  /** Records commit `entry`, after which the state (at `iteration`) has checksum `sum`. */
  record(entry: ChainedCommit, iteration: number, sum: string): void {
    this.log.push(new KeptCommit(entry));
    if (this.log.length > CHAIN_KEEP) this.log.shift();
    this.log[this.log.length - 1 - DECODED_KEEP]?.compact();
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
    while (this.log.length > 0 && this.log[this.log.length - 1].iteration >= iteration - 1) this.log.pop();
    // What stays must be the chain the anchor builds on. A snapshot of the other side of a deep
    // fork leaves our own commits from before it, which are not: kept, they would be served as
    // our chain and found to differ from the winner's at the next check (another switch).
    const last = this.last();
    if (anchor && last && !(last.iteration === iteration - 2 && equalBytes(last.hash, anchor.commit.prevHash))) {
      this.log.length = 0;
      this.checksums.clear();
    }
    for (const k of [...this.checksums.keys()]) if (k > iteration) this.checksums.delete(k);
    this.checksums.set(iteration, sum);
    if (anchor) this.log.push(new KeptCommit(anchor));
  }
}
