/**
 * Gossip validation: each validator decodes (size guard first) and checks one message against a
 * small context the node supplies, returns the decoded message when it may be accepted, and
 * otherwise throws a GossipValidationError whose code fixes the verdict. `toVerdict` turns that
 * into the gossipsub result and a metric label. Rejects lower the sender's score, so only what an
 * honest node can never send is rejected; what an honest but late or early node sends is ignored.
 */
import { equalBytes } from "./bytes.js";
import {
  type CommitMessage,
  type ContributionMessage,
  decodeCommit,
  decodeContribution,
  encodeContribution,
  decodeHeartbeat,
  decodeLeave,
  decodeProof,
  encodeHeartbeat,
  encodeProof,
  type FraudProof,
  encodeLeave,
  type Heartbeat,
  heartbeatBody,
  type Leave,
  leaveBody,
  proofBody,
} from "./codec.js";
import { WireError } from "./errors.js";
import { type GossipErrorCode, GossipValidationError } from "./gossip-errors.js";
import { EXCLUSION_WINDOW, NOTICE_BEHIND } from "./limits.js";
import { ChainCheckError, checkCommit, checkContribution, checkJoinedAt, checkNotice, type NoticeKind, peerIdString, type SignatureCheck } from "./signing.js";
import type { TopicKind } from "./topics.js";

/** What the dedupe knows of a message (GossipContext.seen). */
export type SeenVerdict = "new" | "same" | "different" | "again";

export { GOSSIP_ERROR_VERDICTS, type GossipErrorCode, GossipValidationError, type GossipVerdict } from "./gossip-errors.js";

/** What the node knows when a message arrives. */
export interface GossipContext {
  readonly runId: string;
  /**
   * The oldest iteration still accepted. The daemon passes its head minus one (a commit for the
   * iteration it just applied may still win the one-step fork choice); older is OLD_ITERATION.
   */
  readonly head: number;
  /** How far past head a contribution or commit may be and still be kept (FUTURE_ITERATIONS). */
  readonly window: number;
  /** How far past head a heartbeat, leave or proof may claim to be (HINT_WINDOW); absent: `window`. */
  readonly hintWindow?: number;
  /** Longest payload of the run's algorithm: longer ones are rejected before any parsing. */
  readonly maxPayloadBytes: number;
  /**
   * The run's algorithm's check of a payload for an iteration (its `payloadProblem`: a message,
   * or null when fine); exact lengths, codes and index ranges are the algorithm's to check.
   */
  readonly payloadProblem: (payload: Uint8Array, iteration: number) => string | null;
  /**
   * Whether this signer already sent a message of this kind for this iteration: "same" for the
   * same bytes, "different" for a second or third different one (an honest node re-contributes
   * once after a fork switch; the rounds tell equivocation from that with both in hand), "again"
   * past that. Called last, only for a message that passed every other check, so it may record.
   */
  readonly seen: (kind: TopicKind, signer: string, iteration: number, data: Uint8Array) => SeenVerdict;
  /**
   * What `seen` would answer, recording nothing: asked before any signature is verified, so a
   * replay, or a signer's fourth different message for one slot, costs no verification (finding
   * 5). Absent: not asked (the signatures are verified first).
   */
  readonly known?: (kind: TopicKind, signer: string, iteration: number, data: Uint8Array) => SeenVerdict;
  /**
   * Whether this node verifies the entries of a commit by `proposer` (its signature verified) for
   * `iteration`: false past a budget of newcomer proposers per iteration (members, the authors of
   * our recent commits, always may). Called once per commit that reaches it; it may record.
   * Absent: always.
   */
  readonly mayVerifyEntries?: (proposer: string, iteration: number) => boolean;
  /**
   * The notices' rate budget (heartbeat, leave, proof), O(1) per call: `take` false asks whether
   * one from `signer` would be within it (before its signature is verified), true spends it
   * (after). Absent: no budget.
   */
  readonly noticeBudget?: (signer: string, take: boolean) => boolean;
  /** The Ed25519 check (the node's is cached: a contribution is verified once, not again in its commit). */
  readonly checkSignature: SignatureCheck;
  /**
   * Whether a peer id may take part (protocol/membership.ts): false for every non-member of a
   * member run. Absent: everyone (an open run).
   */
  readonly admits?: (peerId: string) => boolean;
  /**
   * Whether a contribution is worth its signature check (node/chain/newcomer-gate.ts: a newcomer
   * that could not get a commit's slot is ignored unverified), and the report that one verified.
   * Absent: every contribution is checked.
   */
  readonly newcomers?: { passes(author: string, iteration: number): boolean; verified(author: string, iteration: number): void };
  /** Whether this node's chain excluded a peer id (its messages are ignored). Absent: none. */
  readonly excluded?: (peerId: string) => boolean;
  /**
   * Why a commit whose proposer signature verified breaks the admission rules where this node
   * knows them (its rank, seats, newcomers: node/chain/admission.ts), or null; asked before its
   * entries' signatures are checked. Absent: nothing is known here.
   */
  readonly commitProblem?: (m: CommitMessage, proposer: string) => string | null;
  /** Our clock (ms since the epoch) for the join-time bounds; absent: Date.now(). */
  readonly now?: number;
  /** The run's `staleness` (pipelined rounds): no contribution or entry may be staler. Absent: 0. */
  readonly maxStaleness?: number;
}

