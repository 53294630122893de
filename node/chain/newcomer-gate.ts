/**
 * Which newcomers' contributions are worth a signature check (security review, findings 1 and 5).
 * A commit takes at most NEWCOMER_SLOTS newcomers, the lowest H(runId, t, author) of those usable
 * (admission.ts), so a crowd of free identities buys nothing past the best few per iteration; but
 * each of its messages would still cost every node an Ed25519 verification (a crowd of 1,024
 * costs about 100-170 ms per iteration per node). The gate holds, per open iteration, the
 * NEWCOMER_HOLD lowest hashes of newcomers whose contribution verified; a newcomer's contribution
 * that would not rank among them is ignored before its signature is checked. Members always pass.
 * In expectation n newcomer messages in random order cost about NEWCOMER_HOLD x ln(n / NEWCOMER_HOLD)
 * verifications instead of n. A newcomer's contribution to an iteration already applied never
 * passes: a crowd that answers late would otherwise buy one verification per identity.
 */
import { sha256Hex } from "../../protocol/bytes.js";
import { NEWCOMER_SLOTS } from "./admission.js";

/** Verified newcomers kept per iteration: a few times the slots, so a proposer still has a choice. */
export const NEWCOMER_HOLD = 4 * NEWCOMER_SLOTS;
/** Iterations ahead of the head the gate keeps lists for (later ones pass ungated, the inbox bounds them). */
const AHEAD = 8;

export class NewcomerGate {
  /** Per iteration: the lowest hashes of verified newcomers, ascending, at most NEWCOMER_HOLD. */
  private readonly held = new Map<number, string[]>();

  constructor(
    private readonly runId: string,
    /** The next iteration this node applies. */
    private readonly head: () => number,
    /** Whether `author` is a member of the chain (admission.ts): members are never gated. */
    private readonly isMember: (author: string) => boolean,
  ) {}

  private rankKey(author: string, iteration: number): string {
    return sha256Hex(`${this.runId}/${iteration}/${author}`);
  }

  /** Whether a contribution of `author` to `iteration` should have its signature checked. */
  passes(author: string, iteration: number): boolean {
    if (this.isMember(author)) return true;
    // Before the iteration just applied (which a one-step switch may still replace): no commit
    // takes it, and the late-author hint it would give is for members only.
    if (iteration < this.head() - 1) return false;
    this.prune();
    const list = this.held.get(iteration);
    if (!list || list.length < NEWCOMER_HOLD) return true;
    return this.rankKey(author, iteration) < list[list.length - 1];
  }

  /** A newcomer's contribution to `iteration` verified: it holds a place if it ranks among the best. */
  verified(author: string, iteration: number): void {
    if (this.isMember(author) || iteration > this.head() + AHEAD) return;
    const key = this.rankKey(author, iteration);
    const list = this.held.get(iteration) ?? [];
    if (list.includes(key)) return;
    list.push(key);
    list.sort();
    if (list.length > NEWCOMER_HOLD) list.pop();
    this.held.set(iteration, list);
  }

  /** Forgets iterations already applied. */
  private prune(): void {
    const head = this.head();
    for (const t of this.held.keys()) if (t < head - 1) this.held.delete(t);
  }
}
