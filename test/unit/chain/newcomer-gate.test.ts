import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NEWCOMER_HOLD, NewcomerGate } from "../../../node/chain/newcomer-gate.js";

describe("NewcomerGate (findings 1 and 5: a crowd of newcomers costs few signature checks)", () => {
  it("members always pass; of 1,024 newcomers in random order only about NEWCOMER_HOLD x ln(n / HOLD) are verified", () => {
    const gate = new NewcomerGate("ab".repeat(32), () => 10, (a) => a.startsWith("member"));
    assert.ok(gate.passes("member-1", 10));
    let verified = 0;
    for (let i = 0; i < 1024; i++) {
      const author = `sybil-${i}`;
      if (!gate.passes(author, 10)) continue;
      verified++;
      gate.verified(author, 10);
    }
    const expected = NEWCOMER_HOLD * (1 + Math.log(1024 / NEWCOMER_HOLD));
    assert.ok(verified < 2 * expected, `${verified} verified (about ${expected.toFixed(0)} expected)`);
    assert.ok(verified >= NEWCOMER_HOLD);
    assert.ok(gate.passes("member-2", 10), "members still pass once full");
    assert.ok(gate.passes("sybil-x", 11), "another iteration has its own list");
  });

  it("a list is forgotten once its iteration is applied; a newcomer of an older iteration never passes (unverified, however late a crowd answers)", () => {
    let head = 5;
    const gate = new NewcomerGate("ab".repeat(32), () => head, () => false);
    for (let i = 0; i < NEWCOMER_HOLD; i++) gate.verified(`n${i}`, 5);
    const refused = Array.from({ length: 500 }, (_, i) => `late${i}`).filter((a) => !gate.passes(a, 5)).length;
    assert.ok(refused > 0, "full for 5");
    head = 6;
    for (let i = 0; i < NEWCOMER_HOLD; i++) gate.verified(`n${i}`, 6);
    assert.ok(refused > 0 && Array.from({ length: 500 }, (_, i) => `late${i}`).some((a) => gate.passes(a, 5)), "5, just applied, is still gated by its list");
    head = 7;
    assert.equal(Array.from({ length: 50 }, (_, i) => `x${i}`).filter((a) => gate.passes(a, 5)).length, 0, "a newcomer of an iteration before the one just applied never passes");
    assert.equal(Array.from({ length: 50 }, (_, i) => `late${i}`).filter((a) => !gate.passes(a, 7)).length, 0, "nothing held for 7");
  });
});
