/**
 * The chain rules the rounds enforce (issue 11): rank computed against the previous commit's
 * authors, checksum verified by applying (with the self-check that tells our corruption from a
 * proposer's lie), fork choice by rank then hash, and equivocation evidence. Real signatures,
 * real training state (tiny-spsa), no network.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { chained, type EncodedCommit, proposerOrder } from "../../../node/chain/commit.js";
import { Rounds, type RoundsEvent } from "../../../node/chain/rounds.js";
import { createLogger } from "../../../node/ground/index.js";
import { fromHex, toHex } from "../../../protocol/bytes.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { initialReplica, openRun, type RunContext } from "../../../training/run-context.js";
import { signedCommit, signedContribution, type TestKey, testKeys } from "../../helpers/chain-keys.js";

const log = createLogger({ level: "silent" });
/** The hash of commit -1 in these tests: the chain we pretend to continue. */
const H0 = new Uint8Array(32).fill(0x42);

let run: RunContext;
let keys: TestKey[];
/** The eligible proposers for iteration 0 (authors of "commit -1"), best first. */
let order: TestKey[];
let sybils: TestKey[];

before(async () => {
  await useBackend("wasm");
  run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
  keys = await testKeys(4);
  sybils = await testKeys(4, (i) => 5000 + i);
  const byId = new Map(keys.slice(0, 3).map((k) => [k.author.id, k]));
  order = proposerOrder(run.runId, 0, byId.keys()).map((id) => byId.get(id) as TestKey);
});

const payloadOf = (i: number) => new Uint8Array(run.algorithm.maxPayloadBytes).fill((i % 100) + 1);

/** A follower at head 0 chained to H0, whose last commit's authors are keys 0..2. */
function follower(self = keys[3], staleness = 0) {
  const events: RoundsEvent[] = [];
  const replica = initialReplica(run);
  const transport = { publishContribution: async () => {}, publishCommit: async () => {}, sign: self.sign };
  const rounds = new Rounds(self.author, run, replica, transport, { roundTimeoutMs: 60_000, stopAt: 100, contribute: false, staleness }, log, (e) =>
    events.push(e),
  );
  rounds.resumeChain(H0, keys.slice(0, 3).map((k) => k.author.id));
  return { rounds, replica, events, of: <K extends RoundsEvent["kind"]>(k: K) => events.filter((e) => e.kind === k) as Extract<RoundsEvent, { kind: K }>[] };
}

/** The true checksum after iteration 0 with these authors' entries. */
function truth(authors: readonly TestKey[]): string {
  const r = initialReplica(run);
  const entries = authors.map((k, i) => signedContribution(k, run.runId, 0, payloadOf(keys.indexOf(k) >= 0 ? keys.indexOf(k) : 50 + i), H0).c);
  r.applyIteration(run.algorithm, entries);
  return r.checksum();
}

/** A commit for iteration 0 by `proposer` at `rank` with entries by `authors`. */
function commit(proposer: TestKey, rank: number, authors: readonly TestKey[], checksum?: string): EncodedCommit {
  const sum = checksum ?? truth(authors);
  return signedCommit(
    proposer,
    { runId: run.runId, iteration: 0, prevHash: H0, checksum: fromHex(sum), rank },
    authors.map((k, i) => ({ key: k, payload: payloadOf(keys.indexOf(k) >= 0 ? keys.indexOf(k) : 50 + i) })),
  );
}

const tick = () => new Promise((r) => setImmediate(r));