function checkStaleness(staleness: number | undefined, ctx: GossipContext, at: string, iteration: number): void {
  if ((staleness ?? 0) > (ctx.maxStaleness ?? 0))
    throw new GossipValidationError("BAD_PARENTS", `${at}: staleness ${staleness} past the run's ${ctx.maxStaleness ?? 0}`, { iteration });
}

function fromWire(err: WireError): GossipValidationError {
  const code = err.code === "WIRE_TOO_LARGE" ? "TOO_LARGE" : "MALFORMED";
  return new GossipValidationError(code, err.message, { wire: err.code, ...err.context });
}

/** Guard and parse; the codec's failures become rejects. */
function decode<T>(decodeFn: (data: Uint8Array) => T, data: Uint8Array): T {
  try {
    return decodeFn(data);
  } catch (err) {
    throw err instanceof WireError ? fromWire(err) : err;
  }
}

/**
 * The membership check, the first after decoding in every validator: a member run drops
 * everything a non-member signs (or claims to) before it costs a signature check or any state.
 */
export function checkMember(peerId: string, ctx: GossipContext): void {
  if (ctx.admits && !ctx.admits(peerId))
    throw new GossipValidationError("NOT_MEMBER", "signer is not a member of the run", { peer: peerId });
  if (ctx.excluded?.(peerId)) throw new GossipValidationError("EXCLUDED", "signer was excluded from the run", { peer: peerId });
}

function checkRun(runId: string, ctx: GossipContext): void {
  if (runId !== ctx.runId) {
    throw new GossipValidationError("WRONG_RUN", "message of another run", {
      runId,
      expected: ctx.runId,
    });
  }
}

function checkWindow(iteration: number, ctx: GossipContext): void {
  if (iteration < ctx.head) {
    throw new GossipValidationError("OLD_ITERATION", "iteration already applied", {
      iteration,
      head: ctx.head,
    });
  }
  if (iteration > ctx.head + ctx.window) {
    throw new GossipValidationError("FUTURE_ITERATION", "iteration beyond the window", {
      iteration,
      head: ctx.head,
      window: ctx.window,
    });
  }
}

function checkPayload(payload: Uint8Array, iteration: number, ctx: GossipContext, at: string): void {
  if (payload.byteLength > ctx.maxPayloadBytes) {
    throw new GossipValidationError("BAD_PAYLOAD", `${at}: payload longer than the run allows`, {
      length: payload.byteLength,
      max: ctx.maxPayloadBytes,
    });
  }
  const problem = ctx.payloadProblem(payload, iteration);
  if (problem) throw new GossipValidationError("BAD_PAYLOAD", `${at}: ${problem}`);
}

