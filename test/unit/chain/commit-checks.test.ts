import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { admissionAt, NEWCOMER_SLOTS, startAdmission, type WindowCommit } from "../../../node/chain/admission.js";
import { AppliedHistory } from "../../../node/chain/applied-history.js";
import { type CheckEvent, CommitChecks, type CheckOptions } from "../../../node/chain/commit-checks.js";
import { chained } from "../../../node/chain/commit.js";
import { ROUND_CAPS } from "../../../node/chain/round-inbox.js";
import { createLogger } from "../../../node/ground/index.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { OPEN_SEATS } from "../../../protocol/limits.js";
import { MIN_JOINED_AT } from "../../../protocol/signing.js";
import { signedCommit, signedContribution, testKeys } from "../../helpers/chain-keys.js";

const log = createLogger({ level: "silent" });
const runId = runIdOf(parseRunSpec(PRESETS["tiny-spsa"]));
const payload = () => new Uint8Array(16).fill(1);

function checksOf(opts: Partial<CheckOptions> = {}, history = new AppliedHistory(0, "00")) {
  const events: CheckEvent[] = [];
  const checks = new CommitChecks({ runId, self: "self", auditable: true, ...opts }, history, log, (e) => events.push(e));
  return { checks, events, history };
}

/** A window of commits 0 .. t-1 whose authors are `authors`. */
const windowOf = (t: number, authors: readonly string[]): WindowCommit[] =>
  Array.from({ length: t }, (_, j) => ({ iteration: j, proposer: authors[0], authors, first: j === 0, passedOver: [] }));

