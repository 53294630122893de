/**
 * What a node holds for rounds it has not applied yet: signed contributions (by iteration and
 * parent) and verified commits that arrived before their turn. Everything here came from the
 * network, so every collection is capped per signer and per iteration (ROUND_CAPS), and two
 * different signed messages for one slot are reported as equivocation evidence.
 *
 * An iteration's contribution cap is not first come, first held: a member's contribution (its
 * author is in a recent commit of our chain) takes the place of a newcomer's when the cap is
 * reached, so a crowd of free identities that arrives first cannot crowd the swarm's own
 * authors out of a round (issue 11, attack 7). Among newcomers the cap is a uniform sample of
 * all that were offered (reservoir sampling, with this node's own randomness: which ones it
 * holds is not replicated state), so Sybils that arrive first cannot lock an honest joiner out
 * either: of n newcomers for a round, each is held with the same chance, about cap / n.
 */
import { randomInt } from "node:crypto";
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { MAX_COMMIT_ENTRIES } from "../../protocol/limits.js";
import { chained, type EncodedCommit, type SignedContribution } from "./commit.js";
import { commitEquivocation, type Equivocation } from "./evidence.js";

/**
 * Memory bounds on what is held for iterations not yet applied (gossip accepts up to 1,024
 * iterations ahead). An honest node contributes for its head and proposes one commit per
 * iteration, and honest nodes differ by a few iterations at most, so these caps only bind on a
 * flood: per signer, future contributions and pending commits; per iteration, contributions (a
 * commit holds at most MAX_COMMIT_ENTRIES; twice that leaves room to choose in timestamp order)
 * and competing commits (a primary, a fallback or two, and a fork).
 */
export const ROUND_CAPS = {
  futureContributionsPerSigner: 16,
  contributionsPerIteration: 2 * MAX_COMMIT_ENTRIES,
  pendingCommitsPerSigner: 16,
  pendingCommitsPerIteration: 4,
  /** Hashes of commits rejected as lies or usurpations, so a replay is refused without applying. */
  rejectedCommits: 256,
  /** Authors remembered as excluded (each cost its owner a real, audited contribution). */
  bannedAuthors: 10_000,
} as const;

/** A contribution held for a round, with the parent it was signed over. */
interface Held {
  readonly c: SignedContribution;
  readonly parent: Uint8Array;
}

/** Key of a held contribution: one per author and parent (a re-contribution after a fork switch has another parent). */
function heldKey(author: string, parent: Uint8Array): string {
  return `${author}/${toHex(parent)}`;
}

/** The outcome of offering a message to the inbox. */
export type Offered = "held" | "duplicate" | "dropped";

export class RoundInbox {
  private readonly contributions = new Map<number, Map<string, Held>>();
  private readonly pendingCommits = new Map<number, EncodedCommit[]>();
  /** Newcomers' contributions offered per iteration (held or not): the reservoir's count. */
  private readonly newcomersOffered = new Map<number, number>();

  /**
   * @param onEquivocation called with the evidence when one signer signed two messages for one slot.
   * @param isMember whether an author is in a recent commit of our chain (late-authors.ts): members' contributions displace newcomers' at the cap.
   * @param random a uniform integer in [0, n) (the CSPRNG; a test may pass its own).
   */
  constructor(
    private readonly onEquivocation: (e: Equivocation) => void,
    private readonly isMember: (author: string) => boolean = () => false,
    private readonly random: (n: number) => number = (n) => randomInt(n),
  ) {}

  /**
   * Holds a verified contribution for `iteration` (>= head) made on `parent`, within the caps.
   * The same author and parent twice with other bytes is equivocation; with the same bytes, a
   * duplicate.
   */
  addContribution(c: SignedContribution, iteration: number, parent: Uint8Array, head: number): Offered {
    let byKey = this.contributions.get(iteration);
    const key = heldKey(c.author.id, parent);
    const have = byKey?.get(key);
    if (have) {
      if (have.c.author.joinedAt !== c.author.joinedAt || !equalBytes(have.c.payload, c.payload))
        this.onEquivocation({
          kind: "contribution",
          signer: c.author.id,
          iteration,
          parentHash: parent,
          first: { joinedAt: have.c.author.joinedAt, payload: have.c.payload, signature: have.c.signature },
          second: { joinedAt: c.author.joinedAt, payload: c.payload, signature: c.signature },
        });
      return "duplicate";
    }
    if (iteration > head && this.futureContributions(c.author.id, head) >= ROUND_CAPS.futureContributionsPerSigner)
      return "dropped";
    const member = this.isMember(c.author.id);
    const offered = member ? 0 : (this.newcomersOffered.get(iteration) ?? 0) + 1;
    if (!member) this.newcomersOffered.set(iteration, offered);
    if (byKey && byKey.size >= ROUND_CAPS.contributionsPerIteration) {
      if (member) {
        // Full: a member's contribution takes the place of the newest newcomer's.
        const newcomer = [...byKey].findLast(([, h]) => !this.isMember(h.c.author.id));
        if (!newcomer) return "dropped";
        byKey.delete(newcomer[0]);
      } else {
        // The offered-th newcomer is held with chance (slots) / offered, in place of a random
        // held one (reservoir sampling); a draw that lands on a member's slot drops it.
        const j = this.random(offered);
        if (j >= byKey.size) return "dropped";
        let i = 0;
        let victim: string | undefined;
        for (const [k, h] of byKey) if (i++ === j) {
          if (!this.isMember(h.c.author.id)) victim = k;
          break;
        }
        if (victim === undefined) return "dropped";
        byKey.delete(victim);
      }
    }
    if (!byKey) {
      byKey = new Map();
      this.contributions.set(iteration, byKey);
    }
    byKey.set(key, { c, parent });
    return "held";
  }

