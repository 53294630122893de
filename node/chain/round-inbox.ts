/**
 * What a node holds for rounds it has not applied yet: signed contributions (by iteration and
 * parent) and verified commits that arrived before their turn. Everything here came from the
 * network, so everything is bounded: per signer, per iteration, in iterations ahead
 * (FUTURE_ITERATIONS) and in all (a count and a byte budget, ROUND_CAPS), and two different
 * signed messages for one slot are reported as equivocation evidence. Every add costs O(1) in
 * what is held (counters per signer, arrays with swap-remove; at most a scan of the few
 * iterations held): a flood of adds from free identities cannot make each add dearer (finding 4).
 *
 * An iteration's contribution cap is not first come, first held: a member's contribution (its
 * author is in a recent commit of our chain) takes the place of a newcomer's when the cap is
 * reached, so a crowd of free identities that arrives first cannot crowd the swarm's own
 * authors out of a round (issue 11, attack 7). Among newcomers the cap is a uniform sample of
 * all that were offered (reservoir sampling, with this node's own randomness: which ones it
 * holds is not replicated state), so Sybils that arrive first cannot lock an honest joiner out
 * either: of n newcomers for a round, each is held with the same chance, about cap / n.
 *
 * The global budgets follow the same rule: when full, a member's message takes the place of a
 * newcomer's held for the farthest iteration, and a newcomer's that of a newcomer's for a farther
 * iteration than its own (the round at hand before rounds ahead); otherwise it drops.
 * Future commits are held as their encoded bytes only (a decoded 1,024-entry commit costs about
 * six times its bytes) and decoded again at their turn.
 */
import { randomInt } from "node:crypto";
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { FUTURE_ITERATIONS, MAX_COMMIT_ENTRIES } from "../../protocol/limits.js";
import { chained, type EncodedCommit, type SignedContribution } from "./commit.js";
import { commitFromVerifiedBytes } from "./commit-wire.js";
import { commitEquivocation, type Equivocation } from "./evidence.js";

/**
 * Memory bounds on what is held for iterations not yet applied. An honest node contributes for
 * its head and proposes one commit per iteration, and honest nodes differ by a few iterations at
 * most, so these caps only bind on a flood: per signer, future contributions and pending commits;
 * per iteration, contributions (a commit holds at most MAX_COMMIT_ENTRIES; twice that leaves room
 * to choose in timestamp order) and competing commits (a primary, a fallback or two, and a fork);
 * in all, a count and bytes of each (an honest 1,024-node swarm with the largest payloads holds
 * about 5 MiB of contributions per iteration and 4.3 MiB per commit).
 */
export const ROUND_CAPS = {
  futureContributionsPerSigner: 16,
  contributionsPerIteration: 2 * MAX_COMMIT_ENTRIES,
  /** All contributions held, whatever their iteration (4 full iterations). */
  contributions: 8 * MAX_COMMIT_ENTRIES,
  /** Bytes of all contributions held, as heldBytes counts them. */
  contributionBytes: 32 * 1024 * 1024,
  pendingCommitsPerSigner: 16,
  pendingCommitsPerIteration: 4,
  /** All pending commits held (the per-iteration cap times the window). */
  pendingCommits: 4 * FUTURE_ITERATIONS,
  /** Bytes of all pending commits held (their encoded bytes plus a fixed cost each). */
  pendingCommitBytes: 32 * 1024 * 1024,
  /**
   * Hashes of commits rejected as lies or usurpations, so a replay is refused without applying
   * (oldest forgotten first; ~120 bytes each). 256 let a replay of older lies cost an apply again
   * (security review, finding 14).
   */
  rejectedCommits: 4096,
  /** Authors remembered as excluded (each cost its owner a real, audited contribution). */
  bannedAuthors: 10_000,
} as const;

/**
 * What one held contribution costs beyond its payload: the record, its key (author id and parent
 * in hex), the signature, the map and array slots and counters (measured about 1.35 KB with a
 * 16-byte payload, bench/adversary-inbox.ts).
 */
export const HELD_CONTRIBUTION_BYTES = 1536;
/** What one held commit costs beyond its encoded bytes (its record, hash and strings). */
export const HELD_COMMIT_BYTES = 512;

