/**
 * Gossip validation: each validator decodes (size guard first) and checks one message against a
 * small context the node supplies, returns the decoded message when it may be accepted, and
 * otherwise throws a GossipValidationError whose code fixes the verdict. `toVerdict` turns that
 * into the gossipsub result and a metric label. Rejects lower the sender's score, so only what an
 * honest node can never send is rejected; what an honest but late or early node sends is ignored.
 */
import { equalBytes } from "./bytes.js";
import { decodeCommit, decodeContribution, encodeContribution, decodeHeartbeat, decodeLeave, } from "./codec.js";
import { WireError } from "./errors.js";
import { SeedswarmError } from "./errors.js";
import { ChainCheckError, checkCommit, checkContribution, checkJoinedAt, peerIdString, peerIdStringBytes } from "./signing.js";
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
     * A further different message from one signer for one iteration, past the few an honest node
     * can send (a re-contribution after a fork switch). Ignored, never rejected: a reject would be
     * charged to the relayer, who cannot know; the node charges the signer from the evidence.
     */
    EQUIVOCATION: "ignore",
    /** A commit listing one author twice. */
    DUPLICATE_AUTHOR: "reject",
    /** Signed by (or naming) a peer that is not a member of a member run. */
    NOT_MEMBER: "reject",
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
};
/** A validation failure; its verdict follows from its code. */
export class GossipValidationError extends SeedswarmError {
    verdict;
    constructor(code, message, context = {}) {
        super(code, message, context);
        this.verdict = GOSSIP_ERROR_VERDICTS[code];
    }
}
function checkStaleness(staleness, ctx, at, iteration) {
    if ((staleness ?? 0) > (ctx.maxStaleness ?? 0))
        throw new GossipValidationError("BAD_PARENTS", `${at}: staleness ${staleness} past the run's ${ctx.maxStaleness ?? 0}`, { iteration });
}
function fromWire(err) {
    const code = err.code === "WIRE_TOO_LARGE" ? "TOO_LARGE" : "MALFORMED";
    return new GossipValidationError(code, err.message, { wire: err.code, ...err.context });
}
/** Guard and parse; the codec's failures become rejects. */
function decode(decodeFn, data) {
    try {
        return decodeFn(data);
    }
    catch (err) {
        throw err instanceof WireError ? fromWire(err) : err;
    }
}
/**
 * The membership check, run before any validator (gossip.ts calls it first for every topic): a
 * member run drops everything a non-member signs, before it is decoded or costs any state.
 */
