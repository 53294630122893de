import { SeedswarmError } from "../../../protocol/errors.js";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type CommitMessage,
  type ContributionMessage,
  decodeCommit,
  decodeHeartbeat,
  decodeLeave,
  decodeProof,
  encodeCommit,
  encodeContribution,
  encodeHeartbeat,
  encodeLeave,
  encodeProof,
} from "../../../protocol/codec.js";
import { signCommit } from "../../../node/chain/commit-wire.js";
import { gradientPayloadProblem } from "../../../protocol/gradient-byte.js";
import { MAX_MESSAGE_BYTES } from "../../../protocol/limits.js";
import { checkSignature, MAX_JOINED_AT_AHEAD_MS, MIN_JOINED_AT, peerIdString } from "../../../protocol/signing.js";
import { TOPIC_KINDS } from "../../../protocol/topics.js";
import {
  checkMember,
  GOSSIP_VALIDATORS,
  type GossipContext,
  type GossipErrorCode,
  GossipValidationError,
  toVerdict,
  type Validated,
  validateCommit,
  validateContribution,
  validateHeartbeat,
  validateLeave,
  validateProof,
} from "../../../protocol/validation.js";

import { signedCommit, signedContribution, signedHeartbeat, signedLeave, signedProof, TEST_JOINED_AT, testKeys } from "../../helpers/chain-keys.js";
import { filled, OTHER_RUN, PEER_A, PEER_B, RUN } from "./fixtures.js";

const [KEY_A, KEY_B] = await testKeys(2);
/** Authors whose join times are out of bounds: the epoch, and 2^53-1 (both once accepted into commits). */
const [KEY_EPOCH] = await testKeys(1, () => 0);
const [KEY_FAR] = await testKeys(1, () => Number.MAX_SAFE_INTEGER);

/** The metric label of a verdict (null when accepted). */
/** A fixed clock for the join-time bounds. */
const NOW = Date.UTC(2026, 5, 1);

const codeOf = (v: Validated<unknown>) => (v.verdict === "accept" ? null : v.code);