/** A contribution held for a round, with the parent it was signed over. */
interface Held {
  readonly c: SignedContribution;
  readonly parent: Uint8Array;
  readonly key: string;
  /** A member's when it was offered: never displaced by a newcomer's. */
  readonly member: boolean;
  readonly bytes: number;
  /** Its index in its iteration's `all`, and in `newcomers` (newcomers only). */
  at: number;
  newcomerAt: number;
}

/** The contributions held for one iteration. */
interface Round {
  readonly byKey: Map<string, Held>;
  /** Every held one, for a uniform draw in O(1) (swap-remove keeps it dense). */
  readonly all: Held[];
  /** The newcomers' among them, latest offered last (a member displaces the last). */
  readonly newcomers: Held[];
  /** Newcomers' contributions offered (held or not): the reservoir's count. */
  offered: number;
}

/** A commit held for a later iteration: its bytes and what the caps and dedupe need. */
interface Pending {
  readonly encoded: Uint8Array;
  readonly hash: Uint8Array;
  readonly proposer: string;
  readonly prevHash: Uint8Array;
  readonly member: boolean;
  readonly bytes: number;
}

/** Key of a held contribution: one per author and parent (a re-contribution after a fork switch has another parent). */
function heldKey(author: string, parent: Uint8Array): string {
  return `${author}/${toHex(parent)}`;
}

/** Swap-removes `x` from `list`, where `at` reads and writes its index. */
function swapRemove<T>(list: T[], x: T, at: (y: T, i?: number) => number): void {
  const i = at(x);
  const last = list.pop() as T;
  if (last !== x) {
    list[i] = last;
    at(last, i);
  }
}

const allAt = (h: Held, i?: number) => (i === undefined ? h.at : (h.at = i));
const newcomerAt = (h: Held, i?: number) => (i === undefined ? h.newcomerAt : (h.newcomerAt = i));

/** The outcome of offering a message to the inbox. */
export type Offered = "held" | "duplicate" | "dropped";

/** The counts of what is held (bounded by ROUND_CAPS). */
export interface HeldCounts {
  contributions: number;
  commits: number;
  contributionBytes: number;
  commitBytes: number;
}

export class RoundInbox {
  private readonly rounds = new Map<number, Round>();
  private readonly pendingCommits = new Map<number, Pending[]>();
  /** Contributions held per author (any iteration), and those for iterations past the head. */
  private readonly bySigner = new Map<string, Map<number, number>>();
  private readonly commitsBySigner = new Map<string, number>();
  private contributionCount = 0;
  private contributionBytes = 0;
  private commitCount = 0;
  private commitBytes = 0;

