/** The refusal cases of gossip validation, part 2: admission, membership, authors, signatures, encodings, join times, parents, exclusions and entry order. */
import assert from "node:assert/strict";
import { decodeCommit, decodeHeartbeat, decodeLeave, decodeProof, encodeHeartbeat, encodeLeave, encodeProof } from "../../../protocol/codec.js";
import { signCommit } from "../../../node/chain/commit-wire.js";
import { checkSignature, MAX_JOINED_AT_AHEAD_MS, MIN_JOINED_AT, peerIdString } from "../../../protocol/signing.js";
import { TOPIC_KINDS } from "../../../protocol/topics.js";
import { GOSSIP_VALIDATORS, type GossipErrorCode, toVerdict, validateCommit, validateContribution, validateHeartbeat, validateLeave, validateProof } from "../../../protocol/validation.js";
import { signedCommit, signedHeartbeat, signedLeave, signedProof, TEST_JOINED_AT } from "../../helpers/chain-keys.js";
import { filled, PEER_A, PEER_B, RUN } from "./fixtures.js";
import { KEY_A, KEY_B, KEY_EPOCH, KEY_FAR, NOW, HEAD, SIZE, AUTHOR, context, contribution, messageOfB, commit, staleCommit, tampered } from "./validation-harness.js";
import type { ValidationCase } from "./validation-cases-message.js";

export const AUTHOR_CASES = {
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
} satisfies Partial<Record<GossipErrorCode, ValidationCase[]>>;