describe("gossip validation", () => {
  const HEAD = 10;
  const SIZE = 4;
  const AUTHOR = KEY_A.author.id;

  /** A context whose dedupe store is a real map, so "same" and "different" come from data. */
  function context(over: Partial<GossipContext> = {}): GossipContext {
    const store = new Map<string, string[]>();
    return {
      runId: RUN,
      head: HEAD,
      window: 2,
      maxPayloadBytes: SIZE,
      payloadProblem: (p) => gradientPayloadProblem(p, SIZE),
      checkSignature,
      seen: (kind, signer, iteration, data) => {
        const key = `${kind}/${signer}/${iteration}`;
        const hex = Buffer.from(data).toString("hex");
        const prev = store.get(key);
        if (prev === undefined) {
          store.set(key, [hex]);
          return "new";
        }
        if (prev.includes(hex)) return "same";
        if (prev.length >= 3) return "again";
        prev.push(hex);
        return "different";
      },
      ...over,
    };
  }

  /** A contribution signed by KEY_A (or `key`) over its own fields. */
  const contribution = (over: Partial<ContributionMessage> = {}, key = KEY_A) => {
    const m = { runId: RUN, iteration: HEAD, joinedAt: TEST_JOINED_AT, payload: Uint8Array.of(1, 0xff, 0, 127), parentHash: filled(32, 0), ...over };
    const signed = signedContribution({ ...key, author: { ...key.author, joinedAt: m.joinedAt } }, m.runId, m.iteration, m.payload, m.parentHash, m.staleness ?? 0).m;
    return encodeContribution({ ...signed, ...(over.signature ? { signature: over.signature } : {}), ...(over.author ? { author: over.author } : {}) });
  };

  /** KEY_B's valid message of each kind (what the membership and exclusion cases send). */
  function messageOfB(kind: (typeof TOPIC_KINDS)[number]): Uint8Array {
    return {
      contribution: () => contribution({}, KEY_B),
      commit: () => signedCommit(KEY_B, { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0 }, [{ key: KEY_B, payload: filled(SIZE, 2) }]).encoded,
      leave: () => signedLeave(KEY_B, RUN, HEAD),
      heartbeat: () => signedHeartbeat(KEY_B, { runId: RUN, iteration: HEAD, checksum: filled(32, 1), joinedAt: TEST_JOINED_AT }),
      proof: () => signedProof(KEY_B, { runId: RUN, iteration: HEAD - 1, commitHash: filled(32, 4), accused: KEY_A.bytes }),
    }[kind]();
  }

  /** A commit by KEY_A with entries signed by KEY_A and KEY_B (or the given payloads). */
  const commit = (over: { runId?: string; iteration?: number; rank?: number } = {}, payloads = [filled(SIZE, 1), filled(SIZE, 2)]) =>
    signedCommit(
      KEY_A,
      { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0, ...over },
      payloads.map((payload, i) => ({ key: i === 0 ? KEY_A : KEY_B, payload })),
    ).encoded;

  /** A commit whose KEY_B entry was measured one iteration early, on the commit before prevHash. */
  const staleCommit = () =>
    signedCommit(KEY_A, { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0, olderParents: [filled(32, 4)] }, [
      { key: KEY_A, payload: filled(SIZE, 1) },
      { key: KEY_B, payload: filled(SIZE, 2), staleness: 1 },
    ]).encoded;

  /** A commit re-encoded with one change (signatures kept as they were). */
  const tampered = (change: (m: CommitMessage) => CommitMessage) => encodeCommit(change(decodeCommit(commit())));

  /** Validates each of `first` (which must be accepted) then `data`, in one context. */
  function after(first: Uint8Array[], data: Uint8Array, kind: "contribution" | "commit") {
    const ctx = context();
    const validate = kind === "contribution" ? validateContribution : validateCommit;
    for (const f of first) assert.equal(toVerdict(() => validate(f, ctx)).verdict, "accept");
    return toVerdict(() => validate(data, ctx));
  }
  const twice = (first: Uint8Array, data: Uint8Array, kind: "contribution" | "commit") => after([first], data, kind);

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
            validateContribution(contribution({ runId: OTHER_RUN }), context()),
          ),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateCommit(commit({ runId: OTHER_RUN }), context())),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateLeave(signedLeave(KEY_A, OTHER_RUN, 1), context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateHeartbeat(
              signedHeartbeat(KEY_A, {
                runId: OTHER_RUN,
                iteration: 1,
                checksum: filled(32, 1),
                joinedAt: TEST_JOINED_AT,
              }),
              context(),
            ),
          ),
      },
    ],
    MALFORMED: [
      {
        verdict: "reject",
        run: () => toVerdict(() => validateContribution(filled(10, 0xff), context())),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateCommit(contribution(), context())),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateHeartbeat(new Uint8Array(0), context())),
      },
    ],
    TOO_LARGE: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(filled(MAX_MESSAGE_BYTES.contribution + 1, 0), context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() => validateLeave(filled(MAX_MESSAGE_BYTES.leave + 1, 0), context())),
      },
    ],
    OLD_ITERATION: [
      {
        // A proof for an iteration past the exclusion window (16 behind the head): it can no longer be recorded.
        verdict: "ignore",
        run: () => toVerdict(() => validateProof(signedProof(KEY_A, { runId: RUN, iteration: 0, commitHash: filled(32, 4), accused: KEY_B.bytes }), context({ head: 17 }))),
      },
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ iteration: HEAD - 1 }), context()),
          ),
      },
      {
        // An old one of a newcomer (the gate refuses it): no signature checked, no author named
        // (a crowd answering late buys no verification and gives no late-author hint).
        verdict: "ignore",
        run: () => {
          let checked = 0;
          const ctx = context({ newcomers: { passes: () => false, verified: () => {} }, checkSignature: () => (checked++, true) });
          const v = toVerdict(() => validateContribution(contribution({ iteration: HEAD - 1 }), ctx));
          assert.equal(checked, 0, "no signature checked");
          assert.ok(v.verdict !== "accept" && v.error instanceof SeedswarmError && v.error.context.author === undefined, "no author named");
          return v;
        },
      },
      {
        verdict: "ignore",
        run: () => toVerdict(() => validateCommit(commit({ iteration: 0 }), context())),
      },
    ],
    FUTURE_ITERATION: [
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ iteration: HEAD + 3 }), context()),
          ),
      },
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() => validateCommit(commit({ iteration: HEAD + 3 }), context())),
      },
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateLeave(signedLeave(KEY_A, RUN, HEAD + 3), context()),
          ),
      },
    ],
    OVER_BUDGET: [
      {
        // Finding 11: a signer past its notices' rate.
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateHeartbeat(signedHeartbeat(KEY_A, { runId: RUN, iteration: HEAD, checksum: filled(32, 1), joinedAt: TEST_JOINED_AT }), context({ noticeBudget: () => false })),
          ),
      },
      {
        // Finding 5: more newcomer proposers for the iteration than this node verifies entries of.
        verdict: "ignore",
        run: () => toVerdict(() => validateCommit(commit(), context({ mayVerifyEntries: () => false }))),
      },
    ],
    BAD_PAYLOAD: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ payload: filled(SIZE - 1, 1) }), context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ payload: filled(SIZE + 1, 1) }), context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(
              contribution({ payload: Uint8Array.of(1, 2, 0x80, 4) }),
              context(),
            ),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(commit({}, [Uint8Array.of(0x80, 0, 0, 0)]), context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(commit({}, [filled(1, 1)]), context()),
          ),
      },
    ],
    DUPLICATE: [
      { verdict: "ignore", run: () => twice(contribution(), contribution(), "contribution") },
      { verdict: "ignore", run: () => twice(commit(), commit(), "commit") },
    ],
    EQUIVOCATION: [
      {
        // Two further different ones are let through (the rounds hold the pair); past that, ignored.
        verdict: "ignore",
        run: () =>
          after(
            [contribution(), contribution({ payload: filled(SIZE, 9) }), contribution({ joinedAt: TEST_JOINED_AT - 1 })],
            contribution({ parentHash: filled(32, 5) }),
            "contribution",
          ),
      },
      {
        verdict: "ignore",
        run: () => after([commit(), commit({ rank: 1 }), commit({ rank: 2 })], commit({ rank: 3 }), "commit"),
      },
    ],
    // A member run whose only member is AUTHOR: a stranger's message of any kind is refused before
    // it is decoded (garbage included), and so is a member's commit naming a non-member author.


    // A newcomer's contribution that ranks below the newcomers held for its iteration: ignored
    // before its signature is checked (a bad signature is never even looked at).
    NEWCOMER_FULL: [
      {
        verdict: "ignore" as const,
        run: () => {
          let checked = 0;
          const ctx = context({
            newcomers: { passes: () => false, verified: () => {} },
            checkSignature: () => {
              checked++;
              return false;
            },
          });
          const v = toVerdict(() => validateContribution(contribution(), ctx));
          assert.equal(checked, 0, "no signature checked");
          return v;
        },
      },
    ],
    // A commit whose rank (seats, newcomers) this node's admission refutes: ignored once its
    // proposer's signature verified, before a single entry signature is checked.
    INADMISSIBLE: [
      {
        verdict: "ignore" as const,
        run: () => {
          let checked = 0;
          const asked: number[] = [];
          const ctx = context({
            commitProblem: (m) => (asked.push(m.rank), m.rank > 0 ? `claims rank ${m.rank}, holds 0` : null),
            checkSignature: (...a: Parameters<typeof checkSignature>) => (checked++, checkSignature(...a)),
          });
          const v = toVerdict(() => validateCommit(commit({ rank: 3 }), ctx));
          assert.equal(checked, 1, "the proposer's signature only");
          assert.deepEqual(asked, [3]);
          assert.equal(toVerdict(() => validateCommit(commit({ rank: 0, iteration: HEAD + 1 }), ctx)).verdict, "accept", "one that fits is verified whole and accepted");
          return v;
        },
      },
    ],
    // An author our chain excluded: every kind of its message ignored (never a reject: a relayer
    // a commit behind cannot know), before anything is decoded.
    EXCLUDED: TOPIC_KINDS.map((kind) => ({
      verdict: "ignore" as const,
      run: () =>
        toVerdict(() => {
          const ctx = context({ excluded: (p) => p === peerIdString(KEY_B.bytes) });
          return GOSSIP_VALIDATORS[kind](messageOfB(kind), ctx);
        }),
    })),
    NOT_MEMBER: [
      ...TOPIC_KINDS.map((kind) => ({
        verdict: "reject" as const,
        run: () =>
          toVerdict(() => {
            // KEY_B's message of each kind, in a run that admits only KEY_A.
            const ctx = context({ admits: (p) => p === AUTHOR });
            return GOSSIP_VALIDATORS[kind](messageOfB(kind), ctx);
          }),
      })),
      {
        verdict: "reject",
        run: () => {
          // KEY_B, the author of the commit's second entry, is no member.
          const admits = (p: string) => p === AUTHOR;
          const ctx = context({ admits });
          return toVerdict(() => validateCommit(commit(), ctx));
        },
      },
    ],
    DUPLICATE_AUTHOR: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              signedCommit(KEY_A, { runId: RUN, iteration: HEAD, checksum: filled(32, 3), rank: 0 }, [
                { key: KEY_A, payload: filled(SIZE, 1) },
                { key: KEY_A, payload: filled(SIZE, 2) },
              ]).encoded,
              context(),
            ),
          ),
      },
    ],
    NOT_ED25519: [
      {
        // A contribution signed by a peer whose id carries no Ed25519 key (a sha2-256 id).
        verdict: "reject",
        run: () => toVerdict(() => validateContribution(contribution({ author: PEER_B }), context())),
      },
      {
        // An entry author that is an identity multihash of non-key bytes.
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(tampered((m) => ({ ...m, entries: [{ ...m.entries[0], author: PEER_A }] })), context()),
          ),
      },
    ],
    BAD_SIGNATURE: [
      {
        // KEY_A's contribution, naming KEY_B as its author.
        verdict: "reject",
        run: () => toVerdict(() => validateContribution(contribution({ author: KEY_B.bytes }), context())),
      },
      {
        // KEY_A's heartbeat and leave, naming KEY_B: nobody speaks for another peer.
        verdict: "reject",
        run: () =>
          toVerdict(() => {
            const m = decodeHeartbeat(signedHeartbeat(KEY_A, { runId: RUN, iteration: HEAD, checksum: filled(32, 1), joinedAt: TEST_JOINED_AT }));
            return validateHeartbeat(encodeHeartbeat({ ...m, author: KEY_B.bytes }), context());
          }),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() => {
            const m = decodeLeave(signedLeave(KEY_A, RUN, HEAD));
            return validateLeave(encodeLeave({ ...m, author: KEY_B.bytes }), context());
          }),
      },
      {
        // KEY_A's proof naming KEY_B as its auditor.
        verdict: "reject",
        run: () =>
          toVerdict(() => {
            const m = decodeProof(signedProof(KEY_A, { runId: RUN, iteration: HEAD - 1, commitHash: filled(32, 4), accused: PEER_B }));
            return validateProof(encodeProof({ ...m, author: KEY_B.bytes }), context());
          }),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateContribution(contribution({ signature: filled(64, 7) }), context())),
      },
      {
        // An entry's payload altered after its author signed it.
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              tampered((m) => ({ ...m, entries: [{ ...m.entries[0], payload: filled(SIZE, 4) }, m.entries[1]] })),
              context(),
            ),
          ),
      },
      {
        // The commit's rank changed after the proposer signed.
        verdict: "reject",
        run: () => toVerdict(() => validateCommit(tampered((m) => ({ ...m, rank: 1 })), context())),
      },
    ],
    NOT_CANONICAL: [
      {
        // A field sent twice: protobuf takes the last, so it decodes, but the bytes differ.
        verdict: "reject",
        run: () => toVerdict(() => validateContribution(Uint8Array.from([...contribution(), 0x10, HEAD]), context())),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateCommit(Uint8Array.from([...commit(), 0x10, HEAD]), context())),
      },
    ],
    BAD_JOINED_AT: [
      ...[0, 1, MIN_JOINED_AT - 1, Number.MAX_SAFE_INTEGER].map((joinedAt) => ({
        verdict: "reject" as const,
        run: () => toVerdict(() => validateContribution(contribution({ joinedAt }), context())),
      })),
      {
        // More than an hour ahead of our clock (clock skew between honest hosts is less).
        verdict: "reject",
        run: () => toVerdict(() => validateContribution(contribution({ joinedAt: NOW + MAX_JOINED_AT_AHEAD_MS + 1 }), context({ now: NOW }))),
      },
      ...[KEY_EPOCH, KEY_FAR].map((key) => ({
        // A commit entry signed by its author over an out-of-bounds join time: the commit path checks it too.
        verdict: "reject" as const,
        run: () =>
          toVerdict(() =>
            validateCommit(
              signedCommit(KEY_A, { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0 }, [
                { key: KEY_A, payload: filled(SIZE, 1) },
                { key, payload: filled(SIZE, 2) },
              ]).encoded,
              context(),
            ),
          ),
      })),
      {
        verdict: "reject",
        run: () => toVerdict(() => validateHeartbeat(signedHeartbeat(KEY_A, { runId: RUN, iteration: HEAD, checksum: filled(32, 1), joinedAt: 0 }), context())),
      },
    ],
    BAD_PARENTS: [
      {
        // A contribution measured a step early, in a run without pipelined rounds.
        verdict: "reject",
        run: () => toVerdict(() => validateContribution(contribution({ staleness: 1 }), context())),
      },
      {
        // The same entry in a commit, parents and all: the run still does not pipeline.
        verdict: "reject",
        run: () => toVerdict(() => validateCommit(staleCommit(), context())),
      },
      {
        // A proposer padding its commit with an older parent no entry names.
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              signedCommit(KEY_A, { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0, olderParents: [filled(32, 5)] }, [{ key: KEY_A, payload: filled(SIZE, 1) }]).encoded,
              context({ maxStaleness: 2 }),
            ),
          ),
      },
    ],
    BAD_EXCLUSION: [
      {
        // A proof accusing its own auditor.
        verdict: "reject",
        run: () => toVerdict(() => validateProof(signedProof(KEY_A, { runId: RUN, iteration: HEAD - 1, commitHash: filled(32, 4), accused: KEY_A.bytes }), context())),
      },
      {
        // KEY_B has an entry in the very commit that excludes it.
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              signedCommit(
                KEY_A,
                { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0, exclusions: [{ author: KEY_B.author.id, iteration: HEAD - 1 }] },
                [filled(SIZE, 1), filled(SIZE, 2)].map((payload, i) => ({ key: i === 0 ? KEY_A : KEY_B, payload })),
              ).encoded,
              context(),
            ),
          ),
      },
      {
        // An offence not before the excluding commit (the window's other end is in codec.test).
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              signedCommit(
                KEY_A,
                { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0, exclusions: [{ author: KEY_B.author.id, iteration: HEAD }] },
                [{ key: KEY_A, payload: filled(SIZE, 1) }],
              ).encoded,
              context(),
            ),
          ),
      },
    ],
    ENTRY_ORDER: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() => {
            const m = decodeCommit(commit());
            // Re-signed by the proposer over the swapped order: only the order check can catch it.
            const entries = [m.entries[1], m.entries[0]].map((e) => ({
              author: { id: peerIdString(e.author), joinedAt: e.joinedAt },
              payload: e.payload,
              signature: e.signature,
            }));
            const resigned = signCommit(
              { runId: RUN, iteration: HEAD, prevHash: m.prevHash, checksum: m.checksum, rank: 0, proposer: AUTHOR, entries },
              KEY_A.sign,
            );
            return validateCommit(resigned.encoded, context());
          }),
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
