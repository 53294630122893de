import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ChainedCommit, type Commit, ZERO_HASH } from "../../../node/chain/commit.js";
import { endorsements, preferredAtStartBecause, preferredBecause, prefers, prefersAtStart } from "../../../node/chain/fork-choice.js";

const RUN = "ab".repeat(32);
const hash = (b: number) => new Uint8Array(32).fill(b);

function commit(iteration: number, rank: number, prevHash: Uint8Array, authors: string[]): Commit {
  return {
    runId: RUN,
    iteration,
    prevHash,
    rank,
    proposer: authors[0] ?? "p",
    checksum: new Uint8Array(32),
    entries: authors.map((id, i) => ({ author: { id, joinedAt: i }, payload: Uint8Array.of(i), signature: new Uint8Array(64) })),
  };
}
const at = (c: Commit, h: Uint8Array): ChainedCommit => ({ commit: c, encoded: new Uint8Array(0), hash: h });

// Commit 30 had authors A, B, C. C proposed 31 at rank 0 and froze before anyone got it; A and
// B committed 31 at the fallback rank and built 32 on it.
const eligible = new Set(["A", "B", "C"]);
const late = at(commit(31, 0, ZERO_HASH, ["A", "B", "C"]), hash(2));
const swarm = at(commit(31, 1, ZERO_HASH, ["A", "B"]), hash(1));
const swarmNext = commit(32, 0, hash(1), ["A", "B", "X", "Y", "Z"]);

describe("deep fork choice", () => {
  it("a late rank-0 commit nobody built on loses to the chain the swarm built, on both sides", () => {
    assert.equal(prefers({ at: swarm, next: swarmNext }, { at: late }, eligible), true);
    assert.equal(prefers({ at: late }, { at: swarm, next: swarmNext }, eligible), false);
  });

  it("only authors of the shared commit t-1 count: identities made later (X, Y, Z) add nothing", () => {
    assert.equal(endorsements({ at: swarm, next: swarmNext }, eligible), 2);
    const sybils = commit(32, 0, hash(2), ["C", "S1", "S2", "S3", "S4", "S5"]);
    assert.equal(endorsements({ at: late, next: sybils }, eligible), 1);
    assert.equal(prefers({ at: late, next: sybils }, { at: swarm, next: swarmNext }, eligible), false);
  });

  it("pipelined: a stale entry of t+1 (signed over the shared t-1) is no vote; one of t+2 signed over the side's t is", () => {
    const staleAt = (c: Commit, stale: string[]): Commit => ({ ...c, entries: c.entries.map((e) => (stale.includes(e.author.id) ? { ...e, staleness: 1 } : e)) });
    // A and B measured 32 before 31 existed: their entries in 32 vote for nothing.
    const next = staleAt(commit(32, 0, hash(1), ["A", "B", "C"]), ["A", "B"]);
    assert.equal(endorsements({ at: swarm, next }, eligible), 1);
    // Their entries in 33 were measured after 31 (older parent 0 = hash of 31): votes for 31.
    const afterNext = { ...staleAt(commit(33, 0, hash(3), ["A", "B"]), ["A", "B"]), olderParents: [hash(1)] };
    assert.equal(endorsements({ at: swarm, next, afterNext }, eligible), 3);
    // The same entries over another commit 31 vote for that one, not for this side's.
    assert.equal(endorsements({ at: late, next, afterNext }, eligible), 0);
    assert.equal(endorsements({ at: swarm, afterNext: { ...afterNext, iteration: 34 } }, eligible), 0);
  });

  it("a t+1 that does not chain onto the side's commit t endorses nothing", () => {
    const stray = commit(32, 0, hash(9), ["A", "B", "C"]);
    assert.equal(endorsements({ at: swarm, next: stray }, eligible), 0);
    assert.equal(endorsements({ at: swarm, next: commit(33, 0, hash(1), ["A"]) }, eligible), 0);
  });

  it("equal endorsements (a 2|2 partition healing): rank, then hash decide, the same from both sides", () => {
    const left = at(commit(31, 0, ZERO_HASH, ["A", "B"]), hash(5));
    const right = at(commit(31, 1, ZERO_HASH, ["C", "D"]), hash(4));
    const four = new Set(["A", "B", "C", "D"]);
    const l = { at: left, next: commit(32, 0, hash(5), ["A", "B"]) };
    const r = { at: right, next: commit(32, 0, hash(4), ["C", "D"]) };
    assert.equal(prefers(l, r, four), true);
    assert.equal(prefers(r, l, four), false);
    const r2 = { at: at(commit(31, 0, ZERO_HASH, ["C", "D"]), hash(4)), next: r.next };
    assert.equal(prefers(r2, l, four), true, "same rank: the lower hash");
    assert.equal(prefers(l, r2, four), false);
  });

  it("the reason logged with a switch names the rule that decided", () => {
    assert.equal(preferredBecause({ at: swarm, next: swarmNext }, { at: late }, eligible), "endorsed by 2 authors of the shared commit, the other side by 0");
    const four = new Set(["A", "B", "C", "D"]);
    const l = { at: at(commit(31, 0, ZERO_HASH, ["A", "B"]), hash(5)), next: commit(32, 0, hash(5), ["A", "B"]) };
    const r = { at: at(commit(31, 1, ZERO_HASH, ["C", "D"]), hash(4)), next: commit(32, 0, hash(4), ["C", "D"]) };
    assert.equal(preferredBecause(l, r, four), "endorsed by 2 each; rank 0 beats rank 1");
    const r0 = { at: at(commit(31, 0, ZERO_HASH, ["C", "D"]), hash(4)), next: r.next };
    assert.equal(preferredBecause(r0, l, four), "endorsed by 2 each; both rank 0: lower hash");
  });
});

