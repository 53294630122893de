/** What a node's rounds are told at start (rounds.ts): the run's timing and this node's part in it. */
import type { Tamper } from "./contributor.js";

export interface RoundsOptions {
  /** Milliseconds; the proposer's wait is half of it, fallbacks step by a quarter. */
  readonly roundTimeoutMs: number;
  /** Stop after applying this many iterations (the run length by default). */
  readonly stopAt: number;
  /** Compute and publish contributions (false for a node that only follows). */
  readonly contribute: boolean;
  /**
   * Test fault `byzantine:<mode>` (ops/fault-hooks.ts): what this node sends instead of its honest
   * payload; `other` measures the payload of another author (another batch and direction).
   */
  readonly tamper?: Tamper;
  /** Pipelined rounds: the run's `staleness` (contribution-slots.ts); 0 or absent: none. */
  readonly staleness?: number;
  /**
   * Test fault `censor` (ops/fault-hooks.ts): whenever this node may propose, it commits at once
   * with its own entry only (the censorship attack of finding 1).
   */
  readonly censor?: boolean;
  /** Most entries a commit may hold: OPEN_SEATS in an open run; absent: MAX_COMMIT_ENTRIES (a member run). */
  readonly seats?: number;
}
