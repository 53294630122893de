import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AUDITION_EVERY, admissionAt, NEWCOMER_SLOTS, newcomersOf, PROBATION, PROPOSER_WINDOW, type WindowCommit } from "../../../node/chain/admission.js";
import { proposerOrder } from "../../../node/chain/commit.js";

const runId = "ab".repeat(32);
const honest = ["h1", "h2", "h3"];
const all = [...honest, "x"];

/** Commits 0 .. n-1, each by `proposer(j)` (by default its authors in turn) with `authors(j)`. */
function chain(n: number, authors: (j: number) => string[], proposer: (j: number) => string = (j) => authors(j)[j % authors(j).length]): WindowCommit[] {
  return Array.from({ length: n }, (_, j) => ({ iteration: j, proposer: proposer(j), authors: authors(j), first: j === 0, passedOver: [] }));
}

describe("admission: proposers from the verified chain (finding 1, censorship)", () => {
  it("with no thin commit the proposers are the last commit's authors in H order, as before", () => {
    const a = admissionAt(runId, 30, chain(30, () => all));
    assert.deepEqual(a.order, proposerOrder(runId, 30, all));
    assert.deepEqual([...a.expected].sort(), [...all].sort());
    assert.ok(a.complete);
  });

  it("a proposer that keeps only itself does not become the only proposer: the left-out rank first, it ranks last", () => {
    // x proposes 29 with its own entry only (a thin commit: 1 of the 4 authors of 28 kept).
    const w = chain(30, (j) => (j === 29 ? ["x"] : all), (j) => (j === 29 ? "x" : "h1"));
    const a = admissionAt(runId, 30, w);
    assert.equal(a.order.length, 4, "the left-out authors of 28 stay proposers of 30");
    assert.equal(a.order[3], "x", "the thin commit's proposer ranks last");
    assert.deepEqual(new Set(a.expected), new Set(all), "the round waits for the left-out authors too");
  });

  it("a lone author replaced by another is a thin commit too: a censor after a commit of one honest author does not keep the chain", () => {
    // The honest were dropped down to h1 alone at 28 (late under load); x commits 29 alone.
    const w = chain(30, (j) => (j === 28 ? ["h1"] : j === 29 ? ["x"] : all), (j) => (j === 29 ? "x" : "h1"));
    const a = admissionAt(runId, 30, w);
    assert.deepEqual(new Set(a.expected), new Set(["h1", "x"]), "h1, left out of 29, stays a proposer of 30");
    assert.deepEqual(a.order, ["h1", "x"], "x ranks after it");
    const again = admissionAt(runId, 30, chain(30, (j) => (j >= 28 ? ["h1"] : all), () => "h1"));
    assert.deepEqual(again.order, ["h1"], "one author keeping itself is not thin");
  });

  it("a censor whose left-out authors came back ranks last for the whole window; a dropped dead peer costs one iteration", () => {
    // x censored at 20; the honest were back at 21 (x included too, as a member).
    const censored = chain(50, (j) => (j === 20 ? ["x"] : all), (j) => (j === 20 ? "x" : honest[j % 3]));
    for (let t = 22; t <= 20 + PROPOSER_WINDOW; t++) {
      const a = admissionAt(runId, t, censored.slice(0, t));
      assert.equal(a.order[a.order.length - 1], "x", `x demoted at ${t}`);
    }
    const after = admissionAt(runId, 21 + PROPOSER_WINDOW, censored.slice(0, 21 + PROPOSER_WINDOW));
    assert.deepEqual(after.order, [...proposerOrder(runId, 21 + PROPOSER_WINDOW, honest), "x"], "once its thin commit left the window, x ranks as any unproven senior");
    const audition = 3 * AUDITION_EVERY;
    assert.equal(admissionAt(runId, audition, censored.slice(0, audition)).order[0], "x", "and first at an audition");
    // Two nodes, one dies at 20: the survivor's commits keep itself only.
    const dead = chain(40, (j) => (j < 20 ? ["h1", "h2"] : ["h1"]), (j) => (j < 20 ? ["h1", "h2"][j % 2] : "h1"));
    const at21 = admissionAt(runId, 21, dead.slice(0, 21));
    assert.deepEqual(at21.order, ["h2", "h1"], "one iteration: the dropped peer first, the survivor after it");
    const at22 = admissionAt(runId, 22, dead.slice(0, 22));
    assert.deepEqual(at22.order, ["h1"], "then the survivor alone: the dead peer never came back, so no censor");
  });

  it("members that never proposed do not make a commit thin: a crowd that sends late cannot demote an honest proposer", () => {
    const crowd = Array.from({ length: 40 }, (_, i) => `s${i}`);
    // The honest commit every iteration; at 40 and 41 the crowd's entries were late and left out,
    // and at 42 they were back in.
    const w = chain(60, (j) => (j === 40 || j === 41 ? honest : [...honest, ...crowd]), (j) => honest[j % 3]);
    for (const t of [41, 42, 43, 50]) {
      const a = admissionAt(runId, t, w.slice(0, t));
      assert.deepEqual(new Set(a.order.slice(0, 3)), new Set(honest), `the honest rank first at ${t}`);
    }
    assert.equal(admissionAt(runId, 41, w.slice(0, 41)).order.length, 3, "the crowd left out is not put back in the base");
  });

  it("members witnessed for less than PROBATION iterations rank after the others", () => {
    const w = chain(50, (j) => (j >= 35 ? [...honest, "new"] : honest), (j) => honest[j % 3]);
    const a = admissionAt(runId, 40, w.slice(0, 40));
    assert.equal(a.order[a.order.length - 1], "new");
    const later = admissionAt(runId, 35 + PROBATION + 1, w.slice(0, 35 + PROBATION + 1));
    assert.deepEqual(later.order, [...proposerOrder(runId, 35 + PROBATION + 1, honest), "new"], "a senior member after its probation, unproven: after the proven");
    assert.equal(admissionAt(runId, 3 * AUDITION_EVERY, w.slice(0, 3 * AUDITION_EVERY)).order[0], "new", "its audition: rank 0");
  });

  it("a window that does not reach back PROPOSER_WINDOW + 1 commits (nor to the chain's start) is not complete", () => {
    const w = chain(40, () => all).slice(30);
    assert.equal(admissionAt(runId, 40, w).complete, false);
    assert.equal(admissionAt(runId, 40, chain(40, () => all).slice(40 - PROPOSER_WINDOW - 1)).complete, true);
    assert.equal(admissionAt(runId, 5, chain(5, () => all)).complete, true, "back to the chain's first commit");
  });

  it("newcomers are the authors not in the window's commits", () => {
    const a = admissionAt(runId, 30, chain(30, (j) => (j === 20 ? [...honest, "old"] : honest)));
    assert.deepEqual(newcomersOf(a, [...honest, "old", "n1"]), ["n1"], "an author of a commit of the window (14 .. 29) is a member");
    const b = admissionAt(runId, 37 + PROPOSER_WINDOW, chain(37 + PROPOSER_WINDOW, (j) => (j === 20 ? [...honest, "old"] : honest)));
    assert.deepEqual(newcomersOf(b, ["old"]), ["old"], "out of the window: a newcomer again");
    assert.ok(NEWCOMER_SLOTS >= 1);
  });
});