describe("rank is computed, never claimed", () => {
  it("a commit claiming rank 0 by the rank-1 proposer (usurp) is rejected; the same proposer at rank 1 applies", async () => {
    const f = follower();
    const all = keys.slice(0, 3);
    f.rounds.onCommit(commit(order[1], 0, all));
    assert.equal(f.rounds.head, 0, "nothing applied");
    assert.deepEqual(f.of("rejected").map((e) => [e.proposer, e.rank, e.reason, e.offence]), [[order[1].author.id, 0, "claims rank 0, holds 1", "usurp"]]);
    f.rounds.onCommit(commit(order[1], 1, all));
    assert.equal(f.rounds.head, 1);
    assert.equal(f.rounds.checksumAt(1), truth(all));
    f.rounds.stop();
  });

  it("a stranger may commit only at the fallback rank n + 1 and only as an author of its own commit", () => {
    const f = follower();
    const stranger = sybils[0];
    f.rounds.onCommit(commit(stranger, 0, [stranger]));
    f.rounds.onCommit(commit(stranger, 4, keys.slice(0, 2)));
    assert.equal(f.rounds.head, 0);
    assert.deepEqual(f.of("rejected").map((e) => e.reason), ["claims rank 0, holds 4", "proposer may not propose this iteration"]);
    f.rounds.onCommit(commit(stranger, 4, [keys[0], stranger]));
    assert.equal(f.rounds.head, 1, "fallback rank n + 1 = 4 with its own entry");
    f.rounds.stop();
  });

  it("a commit from another run is ignored, and its signer not charged", () => {
    const f = follower();
    const other = signedCommit(
      order[0],
      { runId: "ee".repeat(32), iteration: 0, prevHash: H0, checksum: fromHex(truth([order[0]])), rank: 0 },
      [{ key: order[0], payload: payloadOf(keys.indexOf(order[0])) }],
    );
    f.rounds.onCommit(other);
    assert.equal(f.rounds.head, 0);
    assert.equal(f.of("rejected").length, 0);
  });

  it("predecessor's authors unknown (a snapshot without anchor): an honest rank-1 commit applies, nobody is charged", () => {
    const f = follower();
    f.rounds.resumeChain(H0, []);
    f.rounds.onCommit(commit(order[1], 1, keys.slice(0, 3)));
    assert.equal(f.rounds.head, 1);
    assert.equal(f.of("rejected").length, 0);
    f.rounds.stop();
  });
});

describe("the checksum is verified by applying", () => {
  it("a lying checksum: rejected, state rolled back, the fallback rank's commit applies", async () => {
    const f = follower();
    const before = f.replica.checksum();
    const all = keys.slice(0, 3);
    f.rounds.onCommit(commit(order[0], 0, all, "ab".repeat(32)));
    assert.equal(f.rounds.head, 0);
    assert.equal(f.replica.checksum(), before, "rolled back to the verified pre-state");
    assert.equal(f.of("rejected").length, 1);
    assert.match(f.of("rejected")[0].reason, /^checksum/);
    assert.equal(f.of("rejected")[0].offence, "lie", "charged as a lie, not a usurp");
    assert.equal(f.of("diverged").length, 0, "not our fault");
    // The same lie again (a replay over /commits) is refused without applying.
    f.rounds.onCommit(commit(order[0], 0, all, "ab".repeat(32)));
    assert.equal(f.of("rejected").length, 1);
    f.rounds.onCommit(commit(order[1], 1, all));
    assert.equal(f.rounds.head, 1);
    assert.equal(f.rounds.checksumAt(1), truth(all));
    f.rounds.stop();
  });

  it("our own corrupted state: the honest commit does not check out and WE are diverged, nobody is charged", () => {
    const f = follower();
    f.replica.weights[0] += 1;
    f.rounds.onCommit(commit(order[0], 0, keys.slice(0, 3)));
    assert.equal(f.of("rejected").length, 0);
    assert.equal(f.of("diverged").length, 1);
    assert.match(f.of("diverged")[0].reason, /our state before it did not match/);
    f.rounds.stop();
  });

  it("back at a slot it contributed to with other weights (a repair), a node signs no second contribution: no equivocation", async () => {
    const published: Uint8Array[] = [];
    const replica = initialReplica(run);
    const self = keys[3];
    const transport = { publishContribution: async (m: { payload: Uint8Array }) => void published.push(m.payload), publishCommit: async () => {}, sign: self.sign };
    const rounds = new Rounds(self.author, run, replica, transport, { roundTimeoutMs: 60_000, stopAt: 100, contribute: true }, log);
    rounds.resumeChain(H0, keys.slice(0, 3).map((k) => k.author.id));
    try {
      rounds.start();
      assert.equal(published.length, 1);
      // The state changes (a repair adopted other weights) and the round at the same slot begins again.
      rounds.follow();
      replica.weights[3] += 0.5;
      rounds.start();
      assert.equal(published.length, 1, "one signed contribution per (iteration, parent)");
      assert.equal(rounds.evidence.all().length, 0);
    } finally {
      rounds.stop();
    }
  });

  it("a proposer whose state no longer matches the chain (a flipped bit) signs no commit and reports diverged", async () => {
    for (const flipped of [false, true]) {
      const events: RoundsEvent[] = [];
      const published: Uint8Array[] = [];
      const replica = initialReplica(run);
      const self = order[0];
      const transport = { publishContribution: async () => {}, publishCommit: async (e: Uint8Array) => void published.push(e), sign: self.sign };
      const rounds = new Rounds(self.author, run, replica, transport, { roundTimeoutMs: 60_000, stopAt: 100, contribute: true }, log, (e) => events.push(e));
      rounds.resumeChain(H0, keys.slice(0, 3).map((k) => k.author.id));
      if (flipped) replica.weights[7] += 1;
      rounds.start();
      for (const k of [order[1], order[2]]) rounds.onContribution(signedContribution(k, run.runId, 0, payloadOf(keys.indexOf(k)), H0).c, 0, H0);
      await tick();
      rounds.stop();
      const diverged = events.filter((e) => e.kind === "diverged");
      if (!flipped) {
        assert.equal(published.length, 1, "the control proposes");
        assert.equal(diverged.length, 0);
      } else {
        assert.equal(published.length, 0, "no commit over an unverified state");
        assert.equal(rounds.head, 0);
        assert.equal(diverged.length, 1);
        assert.match((diverged[0] as { reason: string }).reason, /before proposing does not match/);
      }
    }
  });
});

