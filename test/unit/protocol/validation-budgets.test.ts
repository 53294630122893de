/**
 * Findings 5 and 11 at the validators: what a commit or notice can cost before it is refused,
 * counted in signature verifications (a counting check around the real, uncached Ed25519 one).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NOTICE_BUDGET, NoticeBudget, ProposerBudget } from "../../../node/network/notice-budget.js";
import { SeenCache, seenKey } from "../../../node/network/seen-cache.js";
import { decodeHeartbeat, encodeHeartbeat } from "../../../protocol/codec.js";
import { gradientPayloadProblem } from "../../../protocol/gradient-byte.js";
import { FUTURE_ITERATIONS, NOTICE_BEHIND } from "../../../protocol/limits.js";
import { checkSignature, type SignatureCheck } from "../../../protocol/signing.js";
import { type GossipContext, toVerdict, validateCommit, validateHeartbeat, validateLeave } from "../../../protocol/validation.js";
import { signedCommit, signedHeartbeat, signedLeave, TEST_JOINED_AT, testKeys } from "../../helpers/chain-keys.js";
import { filled, RUN } from "./fixtures.js";

const SIZE = 4;
const HEAD = 100;
const keys = await testKeys(12);
const [PROPOSER, ...AUTHORS] = keys;

/** A context with real dedupe caches and a verification counter; `over` adds budgets. */
function context(over: Partial<GossipContext> = {}) {
  const seen = new SeenCache(10_000, NOTICE_BEHIND);
  const counter = { verified: 0 };
  const check: SignatureCheck = (signer, message, signature) => {
    counter.verified++;
    return checkSignature(signer, message, signature);
  };
  const ctx: GossipContext = {
    runId: RUN,
    head: HEAD,
    window: FUTURE_ITERATIONS,
    hintWindow: 1024,
    maxPayloadBytes: SIZE,
    payloadProblem: (p) => gradientPayloadProblem(p, SIZE),
    checkSignature: check,
    now: Date.UTC(2026, 5, 1),
    known: (kind, signer, iteration, data) => seen.known(seenKey(kind, signer, iteration), data),
    seen: (kind, signer, iteration, data) => seen.record(seenKey(kind, signer, iteration), iteration, data, HEAD),
    ...over,
  };
  return { ctx, counter };
}

/** A commit by `proposer` for `iteration` at `rank`, entries by the 11 authors (one verification each, plus the proposer's). */
const commitBy = (proposer = PROPOSER, rank = 0, iteration = HEAD + 1) =>
  signedCommit(proposer, { runId: RUN, iteration, prevHash: filled(32, 9), checksum: filled(32, 3), rank }, AUTHORS.map((key, i) => ({ key, payload: filled(SIZE, i + 1) }))).encoded;
const ENTRY_COST = 1 + AUTHORS.length;

describe("finding 5: a commit costs no entry verification where it can be refused without them", () => {
  it("10 commits from one proposer differing only in rank: the first 3 are verified, the 4th and later cost nothing", () => {
    const { ctx, counter } = context();
    const verdicts = [];
    const costs = [];
    for (let rank = 0; rank < 10; rank++) {
      const before = counter.verified;
      verdicts.push(toVerdict(() => validateCommit(commitBy(PROPOSER, rank), ctx)));
      costs.push(counter.verified - before);
    }
    assert.deepEqual(verdicts.map((v) => (v.verdict === "accept" ? "accept" : v.code)), ["accept", "accept", "accept", ...Array(7).fill("EQUIVOCATION")]);
    assert.deepEqual(costs, [ENTRY_COST, ENTRY_COST, ENTRY_COST, 0, 0, 0, 0, 0, 0, 0]);
    // A replay of an accepted one: no verification either.
    const before = counter.verified;
    assert.equal(toVerdict(() => validateCommit(commitBy(PROPOSER, 0), ctx)).verdict, "ignore");
    assert.equal(counter.verified, before);
  });

  it("beyond head + FUTURE_ITERATIONS, and from a non-member of a member run: refused before any signature", () => {
    const { ctx, counter } = context();
    const far = toVerdict(() => validateCommit(commitBy(PROPOSER, 0, HEAD + FUTURE_ITERATIONS + 1), ctx));
    assert.equal(far.verdict === "ignore" && far.code, "FUTURE_ITERATION");
    const members = context({ admits: (p) => p !== PROPOSER.author.id });
    const stranger = toVerdict(() => validateCommit(commitBy(), members.ctx));
    assert.equal(stranger.verdict === "reject" && stranger.code, "NOT_MEMBER");
    assert.equal(counter.verified + members.counter.verified, 0);
  });

  it("fresh proposer keys re-wrapping entries: past the newcomer proposers' budget for an iteration, one verification each, no entries; members always verified", () => {
    const member = keys[1];
    const budget = new ProposerBudget((p) => p === member.author.id);
    const { ctx, counter } = context({ mayVerifyEntries: (p, t) => budget.mayVerify(p, t) });
    // Entries verified once are not what this counts: the check here is uncached.
    const proposers = keys.slice(2, 2 + NOTICE_BUDGET.newcomerProposersPerIteration + 3);
    const costs = proposers.map((p) => {
      const before = counter.verified;
      toVerdict(() => validateCommit(commitBy(p), ctx));
      return counter.verified - before;
    });
    const n = NOTICE_BUDGET.newcomerProposersPerIteration;
    assert.deepEqual(costs, [...Array(n).fill(ENTRY_COST), 1, 1, 1]);
    const over = toVerdict(() => validateCommit(commitBy(keys[11]), ctx));
    assert.equal(over.verdict === "ignore" && over.code, "OVER_BUDGET");
    // A member proposer past the budget: its entries are verified, and its commit accepted.
    assert.equal(toVerdict(() => validateCommit(commitBy(member), ctx)).verdict, "accept");
    // The next iteration has a budget of its own.
    assert.equal(toVerdict(() => validateCommit(commitBy(keys[11], 0, HEAD + 2), ctx)).verdict, "accept");
  });
});

