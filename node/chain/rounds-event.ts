/**
 * What the rounds report to the daemon (node/rounds-events.ts reacts to each): the rounds own no
 * sockets and no disk, so every consequence outside the chain starts from one of these.
 */
import type { CheckEvent } from "./commit-checks.js";
import type { EncodedCommit } from "./commit.js";
import type { Equivocation } from "./evidence.js";
import type { LeftOut } from "./left-out-watch.js";

export type RoundsEvent =
  | {
      kind: "applied";
      iteration: number;
      checksum: string;
      contributions: number;
      rank: number;
      ms: number;
    }
  | { kind: "diverged"; iteration: number; reason: string; unchained?: EncodedCommit }
  /** This node would have proposed `iteration`, but it holds a verified commit past it. */
  | { kind: "behind"; iteration: number; peersHead: number }
  /** A commit rejected by the chain rules, an author excluded (commit-checks.ts). */
  | CheckEvent
  /** Two signed messages one signer must never sign both of (see evidence.ts). */
  | { kind: "equivocation"; evidence: Equivocation }
  /** A validly signed commit for a later iteration: a hint to fetch what leads to it, nothing more. */
  | { kind: "ahead"; iteration: number; proposer: string }
  /**
   * The process did not run for longer than a round deadline (see stall-watch.ts): the rounds
   * proposed nothing; the daemon must verify with peers that `iteration` is still open first.
   */
  | { kind: "stalled"; iteration: number; gapMs: number }
  /**
   * A one-step fork switch: the commit applied at `iteration` is being rolled back for a better
   * one (by `proposer`, at `rank`; `reason`: which rule made it better), applied next.
   */
  | { kind: "switched"; iteration: number; proposer: string; rank: number; reason: string }
  /**
   * None of this node's contributions is in the last `commits` commits (up to `iteration`), though
   * it contributes: `contributionMs` and `roundMs` are its moving averages of one contribution's
   * compute and of a round, which tell whether it is too slow for the swarm's rounds.
   */
  | ({ kind: "left out" } & LeftOut)
  | { kind: "done"; iteration: number };