describe("admission: silent proposers (a crowd of members that never commit)", () => {
  it("a member passed over by a later-ranked commit ranks last while that commit is in the window", () => {
    const members = [...honest, "s1", "s2"];
    const w = chain(40, () => members, (j) => honest[j % 3]).map((c) => (c.iteration === 30 ? { ...c, passedOver: ["s1", "s2"] } : c));
    const a = admissionAt(runId, 40, w);
    assert.deepEqual(a.order.slice(3).sort(), ["s1", "s2"], "the silent ones last");
    const later = admissionAt(runId, 47, chain(47, () => members, (j) => honest[j % 3]).map((c) => (c.iteration === 30 ? { ...c, passedOver: ["s1"] } : c)));
    assert.deepEqual(later.order, [...proposerOrder(runId, 47, honest), ...proposerOrder(runId, 47, ["s1", "s2"])], "once the commit left the window, s1 ranks as s2: unproven");
  });

  it("a crowd of members that never commit ranks after every proposer that does, but for one audition a window", () => {
    const crowd = Array.from({ length: 60 }, (_, i) => `s${i}`);
    const w = chain(100, () => [...honest, ...crowd], (j) => honest[j % 3]);
    let auditions = 0;
    for (let t = 40; t < 100; t++) {
      const { order } = admissionAt(runId, t, w.slice(0, t));
      const firstHonest = order.findIndex((p) => honest.includes(p));
      if (t % AUDITION_EVERY === 0) {
        assert.equal(firstHonest, 1, `audition at ${t}: one silent senior first`);
        auditions++;
      } else assert.equal(firstHonest, 0, `iteration ${t}: a proven proposer first`);
    }
    assert.equal(auditions, Array.from({ length: 60 }, (_, i) => 40 + i).filter((t) => t % AUDITION_EVERY === 0).length);
  });

  it("a window whose pass-overs are not known here is not complete (ranks are then checked loosely)", () => {
    const w = chain(40, () => all).map((c) => (c.iteration === 35 ? { ...c, passedOver: undefined } : c));
    assert.equal(admissionAt(runId, 40, w).complete, false);
  });
});
