import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type CommitMessage,
  type ContributionMessage,
  decodeLeave,
  encodeCommit,
  encodeContribution,
  encodeHeartbeat,
  encodeLeave,
} from "../../../protocol/codec.js";
import { peerIdOfBytes } from "../../../node/network/peer-bytes.js";
import { gradientPayloadProblem } from "../../../protocol/gradient-byte.js";
import { MAX_MESSAGE_BYTES } from "../../../protocol/limits.js";
import { TOPIC_KINDS } from "../../../protocol/topics.js";
import {
  checkMember,
  GOSSIP_VALIDATORS,
  type GossipContext,
  type GossipErrorCode,
  GossipValidationError,
  memberAuthorId,
  toVerdict,
  type Validated,
  validateCommit,
  validateContribution,
  validateHeartbeat,
  validateLeave,
} from "../../../protocol/validation.js";

import { filled, OTHER_RUN, PEER_A, PEER_B, RUN } from "./fixtures.js";

/** Author bytes as hex: a stand-in for peer id normalisation (the fixtures are no real keys). */
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** The metric label of a verdict (null when accepted). */
const codeOf = (v: Validated<unknown>) => (v.verdict === "accept" ? null : v.code);

describe("gossip validation", () => {
  const HEAD = 10;
  const SIZE = 4;
  const AUTHOR = "12D3KooWAuthor";

  /** A context whose dedupe store is a real map, so "same" and "different" come from data. */
  function context(over: Partial<GossipContext> = {}): GossipContext {
    const store = new Map<string, string>();
    return {
      runId: RUN,
      head: HEAD,
      window: 2,
      maxPayloadBytes: SIZE,
      payloadProblem: (p) => gradientPayloadProblem(p, SIZE),
      seen: (kind, author, iteration, data) => {
        const key = `${kind}/${author}/${iteration}`;
        const hex = Buffer.from(data).toString("hex");
        const prev = store.get(key);
        if (prev === undefined) {
          store.set(key, hex);
          return "new";
        }
        return prev === hex ? "same" : "different";
      },
      ...over,
    };
  }

  const contribution = (over: Partial<ContributionMessage> = {}) =>
    encodeContribution({
      runId: RUN,
      iteration: HEAD,
      joinedAt: 1000,
      payload: Uint8Array.of(1, 0xff, 0, 127),
      ...over,
    });

  const commit = (over: Partial<CommitMessage> = {}) =>
    encodeCommit({
      runId: RUN,
      iteration: HEAD,
      prevHash: filled(32, 0),
      entries: [
        { author: PEER_A, joinedAt: 1000, payload: filled(SIZE, 1) },
        { author: PEER_B, joinedAt: 1001, payload: filled(SIZE, 2) },
      ],
      checksum: filled(32, 3),
      rank: 0,
      ...over,
    });

  /** Validates `first` (which must be accepted) then `data`, in one context. */
  function twice(first: Uint8Array, data: Uint8Array, kind: "contribution" | "commit") {
    const ctx = context();
    const validate = kind === "contribution" ? validateContribution : validateCommit;
    assert.equal(toVerdict(() => validate(first, AUTHOR, ctx)).verdict, "accept");
    return toVerdict(() => validate(data, AUTHOR, ctx));
  }

  // Typed over every code: a new code without a case does not compile.
  const cases: Record<
    GossipErrorCode,
    Array<{ verdict: "ignore" | "reject"; run: () => Validated<unknown> }>
  > = {
    WRONG_RUN: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ runId: OTHER_RUN }), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateCommit(commit({ runId: OTHER_RUN }), AUTHOR, context())),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateLeave(encodeLeave({ runId: OTHER_RUN, iteration: 1 }), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateHeartbeat(
              encodeHeartbeat({
                runId: OTHER_RUN,
                iteration: 1,
                checksum: filled(32, 1),
                joinedAt: 1,
              }),
              AUTHOR,
              context(),
            ),
          ),
      },
    ],
    MALFORMED: [
      {
        verdict: "reject",
        run: () => toVerdict(() => validateContribution(filled(10, 0xff), AUTHOR, context())),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateCommit(contribution(), AUTHOR, context())),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateHeartbeat(new Uint8Array(0), AUTHOR, context())),
      },
    ],
    TOO_LARGE: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(filled(MAX_MESSAGE_BYTES.contribution + 1, 0), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() => validateLeave(filled(MAX_MESSAGE_BYTES.leave + 1, 0), AUTHOR, context())),
      },
    ],
    OLD_ITERATION: [
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ iteration: HEAD - 1 }), AUTHOR, context()),
          ),
      },
      {
        verdict: "ignore",
        run: () => toVerdict(() => validateCommit(commit({ iteration: 0 }), AUTHOR, context())),
      },
    ],
    FUTURE_ITERATION: [
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ iteration: HEAD + 3 }), AUTHOR, context()),
          ),
      },
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() => validateCommit(commit({ iteration: HEAD + 3 }), AUTHOR, context())),
      },
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateLeave(encodeLeave({ runId: RUN, iteration: HEAD + 3 }), AUTHOR, context()),
          ),
      },
    ],
    BAD_PAYLOAD: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ payload: filled(SIZE - 1, 1) }), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ payload: filled(SIZE + 1, 1) }), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(
              contribution({ payload: Uint8Array.of(1, 2, 0x80, 4) }),
              AUTHOR,
              context(),
            ),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              commit({
                entries: [{ author: PEER_A, joinedAt: 1, payload: Uint8Array.of(0x80, 0, 0, 0) }],
              }),
              AUTHOR,
              context(),
            ),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              commit({ entries: [{ author: PEER_A, joinedAt: 1, payload: filled(1, 1) }] }),
              AUTHOR,
              context(),
            ),
          ),
      },
    ],
    DUPLICATE: [
      { verdict: "ignore", run: () => twice(contribution(), contribution(), "contribution") },
      { verdict: "ignore", run: () => twice(commit(), commit(), "commit") },
    ],
    EQUIVOCATION: [
      {
        verdict: "reject",
        run: () =>
          twice(contribution(), contribution({ payload: filled(SIZE, 9) }), "contribution"),
      },
      {
        verdict: "reject",
        run: () => twice(contribution(), contribution({ joinedAt: 999 }), "contribution"),
      },
      { verdict: "reject", run: () => twice(commit(), commit({ rank: 1 }), "commit") },
    ],
    // A member run whose only members are AUTHOR and PEER_A: a stranger's message of any kind is
    // refused before it is decoded (garbage included), and so is a member's commit naming PEER_B.
    NOT_MEMBER: [
      ...TOPIC_KINDS.map((kind) => ({
        verdict: "reject" as const,
        run: () =>
          toVerdict(() => {
            const ctx = context({ admits: (p) => p === AUTHOR });
            checkMember("12D3KooWStranger", ctx);
            return GOSSIP_VALIDATORS[kind](filled(10, 0xff), "12D3KooWStranger", ctx);
          }),
      })),
      {
        verdict: "reject",
        run: () => {
          const admits = (p: string) => p === AUTHOR || p === hex(PEER_A);
          const ctx = context({ admits, authorId: memberAuthorId(hex, admits) });
          return toVerdict(() => {
            checkMember(AUTHOR, ctx);
            return validateCommit(commit(), AUTHOR, ctx);
          });
        },
      },
    ],
    DUPLICATE_AUTHOR: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              commit({
                entries: [
                  { author: PEER_A, joinedAt: 1, payload: filled(SIZE, 1) },
                  { author: PEER_A, joinedAt: 2, payload: filled(SIZE, 2) },
                ],
              }),
              AUTHOR,
              context(),
            ),
          ),
      },
    ],
  };

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
    const c = toVerdict(() => validateContribution(contribution(), AUTHOR, ctx));
    assert.equal(c.verdict, "accept");
    assert.equal(c.verdict === "accept" && c.value.iteration, HEAD);
    // Up to the edge of the window, from another author, and a commit with no entries.
    assert.equal(
      toVerdict(() => validateContribution(contribution({ iteration: HEAD + 2 }), AUTHOR, ctx))
        .verdict,
      "accept",
    );
    assert.equal(
      toVerdict(() => validateContribution(contribution(), "12D3KooWOther", ctx)).verdict,
      "accept",
    );
    // The same author's commit is a different kind from its contribution: not equivocation.
    assert.equal(toVerdict(() => validateCommit(commit(), AUTHOR, ctx)).verdict, "accept");
    assert.equal(
      toVerdict(() => validateCommit(commit({ entries: [], iteration: HEAD + 1 }), AUTHOR, ctx))
        .verdict,
      "accept",
    );
    // A lagging node leaving, a heartbeat at the edge of the window.
    assert.equal(
      toVerdict(() => validateLeave(encodeLeave({ runId: RUN, iteration: 0 }), AUTHOR, ctx))
        .verdict,
      "accept",
    );
    const hb = encodeHeartbeat({
      runId: RUN,
      iteration: HEAD + 2,
      checksum: filled(32, 1),
      joinedAt: 5,
    });
    assert.equal(toVerdict(() => validateHeartbeat(hb, AUTHOR, ctx)).verdict, "accept");
  });

  it("dedupe runs last: a message that fails another check is never recorded", () => {
    let calls = 0;
    const ctx = context({
      seen: () => {
        calls++;
        return "new";
      },
    });
    toVerdict(() => validateContribution(contribution({ iteration: HEAD - 1 }), AUTHOR, ctx));
    toVerdict(() =>
      validateContribution(contribution({ payload: filled(SIZE, 0x80) }), AUTHOR, ctx),
    );
    toVerdict(() => validateContribution(contribution({ runId: OTHER_RUN }), AUTHOR, ctx));
    assert.equal(calls, 0);
    toVerdict(() => validateContribution(contribution(), AUTHOR, ctx));
    assert.equal(calls, 1);
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
    const hb = (iteration: number) => encodeHeartbeat({ runId: RUN, iteration, checksum: filled(32, 1), joinedAt: 5 });
    const ctx = context();
    assert.equal(toVerdict(() => validateHeartbeat(hb(HEAD + ctx.window), AUTHOR, ctx)).verdict, "accept");
    const far = toVerdict(() => validateHeartbeat(hb(HEAD + 1000), AUTHOR, ctx));
    assert.equal(far.verdict, "ignore");
    assert.equal(codeOf(far), "FUTURE_ITERATION");
  });

  it("a commit author that is no peer id is rejected, not thrown (real peer id parsing)", () => {
    // PEER_A is an identity multihash of 36 bytes that are no public key: parsing throws.
    const ctx = context({ authorId: (b) => peerIdOfBytes(b).toString() });
    const res = toVerdict(() => validateCommit(commit(), AUTHOR, ctx));
    assert.equal(res.verdict, "reject");
    assert.equal(codeOf(res), "MALFORMED");
  });

  it("a member run accepts its members' messages, the commit entries of members included", () => {
    const members = new Set([AUTHOR, hex(PEER_A), hex(PEER_B)]);
    const admits = (p: string) => members.has(p);
    const ctx = context({ admits, authorId: memberAuthorId(hex, admits) });
    const gossiped = (kind: "contribution" | "commit", data: Uint8Array) =>
      toVerdict(() => {
        checkMember(AUTHOR, ctx);
        return GOSSIP_VALIDATORS[kind](data, AUTHOR, ctx);
      }).verdict;
    assert.equal(gossiped("contribution", contribution()), "accept");
    assert.equal(gossiped("commit", commit()), "accept");
    // Dropping PEER_B from the members turns the same commit (a new iteration: no dedupe) away.
    members.delete(hex(PEER_B));
    assert.equal(gossiped("commit", commit({ iteration: HEAD + 1 })), "reject");
  });

  it("two authors that normalise to one peer id are a duplicate author", () => {
    // Two byte forms, one id: the check runs on what the chain compares (the normalised id).
    const ctx = context({ authorId: () => "12D3KooWSame" });
    const res = toVerdict(() => validateCommit(commit(), AUTHOR, ctx));
    assert.equal(res.verdict, "reject");
    assert.equal(codeOf(res), "DUPLICATE_AUTHOR");
    // Without normalisation the two byte forms pass: the check is on the id, not the bytes.
    assert.equal(toVerdict(() => validateCommit(commit(), AUTHOR, context({ authorId: (b) => Buffer.from(b).toString("hex") }))).verdict, "accept");
  });
});