export function checkMember(peerId, ctx) {
    if (ctx.admits && !ctx.admits(peerId))
        throw new GossipValidationError("NOT_MEMBER", "signer is not a member of the run", { peer: peerId });
}
function checkRun(runId, ctx) {
    if (runId !== ctx.runId) {
        throw new GossipValidationError("WRONG_RUN", "message of another run", {
            runId,
            expected: ctx.runId,
        });
    }
}
function checkWindow(iteration, ctx) {
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
function checkPayload(payload, iteration, ctx, at) {
    if (payload.byteLength > ctx.maxPayloadBytes) {
        throw new GossipValidationError("BAD_PAYLOAD", `${at}: payload longer than the run allows`, {
            length: payload.byteLength,
            max: ctx.maxPayloadBytes,
        });
    }
    const problem = ctx.payloadProblem(payload, iteration);
    if (problem)
        throw new GossipValidationError("BAD_PAYLOAD", `${at}: ${problem}`);
}
function checkSeen(kind, signer, iteration, data, ctx) {
    const seen = ctx.seen(kind, signer, iteration, data);
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
function signed(fn) {
    try {
        fn();
    }
    catch (err) {
        if (err instanceof ChainCheckError)
            throw new GossipValidationError(err.code, err.message, err.context);
        throw err;
    }
}
/**
 * Validates a contribution signed by `author` (the gossipsub signer, as a peer id string): its
 * own Ed25519 signature by that author must verify. Order matters: cheap stateless checks
 * first, the signature next, the dedupe (which may record) last.
 */
export function validateContribution(data, author, ctx) {
    const m = decode(decodeContribution, data);
    checkRun(m.runId, ctx);
    checkWindow(m.iteration, ctx);
    checkPayload(m.payload, m.iteration, ctx, "contribution");
    checkStaleness(m.staleness, ctx, "contribution", m.iteration);
    if (!equalBytes(encodeContribution(m), data))
        throw new GossipValidationError("NOT_CANONICAL", "contribution is not in its canonical encoding", { iteration: m.iteration });
    signed(() => checkContribution(m, peerIdStringBytes(author), ctx.checkSignature, ctx.now ?? Date.now()));
    checkSeen("contribution", author, m.iteration, data, ctx);
    return m;
}
/**
 * Validates a commit. The gossip signer does not matter (relayers relay): the commit names its
 * proposer, whose signature must verify, as must every entry's author's (checkCommit, the same
 * check the commits protocol runs). What needs the chain (rank, parent, checksum) the rounds
 * check. Payloads must be valid for the run. Deduped per proposer, not per gossip signer.
 */
export function validateCommit(data, _signer, ctx) {
    const m = decode(decodeCommit, data);
    checkRun(m.runId, ctx);
    checkWindow(m.iteration, ctx);
    m.entries.forEach((e, i) => {
        checkPayload(e.payload, m.iteration, ctx, `commit.entries[${i}]`);
        checkStaleness(e.staleness, ctx, `commit.entries[${i}]`, m.iteration);
    });
    signed(() => checkCommit(m, data, ctx.checkSignature, ctx.now ?? Date.now()));
    if (ctx.admits) {
        // In a member run an entry is a member's contribution relayed by a member proposer (the
        // signatures are checked first: they prove every id is an Ed25519 key).
        checkMember(peerIdString(m.proposer), ctx);
        for (const e of m.entries)
            checkMember(peerIdString(e.author), ctx);
    }
    checkSeen("commit", peerIdString(m.proposer), m.iteration, data, ctx);
    return m;
}
/** Validates a leave (author unused: every validator has the same shape). Its iteration may lag ours (a slow node leaving), but not run ahead. */
export function validateLeave(data, _author, ctx) {
    const m = decode(decodeLeave, data);
    checkRun(m.runId, ctx);
    if (m.iteration > ctx.head + ctx.window) {
        throw new GossipValidationError("FUTURE_ITERATION", "leave beyond the window", {
            iteration: m.iteration,
            head: ctx.head,
        });
    }
    return m;
}
/**
 * Validates a heartbeat. A heartbeat is a claim, never proof: the node only takes it as a hint to
 * fetch commits (which must chain onto its own). Behind us is a slow peer; ahead, only within the
 * window: a claim far beyond it is no hint worth a fetch (a node that far behind is repaired by
 * its periodic checks), so it is ignored and not forwarded.
 */
export function validateHeartbeat(data, _author, ctx) {
    const m = decode(decodeHeartbeat, data);
    checkRun(m.runId, ctx);
    signed(() => checkJoinedAt(m.joinedAt, ctx.now ?? Date.now(), "heartbeat", { iteration: m.iteration }));
    if (m.iteration > ctx.head + ctx.window) {
        throw new GossipValidationError("FUTURE_ITERATION", "heartbeat beyond the window", {
            iteration: m.iteration,
            head: ctx.head,
            window: ctx.window,
        });
    }
    return m;
}
/** Runs a validator and turns its outcome into a gossipsub verdict. */
export function toVerdict(fn) {
    try {
        return { verdict: "accept", value: fn() };
    }
    catch (err) {
        const e = err instanceof WireError ? fromWire(err) : err;
        if (e instanceof GossipValidationError)
            return { verdict: e.verdict, code: e.code, error: e };
        return {
            verdict: "ignore",
            code: "INTERNAL",
            error: err instanceof Error ? err : new Error(String(err)),
        };
    }
}
/** The validator of each topic kind: a new kind without one does not compile. */
export const GOSSIP_VALIDATORS = {
    contribution: validateContribution,
    commit: validateCommit,
    leave: validateLeave,
    heartbeat: validateHeartbeat,
};
//# sourceMappingURL=validation.js.map