function checkSeen(kind: TopicKind, signer: string, iteration: number, data: Uint8Array, ctx: GossipContext, record = true): void {
  const seen = record ? ctx.seen(kind, signer, iteration, data) : (ctx.known?.(kind, signer, iteration, data) ?? "new");
  if (seen === "same") {
    throw new GossipValidationError("DUPLICATE", `${kind} already seen`, { signer, iteration });
  }
  if (seen === "again") {
    throw new GossipValidationError("EQUIVOCATION", `yet another different ${kind} for the iteration`, {
      signer,
      iteration,
    });
  }
}

/** The signature checks (protocol/signing.ts); their failures become rejects. */
function signed(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (err instanceof ChainCheckError) throw new GossipValidationError(err.code, err.message, err.context);
    throw err;
  }
}

/**
 * Validates a contribution: its own Ed25519 signature by the author it names must verify (gossip
 * has no envelope signature to take an author from). Order matters: cheap stateless checks first,
 * the signature next, the dedupe (which may record) last. An old contribution of a member is
 * verified before it is called old, so the late-author hint it gives (gossip.ts) names a proven
 * author; an old one of a newcomer only within the newcomer gate's late window and budget (a
 * crowd answering late would otherwise buy a verification per identity per iteration).
 */
export function validateContribution(data: Uint8Array, ctx: GossipContext): ContributionMessage {
  const m = decode(decodeContribution, data);
  const author = peerIdString(m.author);
  checkMember(author, ctx);
  checkRun(m.runId, ctx);
  const old = m.iteration < ctx.head;
  // A malformed payload is refused whatever its iteration (a stateless check, cheaper than none).
  checkPayload(m.payload, m.iteration, ctx, "contribution");
  checkStaleness(m.staleness, ctx, "contribution", m.iteration);
  if (!old) checkWindow(m.iteration, ctx);
  if (!equalBytes(encodeContribution(m), data))
    throw new GossipValidationError("NOT_CANONICAL", "contribution is not in its canonical encoding", { iteration: m.iteration });
  if (!old) checkSeen("contribution", author, m.iteration, data, ctx, false);
  if (ctx.newcomers && !ctx.newcomers.passes(author, m.iteration)) {
    // Old, and past the gate's late window or budget: unverified, and no late-author hint.
    if (old) throw new GossipValidationError("OLD_ITERATION", "iteration already applied", { iteration: m.iteration, head: ctx.head });
    throw new GossipValidationError("NEWCOMER_FULL", "a newcomer that ranks below the newcomers held for its iteration", { iteration: m.iteration, author });
  }
  signed(() => checkContribution(m, ctx.checkSignature, ctx.now ?? Date.now()));
  if (!old) ctx.newcomers?.verified(author, m.iteration);
  // Its author is proven now: named in the error, for the late-author hint.
  if (old) throw new GossipValidationError("OLD_ITERATION", "iteration already applied", { iteration: m.iteration, head: ctx.head, author });
  checkSeen("contribution", author, m.iteration, data, ctx);
  return m;
}

/**
 * Validates a commit. Relayers relay: the commit names its proposer, whose signature must verify,
 * as must every entry's author's (checkCommit, the same check the commits protocol runs). What
 * needs the chain (rank, parent, checksum) the rounds check. Payloads must be valid for the run.
 * Deduped per proposer.
 *
 * A commit may carry 1,024 entry signatures for one proposer signature, so everything that can
 * refuse it without them comes first (finding 5): the window (a few iterations ahead), membership
 * (every id is only a name until verified, but a non-member's commit is refused either way), the
 * dedupe (a replay, or a proposer's fourth different commit for one iteration, costs nothing),
 * then the proposer's one signature, then the budget of newcomer proposers per iteration, and
 * only then the entries.
 */
