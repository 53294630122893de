import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ZERO_HASH } from "../../../node/chain/commit.js";
import { endorsements, preferredBecause, prefers } from "../../../node/chain/fork-choice.js";
const RUN = "ab".repeat(32);
const hash = (b) => new Uint8Array(32).fill(b);
function commit(iteration, rank, prevHash, authors) {
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
const at = (c, h) => ({ commit: c, encoded: new Uint8Array(0), hash: h });
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
        const staleAt = (c, stale) => ({ ...c, entries: c.entries.map((e) => (stale.includes(e.author.id) ? { ...e, staleness: 1 } : e)) });
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
//# sourceMappingURL=fork-choice.test.js.map