/** The refusal cases of gossip validation, part 1: the run, size, iteration, budget, payload, dedupe and newcomer-gate codes. */
import { SeedswarmError } from "../../../protocol/errors.js";
import assert from "node:assert/strict";
import { MAX_MESSAGE_BYTES } from "../../../protocol/limits.js";
import { type GossipErrorCode, toVerdict, type Validated, validateCommit, validateContribution, validateHeartbeat, validateLeave, validateProof } from "../../../protocol/validation.js";
import { signedHeartbeat, signedLeave, signedProof, TEST_JOINED_AT } from "../../helpers/chain-keys.js";
import { filled, OTHER_RUN, RUN } from "./fixtures.js";
import { KEY_A, KEY_B, HEAD, SIZE, context, contribution, commit, after, twice } from "./validation-harness.js";

/** One case: what validating it must answer. */
export type ValidationCase = { verdict: "ignore" | "reject"; run: () => Validated<unknown> };

export const MESSAGE_CASES = {
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
} satisfies Partial<Record<GossipErrorCode, ValidationCase[]>>;
