/**
 * Rate budgets for what gossip verifies on a signer's word, each O(1) per message (finding 11,
 * finding 5):
 * - notices (heartbeat, leave, proof): a token bucket per signer, and for newcomers (signers not
 *   in our recent commits) one shared bucket besides, so a crowd of free identities is bounded as
 *   a crowd, not per head;
 * - commits: per iteration, the newcomer proposers whose entries this node verifies (members
 *   always may), so fresh proposer keys re-wrapping pre-signed entries buy no 1,024x verifications.
 * Both tables are bounded (the oldest signer or iteration goes first).
 */
import { BoundedMap } from "../ground/index.js";

/** The budgets' figures; an honest node heartbeats at most every 500 ms and proves rarely. */
export const NOTICE_BUDGET = {
  /** Notices per second a signer may sustain, and its burst. */
  perSignerPerSecond: 4,
  perSignerBurst: 16,
  /** Notices per second all newcomers together may sustain, and their burst. */
  newcomersPerSecond: 200,
  newcomersBurst: 400,
  /** Signers whose buckets are kept (a forgotten one starts full again: the shared bucket still bounds newcomers). */
  signersKept: 4096,
  /** Newcomer proposers per iteration whose commits' entries are verified. */
  newcomerProposersPerIteration: 4,
  /** Iterations whose newcomer proposers are remembered. */
  iterationsKept: 64,
} as const;

/** A token bucket: `rate` a second, at most `burst`. */
class Bucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.at = now;
  }

  has(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
    return this.tokens >= 1;
  }

  take(now: number): void {
    if (this.has(now)) this.tokens -= 1;
  }
}

export class NoticeBudget {
  private readonly signers = new BoundedMap<string, Bucket>(NOTICE_BUDGET.signersKept);
  private readonly newcomers: Bucket;

  /**
   * @param isMember whether a signer is an author of our recent commits.
   * @param now the clock in ms (a test may pass its own).
   */
  constructor(
    private readonly isMember: (signer: string) => boolean,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.newcomers = new Bucket(NOTICE_BUDGET.newcomersPerSecond, NOTICE_BUDGET.newcomersBurst, this.now());
  }

  /** `take` false: would one notice from `signer` be within budget; true: spend it. */
  notice(signer: string, take: boolean): boolean {
    const now = this.now();
    let mine = this.signers.get(signer);
    if (!mine) {
      if (!take) return this.isMember(signer) || this.newcomers.has(now);
      mine = new Bucket(NOTICE_BUDGET.perSignerPerSecond, NOTICE_BUDGET.perSignerBurst, now);
      this.signers.set(signer, mine);
    }
    const member = this.isMember(signer);
    if (!take) return mine.has(now) && (member || this.newcomers.has(now));
    mine.take(now);
    if (!member) this.newcomers.take(now);
    return true;
  }
}

export class ProposerBudget {
  /** Newcomer proposers whose entries were verified, per iteration. */
  private readonly byIteration = new Map<number, Set<string>>();

  constructor(private readonly isMember: (proposer: string) => boolean) {}

  /** Whether the entries of `proposer`'s commit for `iteration` are verified; records it. */
  mayVerify(proposer: string, iteration: number): boolean {
    if (this.isMember(proposer)) return true;
    let set = this.byIteration.get(iteration);
    if (set?.has(proposer)) return true;
    if (set && set.size >= NOTICE_BUDGET.newcomerProposersPerIteration) return false;
    if (!set) {
      set = new Set();
      this.byIteration.set(iteration, set);
      if (this.byIteration.size > NOTICE_BUDGET.iterationsKept) this.byIteration.delete(Math.min(...this.byIteration.keys()));
    }
    set.add(proposer);
    return true;
  }
}