describe("CommitChecks: admission by the verified chain, not by claimed join times (finding 1)", () => {
  it("a proposal keeps the 3 honest members and at most NEWCOMER_SLOTS of 1,024 Sybils claiming the earliest join time", async () => {
    const honest = await testKeys(3);
    const sybils = await testKeys(1024, () => MIN_JOINED_AT);
    const admission = admissionAt(runId, 40, windowOf(40, honest.map((k) => k.author.id)));
    const usable = [...sybils, ...honest].map((k) => signedContribution(k, runId, 40, payload()).c);
    const { checks } = checksOf();
    const { entries } = checks.proposal(40, usable, admission);
    const ids = new Set(entries.map((e) => e.author.id));
    for (const h of honest) assert.ok(ids.has(h.author.id), "every honest member is in the commit");
    assert.equal(entries.length, 3 + NEWCOMER_SLOTS, "the Sybils get the newcomer slots only");
  });

  it("a received commit holding more newcomers than the slots is rejected, its proposer charged", async () => {
    const honest = await testKeys(3);
    const sybils = await testKeys(600, () => MIN_JOINED_AT);
    const ids = honest.map((k) => k.author.id);
    const admission = admissionAt(runId, 40, windowOf(40, ids));
    const proposer = honest.find((k) => k.author.id === admission.order[0]) ?? honest[0];
    const fields = { runId, iteration: 40, checksum: new Uint8Array(32), rank: 0, prevHash: new Uint8Array(32).fill(7) };
    const { checks, events } = checksOf();
    const crowded = signedCommit(proposer, fields, [...honest, ...sybils].map((key) => ({ key, payload: payload() })));
    assert.equal(checks.admissionHolds(crowded, admission), false);
    assert.match(events.map((e) => (e.kind === "rejected" ? e.reason : "")).join(), /holds 600 newcomers/);
    const fair = signedCommit(proposer, fields, [...honest, ...sybils.slice(0, NEWCOMER_SLOTS)].map((key) => ({ key, payload: payload() })));
    assert.equal(checks.admissionHolds(fair, admission), true, "members plus the slots' worth of newcomers");
  });

  it("an open run's seats: members that were in more of the window's commits keep theirs against a crowd of members, and no commit holds more", async () => {
    const honest = await testKeys(3);
    const crowd = await testKeys(200, () => MIN_JOINED_AT);
    const newcomers = await testKeys(10, () => MIN_JOINED_AT);
    const h = honest.map((k) => k.author.id);
    // The crowd got in 4 a commit over iterations 24 .. 39 (the window of 40); honest in every commit.
    const w: WindowCommit[] = Array.from({ length: 41 }, (_, t) => ({
      iteration: t,
      proposer: h[t % 3],
      authors: [...h, ...crowd.slice(0, Math.max(0, 4 * (t - 23))).map((k) => k.author.id)],
      first: t === 0,
      passedOver: [],
    }));
    const admission = admissionAt(runId, 40, w.slice(0, 40));
    const usable = [...crowd, ...honest, ...newcomers].map((k) => signedContribution(k, runId, 40, payload()).c);
    const { checks, events } = checksOf({ seats: OPEN_SEATS });
    const { entries } = checks.proposal(40, usable, admission);
    const ids = new Set(entries.map((e) => e.author.id));
    for (const a of h) assert.ok(ids.has(a), "every honest member keeps its seat");
    assert.equal(entries.length, OPEN_SEATS, "the seats are full");
    assert.equal(entries.filter((e) => !admission.members.has(e.author.id)).length, NEWCOMER_SLOTS, "newcomers keep their slots");
    // Crowd member i came in at 24 + i/4: the 57 member seats left go to the first 56, and one of the 4 that tie next.
    const seated = entries.map((e) => crowd.findIndex((k) => k.author.id === e.author.id)).filter((i) => i >= 0 && admission.members.has(crowd[i].author.id));
    assert.equal(seated.length, OPEN_SEATS - NEWCOMER_SLOTS - 3);
    assert.ok(Math.max(...seated) < 60, `the crowd's seats go to those that came first (${Math.max(...seated)})`);
    // Every node refuses a commit with more entries than the seats, whatever its window.
    const fields = { runId, iteration: 40, checksum: new Uint8Array(32), rank: 0, prevHash: new Uint8Array(32).fill(7) };
    const proposer = honest.find((k) => k.author.id === admission.order[0]) ?? honest[0];
    const over = signedCommit(proposer, fields, [...honest, ...crowd.slice(0, OPEN_SEATS - 2)].map((key) => ({ key, payload: payload() })));
    assert.equal(checks.admissionHolds(over, startAdmission(40, false)), false);
    assert.match(events.map((e) => (e.kind === "rejected" ? e.reason : "")).join(), new RegExp(`holds ${OPEN_SEATS + 1} entries`));
  });

  it("a commit whose proposer ranks last (a thin commit's) claiming rank 0 is rejected", async () => {
    const keys = await testKeys(4);
    const ids = keys.map((k) => k.author.id);
    const censor = keys[3];
    // censor committed 39 with only its own entry: it ranks last for 40.
    const w = windowOf(40, ids).map((c) => (c.iteration === 39 ? { ...c, proposer: censor.author.id, authors: [censor.author.id] } : c));
    const admission = admissionAt(runId, 40, w);
    assert.equal(admission.order[admission.order.length - 1], censor.author.id);
    const { checks, events } = checksOf();
    const again = signedCommit(censor, { runId, iteration: 40, checksum: new Uint8Array(32), rank: 0, prevHash: new Uint8Array(32).fill(7) }, [{ key: censor, payload: payload() }]);
    // Asked first (as gossip does, before the entries' signatures): the reason, and nobody charged.
    assert.deepEqual(checks.admissionProblem(again.commit, admission), { reason: `claims rank 0, holds ${admission.order.length - 1}`, charge: true });
    assert.equal(events.length, 0, "asking charges nobody");
    assert.equal(checks.admissionHolds(again, admission), false);
    assert.equal(events.filter((e) => e.kind === "rejected").length, 1, "the rounds' check charges it");
    const fair = signedCommit(censor, { runId, iteration: 40, checksum: new Uint8Array(32), rank: admission.order.length - 1, prevHash: new Uint8Array(32).fill(7) }, [{ key: censor, payload: payload() }]);
    assert.equal(checks.admissionProblem(fair.commit, admission), null, "at its own rank it fits");
  });
});

