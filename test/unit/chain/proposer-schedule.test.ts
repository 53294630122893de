import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { quorumIn } from "../../../node/chain/proposer-schedule.js";

describe("proposer schedule: the quorum rule", () => {
  it("a strict majority of 3 or more expected authors is a quorum; of 2, or half, it is not", () => {
    assert.ok(quorumIn(["a", "b", "c"], new Set(["a", "b"]), new Set()));
    assert.ok(!quorumIn(["a", "b", "c", "d"], new Set(["a", "b"]), new Set()));
    assert.ok(!quorumIn(["a", "b"], new Set(["a"]), new Set()));
  });

  it("every proven expected author in is a quorum against a crowd of unproven members that withhold", () => {
    const crowd = Array.from({ length: 20 }, (_, i) => `s${i}`);
    const proven = new Set(["a", "b", "c"]);
    assert.ok(quorumIn(["a", "b", "c", ...crowd], new Set(["a", "b", "c"]), proven));
    assert.ok(!quorumIn(["a", "b", "c", ...crowd], new Set(["a", "b"]), proven), "a proven author still missing");
    assert.ok(quorumIn(["a", ...crowd], new Set(["a"]), new Set(["a"])), "a lone honest node against a crowd");
  });

  it("a crowd of unproven members that send at once is no majority without most of the proven (issue 44, sybil_crowd_honest_share)", () => {
    const crowd = Array.from({ length: 64 }, (_, i) => `s${i}`);
    const proven = new Set(["a", "b", "c"]);
    const expected = ["a", "b", "c", ...crowd];
    assert.ok(!quorumIn(expected, new Set(["a", ...crowd]), proven), "one proven author and the crowd");
    assert.ok(quorumIn(expected, new Set(["a", "b", ...crowd]), proven), "two of three proven and the crowd");
    assert.ok(quorumIn(["a", "b", "c", "d", "e"], new Set(["a", "b", "d"]), new Set()), "before any proposer is proven, a majority of all");
  });

  it("a proposer whose proven peers were dropped from the last commit is no quorum by itself", () => {
    // The last commit held only a (proven) and x (unproven): a's own entry is not a quorum while
    // b and c, proven too, are out of the expected; a waits for x as before.
    const proven = new Set(["a", "b", "c"]);
    assert.ok(!quorumIn(["a", "x"], new Set(["a"]), proven));
    assert.ok(!quorumIn(["a", "x", "y"], new Set(["a"]), proven));
    assert.ok(quorumIn(["a", "b", "x", "y", "z"], new Set(["a", "b"]), proven), "two of three proven are most of them");
  });
});
