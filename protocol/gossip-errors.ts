/**
 * What each gossip refusal means (its code, and whether it is ignored or rejected: rejects lower
 * the sender's score, so only what an honest node can never send is rejected) and the error that
 * carries it. Validation (validation.ts) throws them; `toVerdict` turns them into the result.
 */
import { SeedswarmError } from "./errors.js";

/** gossipsub's TopicValidatorResult values. */
export type GossipVerdict = "accept" | "ignore" | "reject";

/** Why a message was not accepted, and what that costs its sender. */
export const GOSSIP_ERROR_VERDICTS = {
  /** Another run's message on our topic: no honest node does that. */
  WRONG_RUN: "reject",
  MALFORMED: "reject",
  TOO_LARGE: "reject",
  /** Already applied: an honest node can be late. */
  OLD_ITERATION: "ignore",
  /** Beyond the window: we may be the late one, so no penalty. */
  FUTURE_ITERATION: "ignore",
  /** Wrong length or an invalid byte: the algorithm can never produce it. */
  BAD_PAYLOAD: "reject",
  /** The same message again (a replay after the seen-cache expired, or a republish). */
  DUPLICATE: "ignore",
  /**
   * Past what this node verifies for the moment: a signer's notices past its rate, newcomers'
   * notices past their shared budget, or commits of more newcomer proposers for one iteration
   * than a round needs. Ignored: the sender may be honest and merely many.
   */
  OVER_BUDGET: "ignore",
  /**
   * A further different message from one signer for one iteration, past the few an honest node
   * can send (a re-contribution after a fork switch). Ignored, never rejected: a reject would be
   * charged to the relayer, who cannot know; the node charges the signer from the evidence.
   */
  EQUIVOCATION: "ignore",
  /** A commit listing one author twice. */
  DUPLICATE_AUTHOR: "reject",
  /**
   * A newcomer's contribution (an author in none of the last commits) that ranks below the few
   * newcomers already held for its iteration: no commit would take it, so its signature is not
   * checked. Ignored: it is valid, and the relayer cannot know.
   */
  NEWCOMER_FULL: "ignore",
  /**
   * A commit for the round this node is in, chained to its tip, whose rank, seats or newcomers
   * break the admission rules (a proposer's flood of rank variants). Ignored before its entries'
   * signatures are checked, never rejected: a relayer a round behind or ahead may not know.
   */
  INADMISSIBLE: "ignore",
  /** Signed by (or naming) a peer that is not a member of a member run. */
  NOT_MEMBER: "reject",
  /**
   * Signed by an author this node's chain excluded. Ignored, never rejected: each node learns an
   * exclusion when it applies the excluding commit, so a relayer a commit behind cannot know, and
   * a reject would have honest meshes graylist each other (security review, finding 2).
   */
  EXCLUDED: "ignore",
  /** A signer (author, proposer) that is no Ed25519 peer id: its signature cannot be checked. */
  NOT_ED25519: "reject",
  /** A signature that does not verify: a forged or altered message. */
  BAD_SIGNATURE: "reject",
  /** Bytes that are not the message's one canonical encoding (a re-encoding under the same signature). */
  NOT_CANONICAL: "reject",
  /** Commit entries out of timestamp order. */
  ENTRY_ORDER: "reject",
  /** A join time before 2024 or more than an hour ahead of our clock (checkJoinedAt). */
  BAD_JOINED_AT: "reject",
  /** An exclusion of malformed form: twice the same author, out of its window, or an author with an entry. */
  BAD_EXCLUSION: "reject",
  /** Stale entries without the older parents they name, padded parents, or staleness past the run's. */
  BAD_PARENTS: "reject",
} as const satisfies Record<string, Exclude<GossipVerdict, "accept">>;

export type GossipErrorCode = keyof typeof GOSSIP_ERROR_VERDICTS;

/** A validation failure; its verdict follows from its code. */
export class GossipValidationError extends SeedswarmError<GossipErrorCode> {
  readonly verdict: "ignore" | "reject";

  constructor(code: GossipErrorCode, message: string, context: Record<string, unknown> = {}) {
    // No stack: one is made for every message a crowd sends that is ignored, and its code and
    // context say all there is (the capture cost 7% of a victim's CPU under a Sybil crowd).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(code, message, context);
    Error.stackTraceLimit = limit;
    this.verdict = GOSSIP_ERROR_VERDICTS[code];
  }
}
