import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LateAuthors, MAX_LATE_NEWCOMERS, NEWCOMER_BURST_ROUNDS, NEWCOMER_REFILL_TIMEOUTS, PACE_WINDOW } from "../../../node/chain/late-authors.js";

/** The newcomer gap these tests give LateAuthors (ms). */
const GAP = 1000;
/** A clock for the tests that are not about the gap: each call is 10 gaps after the last. */
const tick = (() => {
  let t = 0;
  return () => (t += 10 * GAP);
})();

describe("LateAuthors (node/chain/late-authors.ts)", () => {
  it("a joiner is late each time; a member once per PACE_WINDOW commits; lags are measured from their round's start", () => {
    const late = new LateAuthors(GAP);
    late.afterCommit(0, new Set(["a", "b", "c"]), [], tick());
    late.roundBegins(1, 1000);
    assert.equal(late.note("joiner", -1, 1, ["a", "b", "c"], tick()), "no", "a newcomer's first late contribution: not waited for yet");
    late.note("joiner", 0, 1, ["a", "b", "c"], tick());
    late.note("c", 0, 1, ["a", "b"], tick());
    assert.deepEqual(late.recent(1), ["joiner", "c"]);
    // c contributed to round 1 after its commit, 70 ms after that round began here.
    late.heard("c", 1, 1070);
    late.afterCommit(1, new Set(["a", "b"]), ["c"], tick());
    late.roundBegins(2, 1100);
    assert.deepEqual(late.recent(2), ["joiner", "c"], "still in its two rounds");
    late.afterCommit(2, new Set(["a", "b", "c"]), [], tick());
    late.note("joiner", 1, 3, ["a", "b", "c"], tick());
    late.note("c", 2, 4, ["a", "b"], tick());
    assert.deepEqual(late.recent(4), ["joiner"], "a member late again so soon is not waited for as late");
    late.afterCommit(3, new Set(["a", "b"]), [], tick());
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
    const late = new LateAuthors(GAP);
    late.afterCommit(0, new Set(["old"]), [], tick());
    for (let t = 1; t <= PACE_WINDOW + 16; t++) late.afterCommit(t, new Set(["x"]), [], tick());
    assert.deepEqual(late.members(PACE_WINDOW + 17), ["x"]);
    late.note("old", PACE_WINDOW + 15, PACE_WINDOW + 17, ["x"], tick());
    late.note("old", PACE_WINDOW + 16, PACE_WINDOW + 17, ["x"], tick());
    late.note("x", PACE_WINDOW + 16, PACE_WINDOW + 17, [], tick());
    late.note("x", PACE_WINDOW + 16, PACE_WINDOW + 18, [], tick());
    assert.deepEqual(late.recent(PACE_WINDOW + 18), ["old", "x"], "no longer a member: late; a member: late once, not renewed");
    late.afterCommit(PACE_WINDOW + 18, new Set(["old", "x"]), [], tick());
    late.note("x", PACE_WINDOW + 18, PACE_WINDOW + 20, [], tick());
    assert.deepEqual(late.recent(PACE_WINDOW + 20), []);
    for (let t = PACE_WINDOW + 19; t <= 2 * PACE_WINDOW + 33; t++) late.afterCommit(t, new Set(["x"]), [], tick());
    late.note("x", 2 * PACE_WINDOW + 33, 2 * PACE_WINDOW + 34, [], tick());
    assert.deepEqual(late.recent(2 * PACE_WINDOW + 34), ["x"], "late again, PACE_WINDOW commits later");
    late.roundBegins(200, 0);
    late.heard("x", 200, 5);
    for (let i = 0; i < 5000; i++) late.heard(`sybil-${i}`, 200, 1);
    const kept = [...Array(5000).keys()].filter((i) => late.lagAt(`sybil-${i}`, 201) !== undefined || (late as unknown as { arrivals: Map<string, unknown> }).arrivals.has(`sybil-${i}`)).length;
    assert.equal(kept, 0, `${kept} arrivals of non-members kept`);
    assert.equal(late.lagAt("x", 201), 5, "the member's arrival survives the crowd");
  });

  it("attack 9: a newcomer late once is not waited for; rounds that wait for newcomers in vain draw on a budget (a burst, then one per NEWCOMER_REFILL_TIMEOUTS timeouts); included newcomers cost nothing", () => {
    const late = new LateAuthors(GAP);
    const members = ["n1", "n2"];
    // The swarm's first nodes are newcomers: waited for, included, nothing spent.
    for (const it of [-1, 0]) for (const n of members) late.note(n, it, 1, [], 0);
    assert.deepEqual(late.recent(1).sort(), members);
    for (let t = 1; t <= 40; t++) late.afterCommit(t, new Set(members), [], 0);
    // Fresh keys that send once are never waited for, and cost no budget.
    assert.deepEqual(new Set([...Array(20).keys()].map((i) => late.note(`once-${i}`, 39, 41, members, 0))), new Set(["no"]));
    // A crowd of keys late twice: MAX_LATE_NEWCOMERS are waited for at once, the rest refused.
    for (let i = 0; i < 20; i++) late.note(`sybil-${i}`, 39, 41, members, 0);
    const verdicts = [...Array(20).keys()].map((i) => late.note(`sybil-${i}`, 40, 41, members, 0));
    assert.equal(verdicts.filter((v) => v === "late").length, MAX_LATE_NEWCOMERS);
    // New keys late twice round after round, none ever included: NEWCOMER_BURST_ROUNDS vain rounds, then refused.
    let head = 41;
    const lateRounds = () => {
      let n = 0;
      for (let i = 0; i < 40; i++, head++) {
        if (late.recent(head).length > 0) n++;
        late.note(`fresh-${head}`, head - 3, head, members, 0);
        late.note(`fresh-${head}`, head - 2, head, members, 0);
        late.afterCommit(head, new Set(members), [], 0);
      }
      return n;
    };
    assert.equal(lateRounds(), NEWCOMER_BURST_ROUNDS, "the burst, then no waits");
    late.note("fresh-x", head - 3, head, members, 0);
    assert.equal(late.note("fresh-x", head - 2, head, members, 0), "refused");
    assert.equal(late.note("fresh-x", head - 2, head, members, NEWCOMER_REFILL_TIMEOUTS * GAP - 1), "refused", "not yet refilled");
    assert.equal(late.note("fresh-x", head - 2, head, members, NEWCOMER_REFILL_TIMEOUTS * GAP), "late", "one round refilled");
    // Members are not limited by the newcomers' budget.
    late.afterCommit(head, new Set(members), [], NEWCOMER_REFILL_TIMEOUTS * GAP);
    late.note("fresh-y", head - 2, head + 1, members, NEWCOMER_REFILL_TIMEOUTS * GAP);
    assert.equal(late.note("fresh-y", head - 1, head + 1, members, NEWCOMER_REFILL_TIMEOUTS * GAP), "refused", "spent again");
    assert.equal(late.note("n1", head - 1, head + 1, ["n2"], NEWCOMER_REFILL_TIMEOUTS * GAP), "late");
    // A joiner catching up is waited for round after round while the budget lasts; once in, a member.
    const later = 100 * NEWCOMER_REFILL_TIMEOUTS * GAP;
    head += 2;
    late.note("joiner", head - 2, head, members, later);
    for (let i = 0; i < NEWCOMER_BURST_ROUNDS - 1; i++, head++) {
      assert.equal(late.note("joiner", head - 1, head, members, later), "late", `round ${i}`);
      late.afterCommit(head, new Set(members), [], later);
    }
    late.afterCommit(head, new Set([...members, "joiner"]), [], later);
    head++;
    assert.deepEqual(late.members(head).sort(), ["joiner", ...members]);
    late.note("next", head - 2, head, [...members, "joiner"], later);
    assert.equal(late.note("next", head - 1, head, [...members, "joiner"], later), "late", "the budget's last round");
  });

  it("a joiner chasing a chain's fast starter, late at iterations it skipped between (2, then 8, with the head at 17), is waited for", () => {
    const late = new LateAuthors(GAP);
    for (let t = 0; t <= 16; t++) late.afterCommit(t, new Set(["starter"]), [], 0);
    assert.equal(late.note("chaser", 2, 17, ["starter"], 0), "no", "one sighting");
    assert.equal(late.note("chaser", 8, 17, ["starter"], 0), "late", "a second one, 6 iterations on");
    assert.deepEqual(late.recent(17), ["chaser"]);
    assert.equal(late.note("other", 20, 30, ["starter"], 0), "no");
    assert.equal(late.note("other", 20 + 65, 90, ["starter"], 0), "no", "sightings farther apart than the late window are two first ones");
  });
});
