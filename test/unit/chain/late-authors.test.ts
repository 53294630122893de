import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LateAuthors, PACE_WINDOW } from "../../../node/chain/late-authors.js";

describe("LateAuthors (node/chain/late-authors.ts)", () => {
  it("a joiner is late each time; a member once per PACE_WINDOW commits; lags are measured from their round's start", () => {
    const late = new LateAuthors();
    late.afterCommit(0, new Set(["a", "b", "c"]), []);
    late.roundBegins(1, 1000);
    late.note("joiner", 0, 1, ["a", "b", "c"]);
    late.note("c", 0, 1, ["a", "b"]);
    assert.deepEqual(late.recent(1), ["joiner", "c"]);
    // c contributed to round 1 after its commit, 70 ms after that round began here.
    late.heard("c", 1, 1070);
    late.afterCommit(1, new Set(["a", "b"]), ["c"]);
    late.roundBegins(2, 1100);
    assert.deepEqual(late.recent(2), ["joiner", "c"], "still in its two rounds");
    late.afterCommit(2, new Set(["a", "b", "c"]), []);
    late.note("joiner", 1, 3, ["a", "b", "c"]);
    late.note("c", 2, 4, ["a", "b"]);
    assert.deepEqual(late.recent(4), ["joiner"], "a member late again so soon is not waited for as late");
    late.afterCommit(3, new Set(["a", "b"]), []);
    assert.equal(late.lagAt("c", 2), 70);
    assert.deepEqual(late.members(2).sort(), ["a", "b", "c"]);
    // Pipelined: a contribution to a round not begun here yet arrived with no lag.
    late.heard("a", 3, 1110);
    assert.equal(late.lagAt("a", 3), 0);
    // c missed round 2 altogether (dead, or far behind): no lag to wait on.
    late.roundBegins(3, 1200);
    assert.equal(late.lagAt("c", 3), undefined);
    // An older contribution does not replace a newer one's lag.
    late.heard("c", 2, 1250);
    late.heard("c", 1, 1260);
    assert.equal(late.lagAt("c", 3), 150);
  });

  it("members age out after PACE_WINDOW commits; a crowd of signers that are no members keeps no arrival and evicts none", () => {
    const late = new LateAuthors();
    late.afterCommit(0, new Set(["old"]), []);
    for (let t = 1; t <= PACE_WINDOW + 16; t++) late.afterCommit(t, new Set(["x"]), []);
    assert.deepEqual(late.members(PACE_WINDOW + 17), ["x"]);
    late.note("old", PACE_WINDOW + 16, PACE_WINDOW + 17, ["x"]);
    late.note("x", PACE_WINDOW + 16, PACE_WINDOW + 17, []);
    late.note("x", PACE_WINDOW + 16, PACE_WINDOW + 18, []);
    assert.deepEqual(late.recent(PACE_WINDOW + 18), ["old", "x"], "no longer a member: late; a member: late once, not renewed");
    late.afterCommit(PACE_WINDOW + 18, new Set(["old", "x"]), []);
    late.note("x", PACE_WINDOW + 18, PACE_WINDOW + 20, []);
    assert.deepEqual(late.recent(PACE_WINDOW + 20), []);
    for (let t = PACE_WINDOW + 19; t <= 2 * PACE_WINDOW + 33; t++) late.afterCommit(t, new Set(["x"]), []);
    late.note("x", 2 * PACE_WINDOW + 33, 2 * PACE_WINDOW + 34, []);
    assert.deepEqual(late.recent(2 * PACE_WINDOW + 34), ["x"], "late again, PACE_WINDOW commits later");
    late.roundBegins(200, 0);
    late.heard("x", 200, 5);
    for (let i = 0; i < 5000; i++) late.heard(`sybil-${i}`, 200, 1);
    const kept = [...Array(5000).keys()].filter((i) => late.lagAt(`sybil-${i}`, 201) !== undefined || (late as unknown as { arrivals: Map<string, unknown> }).arrivals.has(`sybil-${i}`)).length;
    assert.equal(kept, 0, `${kept} arrivals of non-members kept`);
    assert.equal(late.lagAt("x", 201), 5, "the member's arrival survives the crowd");
  });
});
