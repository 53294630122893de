/**
 * The deep fork choice: two valid chains that split at iteration t, each past it. The one-step
 * rule (isBetter: rank, then hash) alone would let a commit that arrives late win over a chain
 * the swarm built meanwhile: a proposer that was frozen (SIGSTOP, a VM pause) or that withheld
 * its rank-0 commit could roll every honest node back by many iterations. So the first question
 * is which side the swarm built on: how many authors of commit t-1 (the last commit both sides
 * share, a set fixed before the fork, so no identity made later counts) signed a contribution
 * on top of the side's commit t. Those signatures are in the side's commit t+1, each over
 * parentHash = hash(commit t): a verified vote that cannot be forged or moved to the other side.
 * Only when both sides have as many does the one-step rule decide. Every node computes the same
 * from the same commits, so the two sides of a healed partition settle on one chain.
 */
import { equalBytes } from "../../protocol/bytes.js";
import { betterBecause, type ChainedCommit, type Commit, isBetter } from "./commit.js";

/** One side of a fork at iteration t: its commit t, and its commit t+1 when it has one. */
export interface ForkSide {
  readonly at: ChainedCommit;
  readonly next?: Commit;
}

/**
 * How many of `eligible` (authors of commit t-1) contributed on top of this side's commit t: the
 * distinct eligible authors of its commit t+1, if that commit chains onto it (else none).
 */
export function endorsements(side: ForkSide, eligible: ReadonlySet<string>): number {
  const { at, next } = side;
  if (!next || next.iteration !== at.commit.iteration + 1 || !equalBytes(next.prevHash, at.hash)) return 0;
  return new Set(next.entries.map((e) => e.author.id).filter((a) => eligible.has(a))).size;
}

/** True when side `a` wins the deep fork choice over side `b` (more endorsements, then isBetter). */
export function prefers(a: ForkSide, b: ForkSide, eligible: ReadonlySet<string>): boolean {
  const ea = endorsements(a, eligible);
  const eb = endorsements(b, eligible);
  if (ea !== eb) return ea > eb;
  return isBetter(a.at.commit, a.at.hash, b.at.commit, b.at.hash);
}

/** Why side `a` won `prefers` over side `b`, for the log line of the switch. */
export function preferredBecause(a: ForkSide, b: ForkSide, eligible: ReadonlySet<string>): string {
  const ea = endorsements(a, eligible);
  const eb = endorsements(b, eligible);
  if (ea !== eb) return `endorsed by ${ea} authors of the shared commit, the other side by ${eb}`;
  return `endorsed by ${ea} each; ${betterBecause(a.at.commit, b.at.commit)}`;
}