export function validateCommit(data: Uint8Array, ctx: GossipContext): CommitMessage {
  const m = decode(decodeCommit, data);
  checkRun(m.runId, ctx);
  checkWindow(m.iteration, ctx);
  const proposer = peerIdString(m.proposer);
  // In a member run an entry is a member's contribution relayed by a member proposer. An excluded
  // proposer's commit is ignored; an excluded author's entry is the chain checks' to refuse and charge.
  checkMember(proposer, ctx);
  if (ctx.admits) for (const e of m.entries) checkMember(peerIdString(e.author), { ...ctx, excluded: undefined });
  m.entries.forEach((e, i) => {
    checkPayload(e.payload, m.iteration, ctx, `commit.entries[${i}]`);
    checkStaleness(e.staleness, ctx, `commit.entries[${i}]`, m.iteration);
  });
  checkSeen("commit", proposer, m.iteration, data, ctx, false);
  const entriesAllowed = () => {
    if (ctx.mayVerifyEntries && !ctx.mayVerifyEntries(proposer, m.iteration))
      throw new GossipValidationError("OVER_BUDGET", "more newcomer proposers for the iteration than this node verifies", { proposer, iteration: m.iteration });
    const problem = ctx.commitProblem?.(m, proposer);
    if (problem) throw new GossipValidationError("INADMISSIBLE", problem, { proposer, iteration: m.iteration, rank: m.rank });
  };
  signed(() => checkCommit(m, data, ctx.checkSignature, ctx.now ?? Date.now(), entriesAllowed));
  checkSeen("commit", proposer, m.iteration, data, ctx);
  return m;
}

/**
 * The bytes are the notice's one encoding, and its author signed them; deduped, and within the
 * notices' rate budget (finding 11). The budget and the dedupe are asked before the signature
 * (a flood past them costs no verification) and recorded after it (so forgeries naming an honest
 * signer cannot spend its budget).
 */
function checkNoticeBytes(kind: NoticeKind, data: Uint8Array, encoded: Uint8Array, body: Uint8Array, author: Uint8Array, sig: Uint8Array, ctx: GossipContext, iteration: number): void {
  if (!equalBytes(encoded, data))
    throw new GossipValidationError("NOT_CANONICAL", `${kind} is not in its canonical encoding`, { iteration });
  const signer = peerIdString(author);
  checkSeen(kind, signer, iteration, data, ctx, false);
  if (ctx.noticeBudget && !ctx.noticeBudget(signer, false))
    throw new GossipValidationError("OVER_BUDGET", `${kind}s past their rate`, { signer, iteration });
  signed(() => checkNotice(kind, author, body, sig, ctx.checkSignature, { iteration }));
  checkSeen(kind, signer, iteration, data, ctx);
  ctx.noticeBudget?.(signer, true);
}

/** A notice's iteration: not too far behind our head (NOTICE_BEHIND), not past the hint window. */
function checkNoticeWindow(kind: NoticeKind, iteration: number, ctx: GossipContext, behind: number): void {
  if (iteration + behind < ctx.head)
    throw new GossipValidationError("OLD_ITERATION", `${kind} too far behind our head`, { iteration, head: ctx.head, behind });
  const window = ctx.hintWindow ?? ctx.window;
  if (iteration > ctx.head + window)
    throw new GossipValidationError("FUTURE_ITERATION", `${kind} beyond the window`, { iteration, head: ctx.head, window });
}

/** Validates a leave, signed by the node leaving. Its iteration may lag ours (a slow node leaving; up to NOTICE_BEHIND), but not run ahead. */
export function validateLeave(data: Uint8Array, ctx: GossipContext): Leave {
  const m = decode(decodeLeave, data);
  checkMember(peerIdString(m.author), ctx);
  checkRun(m.runId, ctx);
  checkNoticeWindow("leave", m.iteration, ctx, NOTICE_BEHIND);
  checkNoticeBytes("leave", data, encodeLeave(m), leaveBody(m), m.author, m.signature, ctx, m.iteration);
  return m;
}

