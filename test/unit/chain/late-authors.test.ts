import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LateAuthors, PACE_WINDOW } from "../../../node/chain/late-authors.js";

describe("LateAuthors (node/chain/late-authors.ts)", () => {
  it("a joiner is late; a member that misses a commit is not, and its lag is measured from its round's start", () => {
    const late = new LateAuthors();
    late.afterCommit(0, new Set(["a", "b", "c"]), []);
    late.roundBegins(1, 1000);
    late.note("joiner", 0, 1, ["a", "b", "c"]);
    late.note("c", 0, 1, ["a", "b"]);
    assert.deepEqual(late.recent(1), ["joiner"]);
    // c contributed to round 1 after its commit, 70 ms after that round began here.
    late.heard("c", 1, 1070);
    late.afterCommit(1, new Set(["a", "b"]), ["c"]);
    late.roundBegins(2, 1100);
    assert.deepEqual(late.recent(2), ["joiner"]);
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

  it("members age out after PACE_WINDOW commits; a crowd of signers keeps at most 1,024 arrivals", () => {
    const late = new LateAuthors();
    late.afterCommit(0, new Set(["old"]), []);
    for (let t = 1; t <= PACE_WINDOW + 16; t++) late.afterCommit(t, new Set(["x"]), []);
    assert.deepEqual(late.members(PACE_WINDOW + 17), ["x"]);
    late.note("old", PACE_WINDOW + 16, PACE_WINDOW + 17, ["x"]);
    assert.deepEqual(late.recent(PACE_WINDOW + 17), ["old"], "no longer a member: late again");
    late.roundBegins(200, 0);
    for (let i = 0; i < 5000; i++) late.heard(`sybil-${i}`, 200, 1);
    late.heard("x", 200, 5);
    const kept = [...Array(5000).keys()].filter((i) => late.lagAt(`sybil-${i}`, 201) !== undefined || (late as unknown as { arrivals: Map<string, unknown> }).arrivals.has(`sybil-${i}`)).length;
    assert.ok(kept <= 1023, `${kept} arrivals kept`);
    assert.equal(late.lagAt("x", 201), 5, "the newest heard is kept");
  });
});