  /**
   * The contributions for `t` made on our chain, by author: `parents[k]` is the hash of our
   * commit t - 1 - k, which a contribution of staleness k must be signed over (pipelined rounds;
   * without them `parents` is the one commit t chains to). Of one author's, the freshest.
   */
  usable(t: number, parents: readonly (Uint8Array | null)[]): Map<string, SignedContribution> {
    const out = new Map<string, SignedContribution>();
    for (const h of this.contributions.get(t)?.values() ?? []) {
      const k = h.c.staleness ?? 0;
      const parent = parents[k];
      if (!parent || !equalBytes(h.parent, parent)) continue;
      const have = out.get(h.c.author.id);
      if (!have || (have.staleness ?? 0) > k) out.set(h.c.author.id, h.c);
    }
    return out;
  }

  /** The contributions of `author` held for `t`: each one's parent and staleness. */
  heldFrom(t: number, author: string): { parent: Uint8Array; staleness: number }[] {
    return [...(this.contributions.get(t)?.values() ?? [])].filter((h) => h.c.author.id === author).map((h) => ({ parent: h.parent, staleness: h.c.staleness ?? 0 }));
  }

  /** Authors of every contribution held for `t`, whatever their parent. */
  authorsAt(t: number): string[] {
    return [...(this.contributions.get(t)?.values() ?? [])].map((h) => h.c.author.id);
  }

  /** Forgets contributions for iterations before `t`. */
  dropContributionsBefore(t: number): void {
    for (const old of this.contributions.keys()) if (old < t) this.contributions.delete(old);
    for (const old of this.newcomersOffered.keys()) if (old < t) this.newcomersOffered.delete(old);
  }

  /**
   * Holds a verified commit for an iteration past our head until its turn (its rank needs the
   * commit before it). The same proposer on the same parent twice is equivocation.
   */
  addPendingCommit(received: EncodedCommit): Offered {
    const { commit } = received;
    const list = this.pendingCommits.get(commit.iteration) ?? [];
    const hash = chained(received).hash;
    for (const p of list) {
      if (equalBytes(chained(p).hash, hash)) return "duplicate";
      if (p.commit.proposer === commit.proposer && equalBytes(p.commit.prevHash, commit.prevHash))
        this.onEquivocation(commitEquivocation(p, received));
    }
    if (list.length >= ROUND_CAPS.pendingCommitsPerIteration) return "dropped";
    if (this.pendingFrom(commit.proposer) >= ROUND_CAPS.pendingCommitsPerSigner) return "dropped";
    list.push(received);
    this.pendingCommits.set(commit.iteration, list);
    return "held";
  }

  /** Removes and returns the commits held for `t`. */
  takePending(t: number): EncodedCommit[] {
    const early = this.pendingCommits.get(t) ?? [];
    this.pendingCommits.delete(t);
    return early;
  }

  /** Forgets pending commits for iterations before `t`. */
  dropPendingBefore(t: number): void {
    for (const k of [...this.pendingCommits.keys()]) if (k < t) this.pendingCommits.delete(k);
  }

  /** How much is held (bounded by ROUND_CAPS). */
  held(): { contributions: number; commits: number } {
    let contributions = 0;
    for (const byAuthor of this.contributions.values()) contributions += byAuthor.size;
    let commits = 0;
    for (const list of this.pendingCommits.values()) commits += list.length;
    return { contributions, commits };
  }

  /** Contributions held from `author` for iterations past `head`. */
  private futureContributions(author: string, head: number): number {
    let n = 0;
    for (const [t, byKey] of this.contributions)
      if (t > head) for (const h of byKey.values()) if (h.c.author.id === author) n++;
    return n;
  }

  /** Commits held from `proposer`. */
  private pendingFrom(proposer: string): number {
    let n = 0;
    for (const list of this.pendingCommits.values()) for (const p of list) if (p.commit.proposer === proposer) n++;
    return n;
  }
}
