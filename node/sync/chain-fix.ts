/**
 * "Follow while fixing": catching up, repairing and switching forks all stop contributing and
 * proposing, change the chain, then let the rounds go on. Written once here, with the flag that
 * keeps two fixes from running at once.
 */
import type { Rounds } from "../chain/rounds.js";

export interface FixOptions {
  /** Restart the rounds afterwards always (a repair), or only if they were active before. */
  readonly restart: "always" | "if-active";
  /** Forget the peers' reported head afterwards, so later heartbeats report afresh. */
  readonly forgetPeersHead: boolean;
}

export class ChainFix {
  /** True while a fix runs. */
  busy = false;

  constructor(private readonly rounds: Rounds) {}

  /** Runs `fix` with the rounds following (applying what they are fed, proposing nothing). */
  async run<T>(opts: FixOptions, fix: () => Promise<T>): Promise<T> {
    const wasActive = this.rounds.isActive;
    this.busy = true;
    this.rounds.follow();
    try {
      return await fix();
    } finally {
      this.busy = false;
      if (opts.forgetPeersHead) this.rounds.forgetPeersHead();
      if (opts.restart === "always" || wasActive) this.rounds.start();
    }
  }
}
