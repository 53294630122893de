import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chained, type Commit, isBetter, proposerOrder, rankOf, ZERO_HASH } from "../../../node/chain/commit.js";
import { sha256Hex } from "../../../protocol/bytes.js";
import { commitHash } from "../../../protocol/codec.js";

const RUN = "ab".repeat(32);
const commit = (rank: number, entries: number): Commit => ({
  runId: RUN,
  proposer: "peer-0",
  iteration: 7,
  prevHash: ZERO_HASH,
  checksum: new Uint8Array(32),
  rank,
  entries: Array.from({ length: entries }, (_, i) => ({
    author: { id: `peer-${i}`, joinedAt: i },
    payload: Uint8Array.of(i),
    signature: new Uint8Array(64),
  })),
});
const LOW = new Uint8Array(32).fill(1);
const HIGH = new Uint8Array(32).fill(2);

describe("fork choice (isBetter)", () => {
  it("lower rank wins over more entries and a lower hash", () => {
    assert.equal(isBetter(commit(0, 1), HIGH, commit(1, 5), LOW), true);
    assert.equal(isBetter(commit(1, 5), LOW, commit(0, 1), HIGH), false);
  });

  it("at equal rank the lower hash wins, never the entry count (a padded commit loses)", () => {
    assert.equal(isBetter(commit(0, 3), HIGH, commit(0, 2), LOW), false);
    assert.equal(isBetter(commit(0, 2), LOW, commit(0, 1000), HIGH), true);
  });

  it("at equal rank and entries, the lower hash wins; a commit is not better than itself", () => {
    assert.equal(isBetter(commit(0, 2), LOW, commit(0, 2), HIGH), true);
    assert.equal(isBetter(commit(0, 2), HIGH, commit(0, 2), LOW), false);
    assert.equal(isBetter(commit(0, 2), LOW, commit(0, 2), LOW), false);
  });
});

describe("proposer order", () => {
  const peers = Array.from({ length: 12 }, (_, i) => `12D3KooPeer${i}`);

  it("ascending H(runId, iteration, peer), whatever order the candidates come in, duplicates once", () => {
    const order = proposerOrder(RUN, 5, [...peers, peers[0]]);
    assert.equal(order.length, peers.length);
    assert.deepEqual(proposerOrder(RUN, 5, [...peers].reverse()), order);
    const keys = order.map((p) => sha256Hex(`${RUN}/5/${p}`));
    assert.deepEqual(keys, [...keys].sort());
  });

  it("changes with the iteration and the run (the primary rotates)", () => {
    const firsts = new Set(Array.from({ length: 20 }, (_, t) => proposerOrder(RUN, t, peers)[0]));
    assert.ok(firsts.size > 3, `only ${firsts.size} distinct primaries over 20 iterations`);
    assert.notDeepEqual(proposerOrder(RUN, 5, peers), proposerOrder("cd".repeat(32), 5, peers));
  });

  it("asked again (the memo), the same order; arguments that concatenate alike are not confused", () => {
    const first = proposerOrder(RUN, 7, peers);
    first.reverse();
    assert.deepEqual(proposerOrder(RUN, 7, peers), [...first].reverse(), "a caller's change to a result does not leak into the memo");
    assert.deepEqual(new Set(proposerOrder(RUN, 7, ["a,b", "c"])), new Set(["a,b", "c"]));
    assert.deepEqual(new Set(proposerOrder(RUN, 7, ["a", "b,c"])), new Set(["a", "b,c"]));
    // Past the memo's bound, every order is still computed right.
    for (let t = 0; t < 40; t++) {
      const order = proposerOrder(RUN, t, peers);
      const keys = order.map((p) => sha256Hex(`${RUN}/${t}/${p}`));
      assert.deepEqual(keys, [...keys].sort());
    }
  });
});

describe("rankOf (rank is computed, never claimed)", () => {
  const eligible = Array.from({ length: 5 }, (_, i) => `12D3KooPeer${i}`);
  const order = proposerOrder(RUN, 9, eligible);

  it("an eligible proposer holds exactly its place in the proposer order", () => {
    order.forEach((p, r) => assert.equal(rankOf(RUN, 9, order, p, []), r));
  });

  it("a stranger holds the fallback rank n + 1 only as an author of its own commit; otherwise none", () => {
    assert.equal(rankOf(RUN, 9, eligible, "stranger", ["stranger", eligible[0]]), eligible.length + 1);
    assert.equal(rankOf(RUN, 9, eligible, "stranger", [eligible[0]]), null);
  });

  it("start of the chain: the eligible set is the commit's own authors", () => {
    const authors = ["x", "y", "z"];
    const own = proposerOrder(RUN, 0, authors);
    assert.equal(rankOf(RUN, 0, null, own[1], authors), 1);
    assert.equal(rankOf(RUN, 0, null, "w", authors), null);
  });
});

describe("chained", () => {
  it("hashes the bytes a commit came as, not a re-encoding", () => {
    const c = commit(0, 1);
    const a = chained({ commit: c, encoded: Uint8Array.of(1, 2, 3) });
    const b = chained({ commit: c, encoded: Uint8Array.of(1, 2, 4) });
    assert.deepEqual(a.hash, commitHash(Uint8Array.of(1, 2, 3)));
    assert.notDeepEqual(a.hash, b.hash);
  });
});