describe("fork choice: rank, then hash; never the entry count", () => {
  it("a padded commit at a worse rank loses, whichever arrives first", async () => {
    const small = commit(order[0], 0, [order[0]]);
    const padded = commit(order[1], 1, [...keys.slice(0, 3)]);
    for (const arrival of [
      [small, padded],
      [padded, small],
    ]) {
      const f = follower();
      for (const c of arrival) {
        f.rounds.onCommit(c);
        await tick();
      }
      assert.equal(f.rounds.head, 1);
      assert.equal(toHex(f.rounds.headHash), toHex(chained(small).hash), "rank 0 won");
      assert.equal(f.rounds.checksumAt(1), truth([order[0]]));
      // The switch (only when the padded commit came first) says who and why, for its log line.
      const switched = f.of("switched");
      if (arrival[0] === padded)
        assert.deepEqual(switched, [{ kind: "switched", iteration: 0, proposer: order[0].author.id, rank: 0, reason: "rank 0 beats rank 1" }]);
      else assert.equal(switched.length, 0);
      f.rounds.stop();
    }
  });

  it("a better-ranked commit that lies does not win the switch: we keep the one we had", async () => {
    const f = follower();
    const fallback = commit(order[1], 1, keys.slice(0, 3));
    f.rounds.onCommit(fallback);
    await tick();
    f.rounds.onCommit(commit(order[0], 0, [order[0]], "cd".repeat(32)));
    assert.equal(f.rounds.head, 1);
    assert.equal(toHex(f.rounds.headHash), toHex(chained(fallback).hash));
    assert.equal(f.rounds.checksumAt(1), truth(keys.slice(0, 3)));
    assert.equal(f.of("rejected").length, 1);
    f.rounds.stop();
  });

  it("one proposer signing two commits for one slot: the lower hash wins everywhere, the pair is kept as evidence", async () => {
    const x = commit(order[0], 0, [order[0]]);
    const y = commit(order[0], 0, [order[0], ...sybils]);
    const lower = toHex(chained(x).hash) < toHex(chained(y).hash) ? x : y;
    for (const arrival of [
      [x, y],
      [y, x],
    ]) {
      const f = follower();
      for (const c of arrival) {
        f.rounds.onCommit(c);
        await tick();
      }
      assert.equal(toHex(f.rounds.headHash), toHex(chained(lower).hash));
      const ev = f.of("equivocation");
      assert.equal(ev.length, 1);
      assert.equal(ev[0].evidence.kind, "commit");
      assert.equal(ev[0].evidence.signer, order[0].author.id);
      assert.equal(f.rounds.evidence.against(order[0].author.id).length, 1);
      f.rounds.stop();
    }
  });
});

describe("equivocation by authors", () => {
  it("two valid contributions for one (iteration, parent) with different payloads are evidence against the author", () => {
    const f = follower();
    const a = keys[0];
    f.rounds.onContribution(signedContribution(a, run.runId, 0, payloadOf(1), H0).c, 0, H0);
    f.rounds.onContribution(signedContribution(a, run.runId, 0, payloadOf(2), H0).c, 0, H0);
    const ev = f.of("equivocation");
    assert.equal(ev.length, 1);
    assert.deepEqual([ev[0].evidence.kind, ev[0].evidence.signer, ev[0].evidence.iteration], ["contribution", a.author.id, 0]);
    assert.deepEqual(ev[0].evidence.first.payload, payloadOf(1));
    assert.deepEqual(ev[0].evidence.second.payload, payloadOf(2));
  });

  it("an honest re-contribution after a one-step fork switch (another parent) is not equivocation", () => {
    const f = follower();
    const a = keys[0];
    const other = new Uint8Array(32).fill(0x43);
    f.rounds.onContribution(signedContribution(a, run.runId, 0, payloadOf(1), other).c, 0, other);
    f.rounds.onContribution(signedContribution(a, run.runId, 0, payloadOf(2), H0).c, 0, H0);
    // The same bytes again is a duplicate, not equivocation either.
    f.rounds.onContribution(signedContribution(a, run.runId, 0, payloadOf(2), H0).c, 0, H0);
    assert.equal(f.of("equivocation").length, 0);
    assert.equal(f.rounds.held().contributions, 2);
  });
});

