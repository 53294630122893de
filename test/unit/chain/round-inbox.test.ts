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
    const inbox = new RoundInbox(() => {}, (a) => members.has(a) || a.startsWith("member-"));
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
    const full = new RoundInbox(() => {}, (a) => a.startsWith("member-") || a === "m3");
    for (let i = 0; i < cap; i++) full.addContribution(by(`member-${i}`), 7, parent, 7);
    assert.equal(full.addContribution(by("m3"), 7, parent, 7), "dropped");
    assert.equal(full.authorsAt(7).length, cap);
  });

  it("without a membership view every author is a newcomer: first come, first held, as before", () => {
    const inbox = new RoundInbox(() => {});
    for (let i = 0; i < ROUND_CAPS.contributionsPerIteration; i++) inbox.addContribution(by(`a${i}`), 1, parent, 1);
    assert.equal(inbox.addContribution(by("late"), 1, parent, 1), "dropped");
  });
});
