/**
 * The deep fork choice: two valid chains that split at iteration t, each past it. The one-step
 * rule (isBetter: rank, then hash) alone would let a commit that arrives late win over a chain
 * the swarm built meanwhile: a proposer that was frozen (SIGSTOP, a VM pause) or that withheld
 * its rank-0 commit could roll every honest node back by many iterations. So the first question
 * is which side the swarm built on: how many authors of commit t-1 (the last commit both sides
 * share, a set fixed before the fork, so no identity made later counts) signed a contribution
 * on top of the side's commit t. Those signatures are in the side's commit t+1 (or, pipelined,
 * t+2), each over parentHash = hash(commit t): a verified vote that cannot be forged or moved to
 * the other side.
 * Only when both sides have as many does the one-step rule decide. Every node computes the same
 * from the same commits, so the two sides of a healed partition settle on one chain.
 */
import { equalBytes } from "../../protocol/bytes.js";
import { betterBecause, isBetter } from "./commit.js";
/**
 * How many of `eligible` (authors of commit t-1) contributed on top of this side's commit t: the
 * distinct eligible authors of an entry signed over its hash. Those are the fresh entries of its
 * commit t+1 (if that commit chains onto it) and, under pipelined rounds, the entries of its
 * commit t+2 measured one iteration early (signed over that commit's first older parent, which
 * must be commit t). A stale entry of t+1 was signed over the shared commit t-1: no vote.
 */
export function endorsements(side, eligible) {
    const { at, next, afterNext } = side;
    const t = at.commit.iteration;
    const voters = new Set();
    if (next && next.iteration === t + 1 && equalBytes(next.prevHash, at.hash))
        for (const e of next.entries)
            if ((e.staleness ?? 0) === 0)
                voters.add(e.author.id);
    const older = afterNext?.olderParents?.[0];
    if (afterNext && afterNext.iteration === t + 2 && older && equalBytes(older, at.hash))
        for (const e of afterNext.entries)
            if (e.staleness === 1)
                voters.add(e.author.id);
    return [...voters].filter((a) => eligible.has(a)).length;
}
/** True when side `a` wins the deep fork choice over side `b` (more endorsements, then isBetter). */
export function prefers(a, b, eligible) {
    const ea = endorsements(a, eligible);
    const eb = endorsements(b, eligible);
    if (ea !== eb)
        return ea > eb;
    return isBetter(a.at.commit, a.at.hash, b.at.commit, b.at.hash);
}
/** Why side `a` won `prefers` over side `b`, for the log line of the switch. */
export function preferredBecause(a, b, eligible) {
    const ea = endorsements(a, eligible);
    const eb = endorsements(b, eligible);
    if (ea !== eb)
        return `endorsed by ${ea} authors of the shared commit, the other side by ${eb}`;
    return `endorsed by ${ea} each; ${betterBecause(a.at.commit, b.at.commit)}`;
}
//# sourceMappingURL=fork-choice.js.map