  /**
   * @param onEquivocation called with the evidence when one signer signed two messages for one slot.
   * @param isMember whether an author is in a recent commit of our chain (late-authors.ts): members' messages displace newcomers' at a cap.
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
    if (iteration > head + FUTURE_ITERATIONS) return "dropped";
    let round = this.rounds.get(iteration);
    const key = heldKey(c.author.id, parent);
    const have = round?.byKey.get(key);
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
    if (iteration > head && this.futureFrom(c.author.id, head) >= ROUND_CAPS.futureContributionsPerSigner) return "dropped";
    const member = this.isMember(c.author.id);
    if (!member && round) round.offered++;
    if (round && round.all.length >= ROUND_CAPS.contributionsPerIteration) {
      if (member) {
        // Full: a member's contribution takes the place of the latest newcomer's.
        const newcomer = round.newcomers.at(-1);
        if (!newcomer) return "dropped";
        this.removeContribution(iteration, round, newcomer);
      } else {
        // The offered-th newcomer is held with chance (slots) / offered, in place of a random
        // held one (reservoir sampling); a draw that lands on a member's slot drops it.
        const j = this.random(round.offered);
        const victim = round.all[j];
        if (!victim || victim.member) return "dropped";
        this.removeContribution(iteration, round, victim);
      }
    }
    const bytes = c.payload.byteLength + HELD_CONTRIBUTION_BYTES;
    // Full in all: what is held for iterations already applied goes first (the rounds drop it at
    // their next start anyway).
    if (this.fullFor(bytes)) this.dropContributionsBefore(head);
    while (this.fullFor(bytes)) {
      // Full in all: the latest newcomer's for the farthest iteration gives way, to a member's
      // or to a newcomer's for a nearer iteration.
      const far = this.farthestWithNewcomers();
      if (far === undefined || (!member && far.iteration <= iteration)) return "dropped";
      this.removeContribution(far.iteration, far.round, far.round.newcomers.at(-1) as Held);
    }
    round = this.rounds.get(iteration);
    if (!round) {
      round = { byKey: new Map(), all: [], newcomers: [], offered: member ? 0 : 1 };
      this.rounds.set(iteration, round);
    }
    const held: Held = { c, parent, key, member, bytes, at: round.all.length, newcomerAt: member ? -1 : round.newcomers.length };
    round.byKey.set(key, held);
    round.all.push(held);
    if (!member) round.newcomers.push(held);
    this.count(c.author.id, iteration, 1);
    this.contributionCount++;
    this.contributionBytes += bytes;
    return "held";
  }

  /**
   * The contributions for `t` made on our chain, by author: `parents[k]` is the hash of our
   * commit t - 1 - k, which a contribution of staleness k must be signed over (pipelined rounds;
   * without them `parents` is the one commit t chains to). Of one author's, the freshest.
   */
  usable(t: number, parents: readonly (Uint8Array | null)[]): Map<string, SignedContribution> {
    const out = new Map<string, SignedContribution>();
    for (const h of this.rounds.get(t)?.byKey.values() ?? []) {
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
    if (!this.bySigner.get(author)?.get(t)) return [];
    return [...(this.rounds.get(t)?.byKey.values() ?? [])].filter((h) => h.c.author.id === author).map((h) => ({ parent: h.parent, staleness: h.c.staleness ?? 0 }));
  }

  /** Authors of every contribution held for `t`, whatever their parent. */
  authorsAt(t: number): string[] {
    return [...(this.rounds.get(t)?.byKey.values() ?? [])].map((h) => h.c.author.id);
  }

  /** Forgets contributions for iterations before `t` (each costs O(1) once: amortised over its add). */
  dropContributionsBefore(t: number): void {
    for (const [old, round] of this.rounds) {
      if (old >= t) continue;
      for (const h of round.all) {
        this.count(h.c.author.id, old, -1);
        this.contributionCount--;
        this.contributionBytes -= h.bytes;
      }
      this.rounds.delete(old);
    }
  }

  /**
   * Holds a verified commit for an iteration past our head until its turn (its rank needs the
   * commit before it), as its bytes only. The same proposer on the same parent twice is
   * equivocation. `head`: our next iteration (absent: not checked against FUTURE_ITERATIONS).
   */
  addPendingCommit(received: EncodedCommit, head?: number): Offered {
    const { commit } = received;
    if (head !== undefined && commit.iteration > head + FUTURE_ITERATIONS) return "dropped";
    const list = this.pendingCommits.get(commit.iteration) ?? [];
    const hash = chained(received).hash;
    for (const p of list) {
      if (equalBytes(p.hash, hash)) return "duplicate";
      if (p.proposer === commit.proposer && equalBytes(p.prevHash, commit.prevHash))
        this.onEquivocation(commitEquivocation({ commit: commitFromVerifiedBytes(p.encoded).commit, encoded: p.encoded }, received));
    }
    if (list.length >= ROUND_CAPS.pendingCommitsPerIteration) return "dropped";
    if ((this.commitsBySigner.get(commit.proposer) ?? 0) >= ROUND_CAPS.pendingCommitsPerSigner) return "dropped";
    const member = this.isMember(commit.proposer);
    const bytes = received.encoded.byteLength + HELD_COMMIT_BYTES;
    if (head !== undefined && this.commitCount >= ROUND_CAPS.pendingCommits) this.dropPendingBefore(head);
    while (this.commitCount >= ROUND_CAPS.pendingCommits || this.commitBytes + bytes > ROUND_CAPS.pendingCommitBytes) {
      const far = this.farthestNewcomerCommit();
      if (far === undefined || (!member && far.iteration <= commit.iteration)) return "dropped";
      this.removeCommit(far.iteration, far.list, far.p);
    }
    // Its own buffer: a view into a larger one would hold all of it.
    const own = received.encoded.byteOffset === 0 && received.encoded.buffer.byteLength === received.encoded.byteLength;
    list.push({ encoded: own ? received.encoded : received.encoded.slice(), hash, proposer: commit.proposer, prevHash: commit.prevHash, member, bytes });
    this.pendingCommits.set(commit.iteration, list);
    this.commitsBySigner.set(commit.proposer, (this.commitsBySigner.get(commit.proposer) ?? 0) + 1);
    this.commitCount++;
    this.commitBytes += bytes;
    return "held";
  }

  /** Removes and returns the commits held for `t`, decoded again (they verified when they came). */
  takePending(t: number): EncodedCommit[] {
    const list = this.pendingCommits.get(t) ?? [];
    const early = [...list];
    for (const p of early) this.removeCommit(t, list, p);
    return early.map((p) => commitFromVerifiedBytes(p.encoded));
  }

  /** Forgets pending commits for iterations before `t`. */
  dropPendingBefore(t: number): void {
    for (const [k, list] of [...this.pendingCommits]) if (k < t) for (const p of [...list]) this.removeCommit(k, list, p);
  }

  /** How much is held (bounded by ROUND_CAPS). */
  held(): HeldCounts {
    return { contributions: this.contributionCount, commits: this.commitCount, contributionBytes: this.contributionBytes, commitBytes: this.commitBytes };
  }

  private fullFor(bytes: number): boolean {
    return this.contributionCount >= ROUND_CAPS.contributions || this.contributionBytes + bytes > ROUND_CAPS.contributionBytes;
  }

  /** Contributions held from `author` for iterations past `head` (at most FUTURE_ITERATIONS + a few counters). */
  private futureFrom(author: string, head: number): number {
    let n = 0;
    for (const [t, k] of this.bySigner.get(author) ?? []) if (t > head) n += k;
    return n;
  }

  private count(author: string, iteration: number, by: 1 | -1): void {
    let mine = this.bySigner.get(author);
    if (!mine) {
      mine = new Map();
      this.bySigner.set(author, mine);
    }
    const n = (mine.get(iteration) ?? 0) + by;
    if (n > 0) mine.set(iteration, n);
    else mine.delete(iteration);
    if (mine.size === 0) this.bySigner.delete(author);
  }

  private removeContribution(iteration: number, round: Round, h: Held): void {
    round.byKey.delete(h.key);
    swapRemove(round.all, h, allAt);
    if (!h.member) swapRemove(round.newcomers, h, newcomerAt);
    this.count(h.c.author.id, iteration, -1);
    this.contributionCount--;
    this.contributionBytes -= h.bytes;
  }

  /** The farthest iteration holding a newcomer's contribution (a scan of the iterations held: a few). */
  private farthestWithNewcomers(): { iteration: number; round: Round } | undefined {
    let best: { iteration: number; round: Round } | undefined;
    for (const [iteration, round] of this.rounds)
      if (round.newcomers.length > 0 && (!best || iteration > best.iteration)) best = { iteration, round };
    return best;
  }

  private farthestNewcomerCommit(): { iteration: number; list: Pending[]; p: Pending } | undefined {
    let best: { iteration: number; list: Pending[]; p: Pending } | undefined;
    for (const [iteration, list] of this.pendingCommits) {
      if (best && iteration <= best.iteration) continue;
      const p = list.findLast((x) => !x.member);
      if (p) best = { iteration, list, p };
    }
    return best;
  }

  private removeCommit(iteration: number, list: Pending[], p: Pending): void {
    const i = list.indexOf(p);
    if (i < 0) return;
    list.splice(i, 1);
    if (list.length === 0) this.pendingCommits.delete(iteration);
    const n = (this.commitsBySigner.get(p.proposer) ?? 0) - 1;
    if (n > 0) this.commitsBySigner.set(p.proposer, n);
    else this.commitsBySigner.delete(p.proposer);
    this.commitCount--;
    this.commitBytes -= p.bytes;
  }
}
