import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeLeave } from "../../../protocol/codec.js";
import { MAX_MESSAGE_BYTES } from "../../../protocol/limits.js";
import { MAX_JOINED_AT_AHEAD_MS, MIN_JOINED_AT, peerIdString } from "../../../protocol/signing.js";
import { TOPIC_KINDS } from "../../../protocol/topics.js";
import { checkMember, GOSSIP_VALIDATORS, type GossipErrorCode, GossipValidationError, toVerdict, validateCommit, validateContribution, validateHeartbeat, validateLeave, validateProof } from "../../../protocol/validation.js";
import { signedHeartbeat, signedLeave, signedProof, TEST_JOINED_AT } from "../../helpers/chain-keys.js";
import { filled, OTHER_RUN, RUN } from "./fixtures.js";
import { KEY_A, KEY_B, NOW, HEAD, SIZE, AUTHOR, context, contribution, commit, staleCommit, codeOf } from "./validation-harness.js";
import { type ValidationCase, MESSAGE_CASES } from "./validation-cases-message.js";
import { AUTHOR_CASES } from "./validation-cases-author.js";

describe("gossip validation", () => {
  // Typed over every code: a new code without a case does not compile.
  const cases: Record<GossipErrorCode, ValidationCase[]> = { ...MESSAGE_CASES, ...AUTHOR_CASES };

  for (const [code, list] of Object.entries(cases)) {
    it(`${code} -> ${list[0].verdict}`, () => {
      for (const [i, { verdict, run }] of list.entries()) {
        const r = run();
        if (r.verdict === "accept") assert.fail(`case ${i} accepted`);
        assert.equal(r.verdict, verdict, `case ${i}`);
        assert.equal(r.code, code, `case ${i}: ${r.error.message}`);
        assert.ok(r.error instanceof GossipValidationError);
      }
    });
  }

  it("accepts what an honest node sends", () => {
    const ctx = context();
    const c = toVerdict(() => validateContribution(contribution(), ctx));
    assert.equal(c.verdict, "accept");
    assert.equal(c.verdict === "accept" && c.value.iteration, HEAD);
    // Up to the edge of the window, from another author, and a commit with no entries.
    assert.equal(
      toVerdict(() => validateContribution(contribution({ iteration: HEAD + 2 }), ctx))
        .verdict,
      "accept",
    );
    assert.equal(
      toVerdict(() => validateContribution(contribution({}, KEY_B), ctx)).verdict,
      "accept",
    );
    // The same author's commit is a different kind from its contribution: not equivocation.
    assert.equal(toVerdict(() => validateCommit(commit(), ctx)).verdict, "accept");
    assert.equal(
      toVerdict(() => validateCommit(commit({ iteration: HEAD + 1 }, []), ctx))
        .verdict,
      "accept",
    );
    // A lagging node leaving, a heartbeat at the edge of the window.
    assert.equal(
      toVerdict(() => validateLeave(signedLeave(KEY_B, RUN, 0), ctx))
        .verdict,
      "accept",
    );
    const hb = signedHeartbeat(KEY_A, {
      runId: RUN,
      iteration: HEAD + 2,
      checksum: filled(32, 1),
      joinedAt: TEST_JOINED_AT,
    });
    assert.equal(toVerdict(() => validateHeartbeat(hb, ctx)).verdict, "accept");
    // A proof about a commit a few iterations back, and one as far back as the exclusion window allows.
    for (const [iteration, head] of [[HEAD - 2, HEAD], [0, 16]]) {
      const proof = toVerdict(() => validateProof(signedProof(KEY_A, { runId: RUN, iteration, commitHash: filled(32, 4), accused: KEY_B.bytes }), context({ head })));
      assert.equal(proof.verdict === "accept" && peerIdString(proof.value.author), AUTHOR);
    }
  });

  it("a pipelined run accepts contributions and commit entries measured up to its staleness early", () => {
    const ctx = context({ maxStaleness: 1 });
    const c = toVerdict(() => validateContribution(contribution({ staleness: 1 }), ctx));
    assert.equal(c.verdict === "accept" && c.value.staleness, 1);
    const commit = toVerdict(() => validateCommit(staleCommit(), ctx));
    assert.deepEqual(commit.verdict === "accept" && commit.value.entries.map((e) => e.staleness ?? 0).sort(), [0, 1]);
    assert.equal(codeOf(toVerdict(() => validateContribution(contribution({ staleness: 2, iteration: HEAD + 1 }), ctx))), "BAD_PARENTS");
  });

  it("dedupe runs last: a message that fails another check is never recorded", () => {
    let calls = 0;
    const ctx = context({
      seen: () => {
        calls++;
        return "new";
      },
    });
    toVerdict(() => validateContribution(contribution({ iteration: HEAD - 1 }), ctx));
    toVerdict(() =>
      validateContribution(contribution({ payload: filled(SIZE, 0x80) }), ctx),
    );
    toVerdict(() => validateContribution(contribution({ runId: OTHER_RUN }), ctx));
    assert.equal(calls, 0);
    toVerdict(() => validateContribution(contribution(), ctx));
    assert.equal(calls, 1);
  });

  it("join times at the bounds: 2024-01-01 and our clock + 1 h are accepted, one ms beyond is not", () => {
    const at = (joinedAt: number) => toVerdict(() => validateContribution(contribution({ joinedAt }), context({ now: NOW })));
    assert.equal(at(MIN_JOINED_AT).verdict, "accept");
    assert.equal(at(NOW + MAX_JOINED_AT_AHEAD_MS).verdict, "accept");
    assert.equal(codeOf(at(MIN_JOINED_AT - 1)), "BAD_JOINED_AT");
    assert.equal(codeOf(at(NOW + MAX_JOINED_AT_AHEAD_MS + 1)), "BAD_JOINED_AT");
  });

  it("GOSSIP_VALIDATORS covers every topic kind", () => {
    assert.deepEqual(Object.keys(GOSSIP_VALIDATORS).sort(), [...TOPIC_KINDS].sort());
  });

  it("toVerdict: a WireError thrown directly is a reject, a bug is an INTERNAL ignore", () => {
    const wire = toVerdict(() => decodeLeave(filled(MAX_MESSAGE_BYTES.leave + 1, 0)));
    assert.deepEqual(
      [wire.verdict, wire.verdict !== "accept" && wire.code],
      ["reject", "TOO_LARGE"],
    );
    const bug = toVerdict(() => {
      throw new TypeError("oops");
    });
    assert.deepEqual([bug.verdict, bug.verdict !== "accept" && bug.code], ["ignore", "INTERNAL"]);
  });

  it("a heartbeat claiming an iteration beyond the window is ignored, not forwarded", () => {
    const hb = (iteration: number) => signedHeartbeat(KEY_A, { runId: RUN, iteration, checksum: filled(32, 1), joinedAt: TEST_JOINED_AT });
    const ctx = context();
    assert.equal(toVerdict(() => validateHeartbeat(hb(HEAD + ctx.window), ctx)).verdict, "accept");
    const far = toVerdict(() => validateHeartbeat(hb(HEAD + 1000), ctx));
    assert.equal(far.verdict, "ignore");
    assert.equal(codeOf(far), "FUTURE_ITERATION");
  });

  it("a second and third different message from one signer are let through to the rounds", () => {
    const ctx = context();
    for (const data of [contribution(), contribution({ parentHash: filled(32, 1) }), contribution({ payload: filled(SIZE, 3) })])
      assert.equal(toVerdict(() => validateContribution(data, ctx)).verdict, "accept");
  });

  it("a member run accepts its members' messages, the commit entries of members included", () => {
    const members = new Set([AUTHOR, KEY_B.author.id]);
    const admits = (p: string) => members.has(p);
    const ctx = context({ admits });
    const gossiped = (kind: "contribution" | "commit", data: Uint8Array) =>
      toVerdict(() => {
        checkMember(AUTHOR, ctx);
        return GOSSIP_VALIDATORS[kind](data, ctx);
      }).verdict;
    assert.equal(gossiped("contribution", contribution()), "accept");
    assert.equal(gossiped("commit", commit()), "accept");
    // Dropping KEY_B from the members turns the same commit (a new iteration: no dedupe) away.
    members.delete(KEY_B.author.id);
    assert.equal(gossiped("commit", commit({ iteration: HEAD + 1 })), "reject");
  });

  it("a commit is deduped by its proposer (no relayer enters validation)", () => {
    const ctx = context();
    assert.equal(toVerdict(() => validateCommit(commit(), ctx)).verdict, "accept");
    const again = toVerdict(() => validateCommit(commit(), ctx));
    assert.equal(codeOf(again), "DUPLICATE");
  });
});
