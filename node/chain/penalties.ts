/**
 * Penalties charged to the signer of a provably bad message (a commit that usurps a rank or lies
 * about its checksum, an equivocation pair, a /commits reply that fails verification, snapshot bytes
 * a verified commit disproves), never to whoever relayed it. The score is gossipsub's
 * application-specific score (P5): node/node.ts passes `appSpecificScore` to
 * node/network/libp2p.ts, which weights it (APP_SPECIFIC_WEIGHT), so a charged peer sinks below
 * gossipsub's thresholds (one usurp or lie: graylisted).
 */

/** What each fault costs; a peer at or below `disconnectAt` is disconnected. */
export const PENALTY = {
  /** A commit at a rank its proposer does not hold, or from another run. */
  usurp: 50,
  /** A commit whose checksum our verified pre-state disproves. */
  lie: 50,
  /** Two signed messages for one slot. */
  equivocation: 100,
  /** A commits reply with a commit that does not verify. */
  badReply: 20,
  /**
   * Snapshot bytes that a verified commit's checksum disproves, or a chunk of the wrong shape
   * (count, length, its own hash): an honest holder of the same chain never serves either.
   */
  badSnapshot: 40,
  /** An exclusion whose contribution recomputes: a false accusation (audits.ts). */
  falseAccusation: 50,
  /** A contribution that does not recompute, proven and recorded in the chain: out of the run. */
  fraud: 100,
  disconnectAt: -100,
} as const;

/** What a rejected commit's proposer is charged for: the penalty is `PENALTY[offence]`. */
export type Offence = "usurp" | "lie" | "falseAccusation";

/**
 * Peers remembered with a penalty. Bounded: past KEEP + SLACK the mildest are forgotten down to
 * KEEP (ties: the least recently charged first), never the worst, so a crowd of fresh identities
 * charged once each cannot flush a peer charged again and again back to 0 (security review,
 * finding 14: with the oldest forgotten first, 10,000 cheap usurps from fresh keys did). Pruning
 * sorts KEEP + SLACK entries once per SLACK charges: O(log n) per charge.
 */
const KEEP = 10_000;
const SLACK = 2_500;

export class Penalties {
  /** Score per peer, in order of last charge (oldest first). */
  private readonly scores = new Map<string, number>();

  constructor(private readonly keep = KEEP) {}

  /** Charges `peer` (a peer id string) and returns its score after the charge. */
  charge(peer: string, cost: number): number {
    const score = (this.scores.get(peer) ?? 0) - cost;
    this.scores.delete(peer);
    this.scores.set(peer, score);
    if (this.scores.size > this.keep + Math.ceil((this.keep * SLACK) / KEEP)) this.prune();
    return score;
  }

  /** Peers remembered: at most keep + its slack. */
  get size(): number {
    return this.scores.size;
  }

  private prune(): void {
    // Map order is recency; a stable sort by score keeps it among equal scores.
    const ranked = [...this.scores.entries()].map(([peer, score], recency) => ({ peer, score, recency }));
    ranked.sort((a, b) => a.score - b.score || b.recency - a.recency);
    const kept = new Set(ranked.slice(0, this.keep).map((r) => r.peer));
    for (const peer of [...this.scores.keys()]) if (!kept.has(peer)) this.scores.delete(peer);
  }

  /** The peer's score: 0 for a peer never charged, negative after a charge. */
  score(peer: string): number {
    return this.scores.get(peer) ?? 0;
  }

  /** True when the peer should be disconnected. */
  shunned(peer: string): boolean {
    return this.score(peer) <= PENALTY.disconnectAt;
  }

  /** gossipsub's scoreParams.appSpecificScore (weighted by libp2p.ts's APP_SPECIFIC_WEIGHT). */
  readonly appSpecificScore = (peer: string): number => this.score(peer);
}
