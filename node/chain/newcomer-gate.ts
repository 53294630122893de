/**
 * Which newcomers' contributions are worth a signature check (security review, findings 1 and 5).
 * A commit takes at most NEWCOMER_SLOTS newcomers, the lowest H(runId, t, author) of those usable
 * (admission.ts), so a crowd of free identities buys nothing past the best few per iteration; but
 * each of its messages would still cost every node an Ed25519 verification (a crowd of 1,024
 * costs about 100-170 ms per iteration per node). The gate holds, per iteration, the
 * NEWCOMER_HOLD lowest hashes of newcomers whose contribution verified; a newcomer's contribution
 * that would not rank among them is ignored before its signature is checked. In random order n
 * newcomer messages cost about NEWCOMER_HOLD x (1 + ln(n / NEWCOMER_HOLD)) verifications; sent
 * worst first, each would rank among the best so far, so NEWCOMER_VERIFY_BUDGET caps them hard
 * per iteration. Members always pass.
 *
 * Late contributions of newcomers (to iterations already applied) are how a joiner gets waited
 * for (late-authors.ts): they pass the same gate up to LATE_BACK iterations behind the head, and
 * never farther. Each iteration's budget is spent once, fresh or late, so a crowd that answers
 * late buys at most the budget per iteration too. LATE_BACK is as long as LateAuthors' own window:
 * a node that starts a chain commits its first iterations alone, at its own pace, and the nodes
 * that joined it chase it by a network hop per commit; a shorter window (8) ignored their
 * contributions once they had fallen 9 behind, so none was ever waited for and the starter stayed
 * the only author (CI, e2e byzantine and swarm, 2026-12-02).
 */
import { sha256Hex } from "../../protocol/bytes.js";
import { NEWCOMER_SLOTS } from "./admission.js";
import { LATE_WINDOW } from "./late-authors.js";

/** Verified newcomers kept per iteration: a few times the slots, so a proposer still has a choice. */
export const NEWCOMER_HOLD = 4 * NEWCOMER_SLOTS;
/** Newcomer signature checks per iteration at most, whatever order a crowd sends in. */
export const NEWCOMER_VERIFY_BUDGET = 4 * NEWCOMER_HOLD;
/** Iterations behind the one just applied whose newcomers' late contributions are still checked. */
export const LATE_BACK = LATE_WINDOW;
/** Iterations ahead of the head the gate keeps lists for (later ones pass ungated, the inbox bounds them). */
const AHEAD = 8;

export class NewcomerGate {
  /** Per iteration: the lowest hashes of verified newcomers, ascending, at most NEWCOMER_HOLD; and the checks let through. */
  private readonly held = new Map<number, { best: string[]; checks: number }>();

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

  /** Whether a contribution of `author` to `iteration` should have its signature checked (counted: the caller checks it). */
  passes(author: string, iteration: number): boolean {
    if (this.isMember(author)) return true;
    const head = this.head();
    if (iteration < head - 1 - LATE_BACK) return false;
    if (iteration > head + AHEAD) return true;
    this.prune();
    const entry = this.held.get(iteration) ?? { best: [], checks: 0 };
    if (entry.checks >= NEWCOMER_VERIFY_BUDGET) return false;
    if (entry.best.length >= NEWCOMER_HOLD && this.rankKey(author, iteration) >= entry.best[entry.best.length - 1]) return false;
    entry.checks++;
    this.held.set(iteration, entry);
    return true;
  }

  /** A newcomer's contribution to `iteration` verified: it holds a place if it ranks among the best. */
  verified(author: string, iteration: number): void {
    if (this.isMember(author)) return;
    const entry = this.held.get(iteration);
    if (!entry) return;
    const key = this.rankKey(author, iteration);
    if (entry.best.includes(key)) return;
    entry.best.push(key);
    entry.best.sort();
    if (entry.best.length > NEWCOMER_HOLD) entry.best.pop();
  }

  /** Forgets iterations past the late window. */
  private prune(): void {
    const head = this.head();
    for (const t of this.held.keys()) if (t < head - 1 - LATE_BACK) this.held.delete(t);
  }
}
