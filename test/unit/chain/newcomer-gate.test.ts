import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LATE_BACK, NEWCOMER_HOLD, NEWCOMER_VERIFY_BUDGET, NewcomerGate } from "../../../node/chain/newcomer-gate.js";
import { sha256Hex } from "../../../protocol/bytes.js";

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

  it("sent worst first, a crowd's newcomers cost NEWCOMER_VERIFY_BUDGET checks an iteration at most", () => {
    const runId = "ab".repeat(32);
    const gate = new NewcomerGate(runId, () => 10, () => false);
    const crowd = Array.from({ length: 1024 }, (_, i) => `sybil-${i}`).sort((a, b) => (sha256Hex(`${runId}/10/${a}`) < sha256Hex(`${runId}/10/${b}`) ? 1 : -1));
    let checked = 0;
    for (const a of crowd) {
      if (!gate.passes(a, 10)) continue;
      checked++;
      gate.verified(a, 10);
    }
    assert.equal(checked, NEWCOMER_VERIFY_BUDGET);
  });

  it("late newcomers pass within LATE_BACK iterations behind the one just applied, never farther", () => {
    let head = 5;
    const gate = new NewcomerGate("ab".repeat(32), () => head, () => false);
    for (let i = 0; i < NEWCOMER_HOLD; i++) gate.verified(`n${i}`, 5);
    head = 100;
    const late = 100 - 1 - LATE_BACK;
    assert.ok(gate.passes("joiner", late), "a joiner behind a chain's fast starter is checked (its hint gets it waited for)");
    assert.ok(!gate.passes("joiner", late - 1), "one farther is not");
    assert.ok(gate.passes("member-x", 0) === false && new NewcomerGate("ab".repeat(32), () => head, () => true).passes("member-x", 0), "members pass at any iteration");
  });
});