describe("finding 11: floods of validly signed notices", () => {
  const beat = (k = PROPOSER, iteration = HEAD, fill = 1) => signedHeartbeat(k, { runId: RUN, iteration, checksum: filled(32, fill), joinedAt: TEST_JOINED_AT });

  it("the same heartbeat again, and heartbeats or leaves far behind our head, are ignored unverified", () => {
    const { ctx, counter } = context();
    assert.equal(toVerdict(() => validateHeartbeat(beat(), ctx)).verdict, "accept");
    assert.equal(counter.verified, 1);
    const again = toVerdict(() => validateHeartbeat(beat(), ctx));
    assert.equal(again.verdict === "ignore" && again.code, "DUPLICATE");
    const old = toVerdict(() => validateHeartbeat(beat(PROPOSER, HEAD - NOTICE_BEHIND - 1), ctx));
    assert.equal(old.verdict === "ignore" && old.code, "OLD_ITERATION");
    const oldLeave = toVerdict(() => validateLeave(signedLeave(PROPOSER, RUN, HEAD - NOTICE_BEHIND - 1), ctx));
    assert.equal(oldLeave.verdict === "ignore" && oldLeave.code, "OLD_ITERATION");
    assert.equal(toVerdict(() => validateHeartbeat(beat(PROPOSER, HEAD - NOTICE_BEHIND), ctx)).verdict, "accept", "a slow peer within the bound");
    // Past 3 different heartbeats for one iteration: ignored unverified.
    for (let i = 2; i <= 3; i++) assert.equal(toVerdict(() => validateHeartbeat(beat(PROPOSER, HEAD, i), ctx)).verdict, "accept");
    const before = counter.verified;
    const fourth = toVerdict(() => validateHeartbeat(beat(PROPOSER, HEAD, 4), ctx));
    assert.equal(fourth.verdict === "ignore" && fourth.code, "EQUIVOCATION");
    assert.equal(counter.verified, before);
  });

  it("one signer's distinct heartbeats past its burst cost no verification; newcomers share one budget; members only their own; forgeries spend nobody's", () => {
    let clock = 0;
    const members = new Set([keys[1].author.id]);
    const budget = new NoticeBudget((s) => members.has(s), () => clock);
    const { ctx, counter } = context({ noticeBudget: (s, take) => budget.notice(s, take) });
    // One newcomer signing 200 distinct heartbeats (each for another iteration) at one instant.
    const outcomes = Array.from({ length: 200 }, (_, i) => toVerdict(() => validateHeartbeat(beat(keys[2], HEAD + i), ctx)).verdict);
    assert.equal(outcomes.filter((v) => v === "accept").length, NOTICE_BUDGET.perSignerBurst);
    assert.equal(counter.verified, NOTICE_BUDGET.perSignerBurst, "only those within the budget were verified");
    // A second later, the signer's rate refills its bucket a little.
    clock += 1000;
    const later = Array.from({ length: 20 }, (_, i) => toVerdict(() => validateHeartbeat(beat(keys[2], HEAD + 300 + i), ctx)).verdict);
    assert.equal(later.filter((v) => v === "accept").length, NOTICE_BUDGET.perSignerPerSecond);
    // A forged heartbeat naming the member: rejected, and the member's budget untouched.
    const forged = decodeHeartbeat(beat(keys[1], HEAD + 1));
    for (let i = 0; i < 50; i++) {
      const bad = encodeHeartbeat({ ...forged, iteration: HEAD + 2 + i });
      assert.equal(toVerdict(() => validateHeartbeat(bad, ctx)).verdict, "reject");
    }
    assert.equal(toVerdict(() => validateHeartbeat(beat(keys[1], HEAD + 1), ctx)).verdict, "accept");
  });

  it("a crowd of newcomers is bounded as a crowd: one shared bucket, and a member's notices are not in it", async () => {
    const crowd = await testKeys(NOTICE_BUDGET.newcomersBurst + 100);
    const member = keys[1];
    const budget = new NoticeBudget((s) => s === member.author.id, () => 0);
    const { ctx } = context({ noticeBudget: (s, take) => budget.notice(s, take) });
    const accepted = crowd.filter((k) => toVerdict(() => validateHeartbeat(beat(k), ctx)).verdict === "accept").length;
    assert.equal(accepted, NOTICE_BUDGET.newcomersBurst);
    assert.equal(toVerdict(() => validateHeartbeat(beat(member), ctx)).verdict, "accept", "the crowd spent nothing of the member's");
  });
});