describe("finding 7: the deep fork choice at the chain's start (t = 0)", () => {
  // Our commit 0 (hash 7) by A, B and C, built on by all three. A Sybil's commit 0 with a lower
  // hash (1), built on by its own identities only.
  const held = new Set(["A", "B", "C"]);
  const ours = { at: at(commit(0, 0, ZERO_HASH, ["A", "B", "C"]), hash(7)), next: commit(1, 0, hash(7), ["A", "B", "C"]) };
  const sybil = { at: at(commit(0, 0, ZERO_HASH, ["S1"]), hash(1)), next: commit(1, 0, hash(1), ["S1", "S2", "S3", "S4"]) };

  it("a ground Sybil genesis with a lower hash does not win: nobody we hold built on it", () => {
    // Over the shared commit's authors (none at t = 0) the old rule fell to the hash.
    assert.equal(prefers(sybil, ours, new Set()), true);
    assert.equal(prefersAtStart(sybil, ours, held, "A"), false);
    // Even a bare commit 0 of ours (nobody built on it yet) is kept against it.
    assert.equal(prefersAtStart(sybil, { at: ours.at }, held, "A"), false);
    assert.equal(
      preferredAtStartBecause(ours, sybil, held, "A"),
      "at the chain's start, over the 3 authors of our chain: endorsed by 3 authors of the shared commit, the other side by 0",
    );
  });

  it("a lone joiner's genesis does not rewind an established chain; the lone joiner takes the swarm's", () => {
    const joiner = { at: at(commit(0, 0, ZERO_HASH, ["J"]), hash(0)), next: commit(1, 0, hash(0), ["J"]) };
    assert.equal(prefersAtStart(joiner, ours, held, "A"), false, "the swarm keeps its commit 0");
    assert.equal(prefersAtStart(ours, joiner, new Set(["J"]), "J"), true, "the joiner, alone on its chain, switches");
    assert.equal(prefersAtStart(joiner, ours, new Set(["J"]), "J"), false);
  });

  it("two lone nodes racing settle on one commit 0, the same from both sides", () => {
    const x = { at: at(commit(0, 0, ZERO_HASH, ["X"]), hash(3)), next: commit(1, 0, hash(3), ["X"]) };
    const y = { at: at(commit(0, 0, ZERO_HASH, ["Y"]), hash(2)), next: commit(1, 0, hash(2), ["Y"]) };
    assert.equal(prefersAtStart(y, x, new Set(["X"]), "X"), true);
    assert.equal(prefersAtStart(x, y, new Set(["Y"]), "Y"), false);
  });

  it("a side that authors of our chain built on wins by their count", () => {
    const race = { at: at(commit(0, 0, ZERO_HASH, ["A", "B"]), hash(9)), next: commit(1, 0, hash(9), ["A", "B"]) };
    const mine = { at: ours.at, next: commit(1, 0, hash(7), ["C"]) };
    assert.equal(prefersAtStart(race, mine, held, "C"), true);
    assert.equal(prefersAtStart(mine, race, held, "A"), false, "the same from the other side");
  });
});