describe("pipelined rounds: a stale entry's parent is a commit of our chain", () => {
  /** Commit t onto the follower's head by the rank-0 proposer among keys 0..2; `stale` entries signed over `olderParents[0]`. */
  function next(f: ReturnType<typeof follower>, stale: readonly TestKey[], olderParents: Uint8Array[] = []): EncodedCommit {
    const t = f.rounds.head;
    const authors = keys.slice(0, 3);
    const byId = new Map(authors.map((k) => [k.author.id, k]));
    const proposer = byId.get(proposerOrder(run.runId, t, byId.keys())[0]) as TestKey;
    const entries = authors.map((k, i) => ({ key: k, payload: payloadOf(10 * t + i), staleness: stale.includes(k) ? 1 : 0 }));
    const r = initialReplica(run);
    for (const c of f.rounds.appliedCommits()) r.applyIteration(run.algorithm, c.commit.entries);
    const signed = signedCommit(proposer, { runId: run.runId, iteration: t, prevHash: f.rounds.headHash, checksum: new Uint8Array(32), rank: 0, olderParents }, entries);
    r.applyIteration(run.algorithm, signed.commit.entries);
    return signedCommit(proposer, { runId: run.runId, iteration: t, prevHash: f.rounds.headHash, checksum: fromHex(r.checksum()), rank: 0, olderParents }, entries);
  }

  it("an older parent that is not our commit t-2: rejected, its proposer charged; the true one applies; staler than the run allows: rejected", () => {
    const f = follower(keys[3], 1);
    f.rounds.onCommit(next(f, []));
    f.rounds.onCommit(next(f, []));
    assert.equal(f.rounds.head, 2);
    const forged = next(f, [keys[1]], [new Uint8Array(32).fill(7)]);
    f.rounds.onCommit(forged);
    assert.equal(f.rounds.head, 2);
    assert.match(f.of("rejected")[0]?.reason ?? "", /older parent 0 is not our commit 0/);
    const honest = next(f, [keys[1]], [f.rounds.commitAt(0)?.hash as Uint8Array]);
    f.rounds.onCommit(honest);
    assert.equal(f.rounds.head, 3, `events: ${JSON.stringify(f.of("rejected"))}`);
    assert.equal(f.rounds.appliedCommits().at(-1)?.commit.entries.find((e) => e.author.id === keys[1].author.id)?.staleness, 1);
    // A run without pipelining takes no stale entry, whatever its parents.
    const plain = follower(keys[3], 0);
    plain.rounds.onCommit(next(plain, []));
    plain.rounds.onCommit(next(plain, []));
    plain.rounds.onCommit(next(plain, [keys[1]], [plain.rounds.commitAt(0)?.hash as Uint8Array]));
    assert.equal(plain.rounds.head, 2);
    assert.match(plain.of("rejected")[0]?.reason ?? "", /allows 0/);
  });

  it("a contribution its author could only make two or more past our head is an 'ahead' hint; one within reach is not", () => {
    const f = follower(keys[3], 1);
    // At head 0: work for 2 may come from a node at head 1 (one ahead: no hint); work for 3 needs head >= 2.
    f.rounds.onContribution(signedContribution(keys[0], run.runId, 2, payloadOf(1), new Uint8Array(32).fill(8), 1).c, 2, new Uint8Array(32).fill(8));
    assert.equal(f.of("ahead").length, 0);
    f.rounds.onContribution(signedContribution(keys[0], run.runId, 3, payloadOf(1), new Uint8Array(32).fill(9), 1).c, 3, new Uint8Array(32).fill(9));
    assert.deepEqual(f.of("ahead").map((e) => [e.iteration, e.proposer]), [[2, keys[0].author.id]]);
  });
});
