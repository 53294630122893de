/**
 * The deep fork choice: two valid chains that split at iteration t, each past it. The one-step
 * rule (isBetter: rank, then hash) alone would let a commit that arrives late win over a chain
 * the swarm built meanwhile: a proposer that was frozen (SIGSTOP, a VM pause) or that withheld
 * its rank-0 commit could roll every honest node back by many iterations. So the first question
 * is which side the swarm built on: how many of the eligible (the authors commit t waited for,
 * from commit t-1, the last commit both sides share, and the proposers of the window before it:
 * a set fixed before the fork, so no identity made later counts; sync/repair.ts) signed a
 * contribution on top of the side's commit t. Those signatures are in the side's commit t+1
 * (or, pipelined, t+2), each over parentHash = hash(commit t): a verified vote that cannot be
 * forged or moved to the other side.
 * Only when both sides have as many does the one-step rule decide. Every node computes the same
 * from the same commits, so the two sides of a healed partition settle on one chain.
 */
import { equalBytes } from "../../protocol/bytes.js";
import { betterBecause, type ChainedCommit, type Commit, isBetter } from "./commit.js";

/**
 * One side of a fork at iteration t: its commit t, and its commits t+1 and (under pipelined
 * rounds) t+2 when it has them.
 */
export interface ForkSide {
  readonly at: ChainedCommit;
  readonly next?: Commit;
  readonly afterNext?: Commit;
}

/**
 * How many of `eligible` (fixed before the fork: see the module comment) contributed on top of
 * this side's commit t: the distinct eligible authors of an entry signed over its hash. Those are the fresh entries of its
 * commit t+1 (if that commit chains onto it) and, under pipelined rounds, the entries of its
 * commit t+2 measured one iteration early (signed over that commit's first older parent, which
 * must be commit t). A stale entry of t+1 was signed over the shared commit t-1: no vote.
 */
export function endorsements(side: ForkSide, eligible: ReadonlySet<string>): number {
  const { at, next, afterNext } = side;
  const t = at.commit.iteration;
  const voters = new Set<string>();
  if (next && next.iteration === t + 1 && equalBytes(next.prevHash, at.hash))
    for (const e of next.entries) if ((e.staleness ?? 0) === 0) voters.add(e.author.id);
  const older = afterNext?.olderParents?.[0];
  if (afterNext && afterNext.iteration === t + 2 && older && equalBytes(older, at.hash))
    for (const e of afterNext.entries) if (e.staleness === 1) voters.add(e.author.id);
  return [...voters].filter((a) => eligible.has(a)).length;
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

/**
 * The deep fork choice at the chain's start (t = 0): no commit t-1 both sides share, so no set of
 * authors fixed before the fork, and with none the rule above falls to rank and hash: a Sybil
 * that grinds a commit 0 with a lower hash (two tries on average) would rewind every honest node
 * to iteration 0 (security review, finding 7). So the voters are the authors we hold: those of
 * our own chain's commits (`held`), whom the other side cannot make. Their side wins only when at
 * least one of them built on it, and then by `prefers` over them; else our first commit stays.
 * A chain nobody but ourselves (`self`) ever built on (a joiner that started its own genesis
 * after a failed catch-up, or two lone nodes racing) has no swarm to protect: there the side
 * with more distinct endorsing authors wins, then rank and hash, so two lone nodes agree and a
 * lone node joins a swarm (not the other way round).
 */
export function prefersAtStart(theirs: ForkSide, ours: ForkSide, held: ReadonlySet<string>, self: string): boolean {
  if (lone(held, self)) {
    const anyone = new Set([...votersOf(theirs), ...votersOf(ours)]);
    return prefers(theirs, ours, anyone);
  }
  return endorsements(theirs, held) > 0 && prefers(theirs, ours, held);
}

/** Why `prefersAtStart` decided as it did, for the switch's (or the refusal's) log line. */
export function preferredAtStartBecause(a: ForkSide, b: ForkSide, held: ReadonlySet<string>, self: string): string {
  if (lone(held, self)) return `at the chain's start, our chain built on by nobody else: ${preferredBecause(a, b, new Set([...votersOf(a), ...votersOf(b)]))}`;
  return `at the chain's start, over the ${held.size} authors of our chain: ${preferredBecause(a, b, held)}`;
}

/** True when nobody but `self` is among `held` (our chain's authors). */
function lone(held: ReadonlySet<string>, self: string): boolean {
  return [...held].every((a) => a === self);
}

/** Every author whose entry in the side's t+1 or t+2 votes for its commit t (see `endorsements`). */
function votersOf(side: ForkSide): string[] {
  return [side.next, side.afterNext].flatMap((c) => c?.entries.map((e) => e.author.id) ?? []);
}