/**
 * Validates a heartbeat, signed by the node whose head it is. A heartbeat is a claim, never
 * proof: the node only takes it as a hint to fetch commits (which must chain onto its own).
 * Behind us is a slow peer (up to NOTICE_BEHIND); ahead, only within the hint window: a claim far
 * beyond it is no hint worth a fetch (a node that far behind is repaired by its periodic checks),
 * so it is ignored and not forwarded.
 */
export function validateHeartbeat(data: Uint8Array, ctx: GossipContext): Heartbeat {
  const m = decode(decodeHeartbeat, data);
  checkMember(peerIdString(m.author), ctx);
  checkRun(m.runId, ctx);
  signed(() => checkJoinedAt(m.joinedAt, ctx.now ?? Date.now(), "heartbeat", { iteration: m.iteration }));
  checkNoticeWindow("heartbeat", m.iteration, ctx, NOTICE_BEHIND);
  checkNoticeBytes("heartbeat", data, encodeHeartbeat(m), heartbeatBody(m), m.author, m.signature, ctx, m.iteration);
  return m;
}

/**
 * Validates an audit's fraud proof, signed by the auditor. Only its form and signature are checked
 * here: whether the accused's entry in that commit recomputes is the audits' to find out
 * (node/chain/audits.ts), by recomputing, and a false proof costs its auditor there. A proof older
 * than the exclusion window can no longer be recorded (ignored); one accusing its own signer is
 * malformed.
 */
export function validateProof(data: Uint8Array, ctx: GossipContext): FraudProof {
  const m = decode(decodeProof, data);
  checkMember(peerIdString(m.author), ctx);
  checkRun(m.runId, ctx);
  checkNoticeWindow("proof", m.iteration, ctx, EXCLUSION_WINDOW);
  if (equalBytes(m.accused, m.author))
    throw new GossipValidationError("BAD_EXCLUSION", "a proof accusing its own auditor", { iteration: m.iteration });
  checkNoticeBytes("proof", data, encodeProof(m), proofBody(m), m.author, m.signature, ctx, m.iteration);
  return m;
}

/** The outcome of a validator: the message to act on, or the verdict and its metric label. */
export type Validated<T> =
  | { readonly verdict: "accept"; readonly value: T }
  | {
      readonly verdict: "ignore" | "reject";
      /** Metric label: a GossipErrorCode, or INTERNAL for a bug (ignored: not the sender's fault). */
      readonly code: GossipErrorCode | "INTERNAL";
      readonly error: Error;
    };

/** Runs a validator and turns its outcome into a gossipsub verdict. */
export function toVerdict<T>(fn: () => T): Validated<T> {
  try {
    return { verdict: "accept", value: fn() };
  } catch (err) {
    const e = err instanceof WireError ? fromWire(err) : err;
    if (e instanceof GossipValidationError) return { verdict: e.verdict, code: e.code, error: e };
    return {
      verdict: "ignore",
      code: "INTERNAL",
      error: err instanceof Error ? err : new Error(String(err)),
    };
  }
}

/** The decoded message of each gossip kind. */
export interface GossipMessages {
  contribution: ContributionMessage;
  commit: CommitMessage;
  leave: Leave;
  heartbeat: Heartbeat;
  proof: FraudProof;
}

/** The validator of each topic kind: a new kind without one does not compile. */
export const GOSSIP_VALIDATORS: {
  readonly [K in TopicKind]: (data: Uint8Array, ctx: GossipContext) => GossipMessages[K];
} = {
  contribution: validateContribution,
  commit: validateCommit,
  leave: validateLeave,
  heartbeat: validateHeartbeat,
  proof: validateProof,
};

/** Who signed a validated message (peer id string): its author, or a commit's proposer. */
export function gossipSigner<K extends TopicKind>(kind: K, m: GossipMessages[K]): string {
  const signer = kind === "commit" ? (m as CommitMessage).proposer : (m as ContributionMessage | Leave | Heartbeat | FraudProof).author;
  return peerIdString(signer);
}
