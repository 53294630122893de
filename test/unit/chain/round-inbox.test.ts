import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chained, type SignedContribution } from "../../../node/chain/commit.js";
import { HELD_COMMIT_BYTES, HELD_CONTRIBUTION_BYTES, ROUND_CAPS, RoundInbox } from "../../../node/chain/round-inbox.js";
import { FUTURE_ITERATIONS, MAX_PAYLOAD_BYTES } from "../../../protocol/limits.js";
import { signedCommit, testKeys } from "../../helpers/chain-keys.js";

const parent = new Uint8Array(32).fill(1);
/** A contribution by `id` (signatures are the validator's: not checked here). */
const by = (id: string): SignedContribution => ({ author: { id, joinedAt: 2 }, payload: new Uint8Array(8), signature: new Uint8Array(64) });

describe("RoundInbox (node/chain/round-inbox.ts)", () => {
  it("attack 7: at an iteration's cap, a member's contribution takes the place of a newcomer's; newcomers and a cap full of members drop", () => {
    const members = new Set(["m1", "m2"]);
    // A draw that never lands on a held slot: newcomers past the cap drop (the reservoir's draw is tested below).
    const inbox = new RoundInbox(() => {}, (a) => members.has(a) || a.startsWith("member-"), (n) => n - 1);
    const cap = ROUND_CAPS.contributionsPerIteration;
    // Sybils arrive first and fill the iteration.
    for (let i = 0; i < cap; i++) assert.equal(inbox.addContribution(by(`sybil-${i}`), 5, parent, 5), "held");
    assert.equal(inbox.addContribution(by("sybil-late"), 5, parent, 5), "dropped", "a newcomer past the cap");
    assert.equal(inbox.addContribution(by("m1"), 5, parent, 5), "held", "a member displaces a newcomer");
    assert.equal(inbox.addContribution(by("m2"), 5, parent, 5), "held");
    const authors = inbox.authorsAt(5);
    assert.equal(authors.length, cap, "still capped");
    assert.ok(authors.includes("m1") && authors.includes("m2"));
    assert.ok(!authors.includes(`sybil-${cap - 1}`) && !authors.includes(`sybil-${cap - 2}`), "the newest newcomers gave way");
    assert.equal([...inbox.usable(5, [parent]).keys()].filter((a) => members.has(a)).length, 2, "both members usable for the round");
    // A cap full of members: nobody displaces anybody.
    const full = new RoundInbox(() => {}, (a) => a.startsWith("member-") || a === "m3", (n) => n - 1);
    for (let i = 0; i < cap; i++) full.addContribution(by(`member-${i}`), 7, parent, 7);
    assert.equal(full.addContribution(by("m3"), 7, parent, 7), "dropped");
    assert.equal(full.authorsAt(7).length, cap);
  });

  it("newcomers past the cap: a uniform sample of all offered, so Sybils that arrive first cannot lock an honest joiner out", () => {
    const cap = ROUND_CAPS.contributionsPerIteration;
    // Each round: a full cap of Sybils first, then the honest joiner, then as many Sybils again.
    // First come, first held, the joiner is never held; sampled, it is held with chance
    // cap / (2 cap + 1), about 1/2, each round (20 rounds all missing it: about 1 in 10^6).
    const rounds = (inbox: RoundInbox) => {
      let held = 0;
      for (let t = 0; t < 20; t++) {
        for (let i = 0; i < cap; i++) inbox.addContribution(by(`sybil-${t}-${i}`), t, parent, t);
        inbox.addContribution(by("honest"), t, parent, t);
        for (let i = cap; i < 2 * cap; i++) inbox.addContribution(by(`sybil-${t}-${i}`), t, parent, t);
        assert.equal(inbox.authorsAt(t).length, cap, "still capped");
        if (inbox.authorsAt(t).includes("honest")) held++;
      }
      return held;
    };
    assert.equal(rounds(new RoundInbox(() => {}, () => false, (n) => n - 1)), 0, "first come, first held");
    const sampled = rounds(new RoundInbox(() => {}));
    assert.ok(sampled >= 1, `held in ${sampled} of 20 rounds`);
    // Uniform over arrival order: of the cap held, the first-come half has about half.
    const inbox = new RoundInbox(() => {});
    for (let i = 0; i < 2 * cap; i++) inbox.addContribution(by(`s${i}`), 1, parent, 1);
    const early = inbox.authorsAt(1).filter((a) => Number(a.slice(1)) < cap).length;
    assert.ok(early > 0.4 * cap && early < 0.6 * cap, `${early} of ${cap} held arrived in the first half`);
    // A member is never the one a newcomer's draw displaces.
    const withMember = new RoundInbox(() => {}, (a) => a === "m", () => 0);
    withMember.addContribution(by("m"), 2, parent, 2);
    for (let i = 1; i < cap; i++) withMember.addContribution(by(`s${i}`), 2, parent, 2);
    assert.equal(withMember.addContribution(by("late"), 2, parent, 2), "dropped", "the draw landed on the member's slot");
    assert.ok(withMember.authorsAt(2).includes("m"));
  });

  it("finding 4: 20,000 adds from many signers cost O(1) each: the last adds, at the budget, cost about what the first did", () => {
    const inbox = new RoundInbox(() => {});
    const head = 100;
    /** Microseconds per add of `n` adds from fresh signers, spread over the window. */
    let next = 0;
    const batch = (n: number) => {
      const start = performance.now();
      for (let i = 0; i < n; i++, next++) inbox.addContribution(by(`sybil-${next}`), head + 1 + (next % FUTURE_ITERATIONS), parent, head);
      return ((performance.now() - start) * 1000) / n;
    };
    batch(500); // warm the JIT
    const early = Math.min(batch(500), batch(500), batch(500));
    batch(20_000 - next);
    assert.ok(inbox.held().contributions >= 0.99 * Math.min(20_000, ROUND_CAPS.contributions), `held ${inbox.held().contributions}`);
    const late = Math.min(batch(500), batch(500), batch(500));
    // The scan this replaces made the 20,000th add ~100x dearer than the 500th (~5 ms vs ~50 us).
    assert.ok(late < 5 * early + 20, `per add: ${early.toFixed(1)} us at ~1k held, ${late.toFixed(1)} us at ${inbox.held().contributions} held`);
    assert.ok(late < 200, `per add at the budget: ${late.toFixed(1)} us`);
  });

  it("finding 4: the count and byte budgets bound what is held, whatever is offered; members and nearer iterations displace far newcomers", () => {
    const members = new Set(["m1", "m2"]);
    const inbox = new RoundInbox(() => {}, (a) => members.has(a));
    const head = 10;
    const big = (id: string): SignedContribution => ({ author: { id, joinedAt: 2 }, payload: new Uint8Array(MAX_PAYLOAD_BYTES), signature: new Uint8Array(64) });
    let maxCount = 0;
    let maxBytes = 0;
    for (let i = 0; i < 30_000; i++) {
      inbox.addContribution(i % 8 ? big(`s${i}`) : by(`s${i}`), head + 1 + (i % FUTURE_ITERATIONS), parent, head);
      const h = inbox.held();
      maxCount = Math.max(maxCount, h.contributions);
      maxBytes = Math.max(maxBytes, h.contributionBytes);
    }
    assert.ok(maxCount <= ROUND_CAPS.contributions, `count ${maxCount}`);
    assert.ok(maxBytes <= ROUND_CAPS.contributionBytes, `bytes ${maxBytes}`);
    assert.ok(maxBytes > 0.9 * ROUND_CAPS.contributionBytes, "the flood reached the byte budget");
    // Beyond the window nothing is held at all.
    assert.equal(inbox.addContribution(by("far"), head + FUTURE_ITERATIONS + 1, parent, head), "dropped");
    // Full: a newcomer for the farthest iteration drops; a member's, and a newcomer's for the
    // current round, take the place of far newcomers'.
    assert.equal(inbox.addContribution(big("late"), head + FUTURE_ITERATIONS, parent, head), "dropped");
    assert.equal(inbox.addContribution(big("m1"), head + FUTURE_ITERATIONS, parent, head), "held");
    assert.equal(inbox.addContribution(big("joiner"), head, parent, head), "held");
    assert.ok(inbox.authorsAt(head).includes("joiner"));
    assert.ok(inbox.held().contributionBytes <= ROUND_CAPS.contributionBytes);
    // Each held one is counted at its payload plus a fixed cost.
    const one = new RoundInbox(() => {});
    one.addContribution(by("a"), 1, parent, 1);
    assert.equal(one.held().contributionBytes, 8 + HELD_CONTRIBUTION_BYTES);
    // Dropping a round gives its count and bytes back, and the per-signer counters with them.
    inbox.dropContributionsBefore(head + FUTURE_ITERATIONS + 1);
    assert.deepEqual([inbox.held().contributions, inbox.held().contributionBytes], [0, 0]);
  });

  it("finding 4: future commits are held as their bytes, within the window and a global budget", async () => {
    const keys = await testKeys(40);
    const member = keys[0];
    const inbox = new RoundInbox(() => {}, (a) => a === member.author.id);
    const runId = "a".repeat(64);
    const payload = new Uint8Array(16);
    const commitAt = (k: (typeof keys)[number], iteration: number, rank = 0) =>
      signedCommit(k, { runId, iteration, checksum: new Uint8Array(32), rank }, [{ key: k, payload }]);
    const head = 5;
    assert.equal(inbox.addPendingCommit(commitAt(keys[1], head + FUTURE_ITERATIONS + 1), head), "dropped", "past the window");
    let max = 0;
    for (const [i, k] of keys.slice(1).entries())
      for (let t = head + 1; t <= head + FUTURE_ITERATIONS; t++) {
        inbox.addPendingCommit(commitAt(k, t, i), head);
        max = Math.max(max, inbox.held().commits);
      }
    assert.ok(max <= ROUND_CAPS.pendingCommits, `held ${max}`);
    assert.equal(inbox.held().commits, Math.min(ROUND_CAPS.pendingCommits, FUTURE_ITERATIONS * ROUND_CAPS.pendingCommitsPerIteration));
    // Held compactly: counted at their encoded bytes, and decoded again at their turn, same hash.
    const c = commitAt(member, head + 1, 1);
    const fresh = new RoundInbox(() => {});
    fresh.addPendingCommit(c, head);
    assert.equal(fresh.held().commitBytes, c.encoded.byteLength + HELD_COMMIT_BYTES);
    const [back] = fresh.takePending(head + 1);
    assert.deepEqual(chained(back).hash, chained(c).hash);
    assert.equal(back.commit.proposer, member.author.id);
    assert.equal(fresh.held().commits, 0);
    // Below the head at their turn: dropped, their count and bytes given back.
    inbox.dropPendingBefore(head + FUTURE_ITERATIONS + 1);
    assert.deepEqual([inbox.held().commits, inbox.held().commitBytes], [0, 0]);
  });
});
