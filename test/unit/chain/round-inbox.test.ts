import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SignedContribution } from "../../../node/chain/commit.js";
import { ROUND_CAPS, RoundInbox } from "../../../node/chain/round-inbox.js";

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
});