describe("CommitChecks: refused commits are remembered (finding 14)", () => {
  it("a lying commit stays refused after the 4,095 refused since; the oldest of 4,097 is forgotten", async () => {
    const [liar] = await testKeys(1);
    const { checks } = checksOf();
    const lie = (i: number) => signedCommit(liar, { runId, iteration: 40 + i, checksum: new Uint8Array(32).fill(i % 251), rank: 0, prevHash: new Uint8Array(32).fill(7) }, []);
    const first = lie(0);
    checks.reject(first, "lie");
    const hashes = [chained(first).hash];
    for (let i = 1; i < ROUND_CAPS.rejectedCommits; i++) {
      const h = new Uint8Array(32);
      new DataView(h.buffer).setUint32(0, i);
      checks.reject(first, "lie", "lie", h);
      hashes.push(h);
    }
    assert.equal(ROUND_CAPS.rejectedCommits, 4096);
    assert.ok(checks.refused(hashes[0]), "the first lie is still refused");
    assert.ok(hashes.every((h) => checks.refused(h)));
    checks.reject(first, "lie", "lie", new Uint8Array(32).fill(255));
    assert.equal(checks.refused(hashes[0]), false, "bounded: the oldest goes");
    assert.ok(checks.refused(hashes[1]));
  });
});

describe("CommitChecks: no exclusion on faith (finding 2)", () => {
  async function chainWithEntries() {
    const [a, b] = await testKeys(2);
    const history = new AppliedHistory(0, "00");
    const c0 = signedCommit(a, { runId, iteration: 0, checksum: new Uint8Array(32), rank: 0 }, [{ key: a, payload: payload() }, { key: b, payload: payload() }]);
    history.record(chained(c0), 1, "11");
    const accuse = (proposer: typeof a, author: string) =>
      signedCommit(proposer, { runId, iteration: 1, prevHash: chained(c0).hash, checksum: new Uint8Array(32), rank: 0, exclusions: [{ author, iteration: 0 }] }, [{ key: proposer, payload: payload() }]);
    return { a, b, history, accuse };
  }

  it("a run whose algorithm has no audit (Binary) refuses every exclusion", async () => {
    const { a, b, history, accuse } = await chainWithEntries();
    const { checks, events } = checksOf({ auditable: false }, history);
    assert.equal(checks.exclusionsHold(accuse(a, b.author.id)), false);
    assert.match(events.map((e) => (e.kind === "rejected" ? e.reason : "")).join(), /no audit/);
  });

  it("an exclusion that cannot be recomputed here is chain state but bans nobody; one of this node is refused", async () => {
    const { a, b, history, accuse } = await chainWithEntries();
    const { checks, events } = checksOf({ self: a.author.id }, history);
    const x = accuse(a, b.author.id);
    const { checks: victim } = checksOf({ self: b.author.id }, history);
    assert.equal(victim.exclusionsHold(x), false, "a node never takes its own exclusion on faith");
    assert.equal(checks.exclusionsHold(x), true, "accepted: the chain may hold it");
    history.record(chained(x), 2, "22");
    checks.noteApplied(x.commit);
    assert.equal(events.filter((e) => e.kind === "excluded").length, 0, "no ban, no charge");
    assert.equal(checks.isExcluded(b.author.id), false, "its messages are not refused");
    assert.equal(checks.proposal(2, [signedContribution(b, runId, 2, payload()).c], startAdmission(2, false)).entries.length, 0, "but left out of our commits, as the chain says");
    assert.equal(victim.isExcluded(b.author.id), false, "and never bans itself");
  });

  it("inherited exclusions (behind a snapshot) leave authors out of proposals without refusing them", async () => {
    const [a, b, out] = await testKeys(3);
    const { checks } = checksOf();
    const usable = [a, b, out].map((k) => signedContribution(k, runId, 0, payload()).c);
    const admission = startAdmission(0, true);
    assert.equal(checks.proposal(0, usable, admission).entries.length, 3, "before: every author's entry");
    checks.inherit([out.author.id]);
    assert.ok(!checks.isExcluded(out.author.id), "not banned on the word of commits we do not hold");
    const { entries, exclusions } = checks.proposal(0, usable, admission);
    assert.deepEqual(entries.map((e) => e.author.id).sort(), [a.author.id, b.author.id].sort());
    assert.equal(exclusions.length, 0, "inherited, not re-recorded: the chain behind holds it already");
  });
});
