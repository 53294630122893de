import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createLogger } from "../../../node/ground/index.js";
import { commitFromBytes } from "../../../node/chain/commit-wire.js";
import { ROUND_CAPS } from "../../../node/chain/round-inbox.js";
import { NEWCOMER_SLOTS } from "../../../node/chain/admission.js";
import { proposerOrder } from "../../../node/chain/commit.js";
import { LEFT_OUT_REPORT } from "../../../node/chain/left-out-watch.js";
import { Rounds, type RoundsEvent } from "../../../node/chain/rounds.js";
import { Audits } from "../../../node/chain/audits.js";
import { decodeCommit } from "../../../protocol/codec.js";
import { MAX_COMMIT_ENTRIES } from "../../../protocol/limits.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { imageTrainingRun, initialReplica, openRun, type RunContext } from "../../../training/run-context.js";
import { signedCommit, signedContribution, TEST_JOINED_AT, type TestKey, testKeys } from "../../helpers/chain-keys.js";

const log = createLogger({ level: "silent" });

/** In-memory gossip: every message reaches every other live node on a later tick (`slow` senders' after a delay, ms). */
class Bus {
  readonly nodes = new Map<string, Rounds>();
  readonly dead = new Set<string>();
  readonly slow = new Map<string, number>();
  /** Nodes that receive everything and whose messages reach nobody. */
  readonly muted = new Set<string>();
  deliver(from: string, fn: (r: Rounds) => void): void {
    const send = () => {
      if (this.dead.has(from) || this.muted.has(from)) return;
      for (const [id, r] of this.nodes) if (id !== from && !this.dead.has(id)) fn(r);
    };
    const delay = this.slow.get(from);
    if (delay === undefined) setImmediate(send);
    else setTimeout(send, delay);
  }
}

/** Resolves once node `evs` has applied `n` commits. */
function afterApplied(evs: RoundsEvent[], n: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (evs.filter((e) => e.kind === "applied").length < n) return;
      clearInterval(check);
      resolve();
    }, 1);
  });
}

/** Nodes on a Bus speaking the real wire: signed contributions, signed commits checked by commitFromBytes. */
async function swarm(
  run: RunContext,
  keys: TestKey[],
  stopAt: number,
  bus = new Bus(),
  roundTimeoutMs = 200,
  pipelined: { staleness: number; audits: Audits[] } = { staleness: 0, audits: [] },
  /** Nodes that start the chain (Rounds.start(true)). */
  startsChain: readonly string[] = [],
) {
  const events = new Map<string, RoundsEvent[]>();
  const done = keys.map(
    ({ author: self, sign }) =>
      new Promise<Rounds>((resolve) => {
        const replica = initialReplica(run);
        const evs: RoundsEvent[] = [];
        events.set(self.id, evs);
        const rounds: Rounds = new Rounds(
          self,
          run,
          replica,
          {
            publishContribution: async (m) =>
              bus.deliver(self.id, (r) =>
                r.onContribution({ author: { id: self.id, joinedAt: m.joinedAt }, payload: m.payload, signature: m.signature, ...(m.staleness ? { staleness: m.staleness } : {}) }, m.iteration, m.parentHash),
              ),
            publishCommit: async (bytes) => bus.deliver(self.id, (r) => r.onCommit(commitFromBytes(bytes))),
            sign,
          },
          { roundTimeoutMs, stopAt, contribute: true, staleness: pipelined.staleness },
          log,
          (e) => {
            evs.push(e);
            if (e.kind === "done") resolve(rounds);
          },
        );
        bus.nodes.set(self.id, rounds);
        if (pipelined.staleness > 0) {
          const chain = { commitAt: (t: number) => rounds.commitAt(t), checksumAt: (t: number) => rounds.checksumAt(t), snapshots: () => [], isExcluded: (a: string) => rounds.isExcluded(a) };
          const audits = new Audits(self.id, imageTrainingRun(run), chain, { budget: 1, staleness: pipelined.staleness }, log);
          rounds.useAudits(audits);
          pipelined.audits.push(audits);
        }
      }),
  );
  for (const [id, r] of bus.nodes) r.start(startsChain.includes(id));
  return { done, events, bus };
}

describe("rounds (in-memory transport)", () => {
  it("3 nodes apply the same commits and match a single-process replay", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const authors = await testKeys(3);
    // A generous deadline: the three nodes share one thread here, and on a loaded machine a 100 ms
    // wait for the others' contributions was sometimes shorter than computing them.
    const { done, events } = await swarm(run, authors, 30, new Bus(), 600);
    const rounds = await Promise.all(done);
    const sums = rounds.map((r) => r.checksumAt(30));
    assert.equal(new Set(sums).size, 1, `checksums differ: ${sums}`);
    for (const evs of events.values())
      assert.equal(evs.filter((e) => e.kind === "diverged").length, 0);
    // Replay every commit in one process: same checksum.
    const replay = initialReplica(run);
    for (const { commit } of rounds[0].appliedCommits())
      replay.applyIteration(run.algorithm, commit.entries);
    assert.equal(replay.checksum(), sums[0]);
    // Everyone contributed to (nearly) every iteration.
    const included = rounds[0].appliedCommits().reduce((s, l) => s + l.commit.entries.length, 0);
    assert.ok(included >= 3 * 30 - 3, `only ${included} contributions included`);
    for (const r of rounds) r.stop();
  });

  for (const staleness of [1, 2])
    it(`pipelined rounds, staleness ${staleness}: stale entries are committed, replicas agree with a replay, audits recompute them`, async () => {
      await useBackend("wasm");
      const run = await openRun(parseRunSpec({ ...PRESETS["tiny-spsa"], staleness }));
      const authors = await testKeys(3);
      const audits: Audits[] = [];
      const { done, events } = await swarm(run, authors, 30, new Bus(), 600, { staleness, audits });
      const rounds = await Promise.all(done);
      const sums = rounds.map((r) => r.checksumAt(30));
      assert.equal(new Set(sums).size, 1, `checksums differ: ${sums}`);
      for (const evs of events.values()) assert.equal(evs.filter((e) => e.kind === "diverged" || e.kind === "rejected").length, 0);
      const commits = rounds[0].appliedCommits().map((c) => c.commit);
      const replay = initialReplica(run);
      for (const commit of commits) replay.applyIteration(run.algorithm, commit.entries);
      assert.equal(replay.checksum(), sums[0]);
      // Nodes measure ahead of the head: most entries are stale, each signed over the commit its staleness names.
      const entries = commits.flatMap((c) => c.entries);
      const stale = entries.filter((e) => (e.staleness ?? 0) > 0);
      assert.ok(entries.length >= 3 * 30 - 6, `only ${entries.length} contributions included`);
      assert.ok(stale.length >= entries.length / 2, `${stale.length} of ${entries.length} entries stale`);
      assert.ok(entries.every((e) => (e.staleness ?? 0) <= staleness));
      for (const c of commits) {
        const stalest = Math.max(0, ...c.entries.map((e) => e.staleness ?? 0));
        assert.equal(c.olderParents?.length ?? 0, stalest, `commit ${c.iteration}`);
        c.olderParents?.forEach((h, i) => assert.deepEqual(h, c.iteration - 2 - i < 0 ? new Uint8Array(32) : rounds[0].commitAt(c.iteration - 2 - i)?.hash));
      }
      // Audits recompute stale entries on the states their parents name: all honest.
      const audited = audits.reduce((n, a) => n + a.counts.audited, 0);
      assert.ok(audited >= 30, `${audited} audits`);
      assert.equal(audits.reduce((n, a) => n + a.counts.frauds, 0), 0);
      for (const r of rounds) r.stop();
    });

  it("finding 5: gossip's pre-check refutes a commit's rank, seats or newcomers where the admission is known, before its entries are verified", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const authors = await testKeys(3);
    const { done } = await swarm(run, authors, 20, new Bus(), 600);
    const rounds = await Promise.all(done);
    const r = rounds[0];
    const [stranger, ...sybils] = await testKeys(12);
    const fields = (iteration: number, rank: number, prevHash = r.headHash) => ({ runId: run.runId, iteration, prevHash, checksum: new Uint8Array(32), rank });
    const ask = (c: ReturnType<typeof signedCommit>) => r.commitProblem(decodeCommit(c.encoded), c.commit.proposer);
    const own = (k: TestKey) => ({ key: k, payload: new Uint8Array(8).fill(1) });
    assert.equal(r.head, 20);
    assert.match(ask(signedCommit(stranger, fields(20, 0), [own(stranger)])) ?? "", /^claims rank 0, holds [1-9]$/, "a stranger at rank 0 (its own entry's author: the fallback rank)");
    assert.equal(ask(signedCommit(stranger, fields(20, 0), [own(authors[0])])), "proposer may not propose this iteration", "a stranger without an entry of its own");
    assert.match(ask(signedCommit(authors[1], fields(20, 0), [own(authors[1]), ...sybils.slice(0, NEWCOMER_SLOTS + 1).map(own)])) ?? "", /newcomers|rank/, "past the newcomer slots (or its rank)");
    assert.equal(ask(signedCommit(stranger, fields(20, 0, new Uint8Array(32).fill(9)), [own(stranger)])), null, "chained to a commit we do not hold: not known here");
    assert.match(ask(signedCommit(stranger, fields(21, 0, new Uint8Array(32).fill(9)), [own(stranger), ...sybils.slice(0, 8).map(own)])) ?? "", /9 authors outside the window/, "a round ahead, 9 strangers");
    assert.equal(ask(signedCommit(stranger, fields(21, 0, new Uint8Array(32).fill(9)), [own(stranger), ...sybils.slice(0, 7).map(own)])), null, "a round ahead, 8 strangers may be fair");
    for (const x of rounds) x.stop();
  });

  it("a slow author does not hold the rounds: a majority commits without it, the replicas agree", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const authors = await testKeys(4);
    const bus = new Bus();
    // From iteration 3 on, node 3's messages (contributions and commits) take 150 ms to arrive:
    // within the 300 ms deadline, so without the quorum rule every round it was expected in took
    // over 150 ms. (Slow from the start, its rank-0 commit at the chain's start can lose to a
    // fallback's that another node has built on already: a fork only repair, not the rounds, mends.)
    const slow = authors[3].author.id;
    const { done, events } = await swarm(run, authors, 40, bus, 600);
    const evs0 = events.get(authors[0].author.id) ?? [];
    await afterApplied(evs0, 3);
    bus.slow.set(slow, 150);
    const rounds = await Promise.all(done);
    const sums = rounds.map((r) => r.checksumAt(40));
    assert.equal(new Set(sums).size, 1, `checksums differ: ${sums}`);
    const commits = rounds[0].appliedCommits().map((c) => c.commit);
    const withSlow = commits.filter((c) => c.entries.some((e) => e.author.id === slow)).length;
    const applied = (evs0.filter((e) => e.kind === "applied") as Extract<RoundsEvent, { kind: "applied" }>[]).filter((e) => e.iteration > 5);
    const held = applied.filter((e) => e.ms > 140).length;
    // Rounds the slow node proposes (its commit arrives late) may be slow; not most.
    assert.ok(held <= 8, `${held} of ${applied.length} rounds took over 140 ms (${withSlow} commits include the slow node)`);
    assert.ok(commits.every((c) => c.entries.length >= 3), `every commit holds the majority: ${JSON.stringify(commits.filter((c) => c.entries.length < 3).map((c) => [c.iteration, c.rank, c.proposer === slow, c.entries.map((e) => e.author.id === slow)]))}`);
    for (const r of rounds) r.stop();
  });

  it("the node that starts a chain commits its first iteration at once, not at the first tick", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const [a, b] = await testKeys(2);
    const firstRoundMs = async (starts: boolean) => {
      const { done, events } = await swarm(run, [a], 2, new Bus(), 2000, undefined, starts ? [a.author.id] : []);
      for (const r of await Promise.all(done)) r.stop();
      const applied = (events.get(a.author.id) ?? []).filter((e) => e.kind === "applied") as Extract<RoundsEvent, { kind: "applied" }>[];
      return applied[0].ms;
    };
    // The first tick is at 0.5 x roundTimeout = 1000 ms.
    const started = await firstRoundMs(true);
    const ticked = await firstRoundMs(false);
    assert.ok(started < 500, `the starter's first round took ${started} ms`);
    // A timer may fire a fraction of a millisecond early (999.7 ms seen in CI).
    assert.ok(ticked >= 900, `a node that does not start the chain committed alone after ${ticked} ms`);
    // With a node that does not start it and contributes at once, the starter's first round is
    // one both are in, or the ticks': never a fork, whoever contributed first.
    const { done } = await swarm(run, [a, b], 10, new Bus(), 600, undefined, [a.author.id]);
    const rounds = await Promise.all(done);
    assert.equal(new Set(rounds.map((r) => r.checksumAt(10))).size, 1);
    for (const r of rounds) r.stop();
  });

  it("a node none of whose contributions reaches a commit reports it after LEFT_OUT_REPORT commits; the others do not", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const authors = await testKeys(3);
    const bus = new Bus();
    // Node 2 hears everything and contributes, but nothing it sends arrives.
    const muted = authors[2].author.id;
    bus.muted.add(muted);
    const { done, events } = await swarm(run, authors, 2 * LEFT_OUT_REPORT + 5, bus, 600);
    const rounds = await Promise.all(done);
    assert.equal(new Set(rounds.map((r) => r.checksumAt(2 * LEFT_OUT_REPORT + 5))).size, 1);
    const leftOut = (id: string) => (events.get(id) ?? []).filter((e) => e.kind === "left out") as Extract<RoundsEvent, { kind: "left out" }>[];
    const reported = leftOut(muted);
    assert.equal(reported.length, 1, "reported once, at LEFT_OUT_REPORT commits");
    assert.equal(reported[0].commits, LEFT_OUT_REPORT);
    assert.ok(reported[0].contributionMs > 0 && reported[0].roundMs > 0, "with its moving averages");
    for (const a of authors.slice(0, 2)) assert.equal(leftOut(a.author.id).length, 0);
    for (const r of rounds) r.stop();
  });

  it("an author left out once by a little is waited for again: back in (nearly) every commit once it keeps pace", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const authors = await testKeys(4);
    const bus = new Bus();
    // Node 3's messages take 60 ms for iterations 3 to 12 (a mesh that forms last): the quorum
    // rule leaves it out of some commits. Then it keeps pace, and must be back in.
    const late = authors[3].author.id;
    const { done, events } = await swarm(run, authors, 50, bus, 600);
    const evs0 = events.get(authors[0].author.id) ?? [];
    await afterApplied(evs0, 3);
    bus.slow.set(late, 60);
    await afterApplied(evs0, 12);
    bus.slow.delete(late);
    const rounds = await Promise.all(done);
    const sums = rounds.map((r) => r.checksumAt(50));
    assert.equal(new Set(sums).size, 1, `checksums differ: ${sums}`);
    const commits = rounds[0].appliedCommits().map((c) => c.commit);
    const cut = commits.filter((c) => c.iteration >= 3 && c.iteration < 12 && !c.entries.some((e) => e.author.id === late)).length;
    const after = commits.filter((c) => c.iteration >= 20);
    const back = after.filter((c) => c.entries.some((e) => e.author.id === late)).length;
    assert.ok(back >= after.length - 2, `in ${back} of the ${after.length} commits from 20 on (left out of ${cut} while slow)`);
    for (const r of rounds) r.stop();
  });

  it("a node that dies stalls the others for at most about one deadline", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const authors = await testKeys(3);
    const bus = new Bus();
    const { done, events } = await swarm(run, authors, 20, bus);
    // After 5 iterations one node stops answering: the survivors must go on.
    const victim = authors[1].author.id;
    const evs0 = events.get(authors[0].author.id) ?? [];
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (evs0.filter((e) => e.kind === "applied").length >= 5) {
          bus.dead.add(victim);
          bus.nodes.get(victim)?.stop();
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    const [r0, r2] = await Promise.all([done[0], done[2]]);
    assert.equal(r0.head, 20);
    assert.equal(r0.checksumAt(20), r2.checksumAt(20));
    const applied = evs0.filter((e) => e.kind === "applied") as Extract<
      RoundsEvent,
      { kind: "applied" }
    >[];
    const slow = applied.filter((e) => e.ms > 0.5 * 200 + 60);
    assert.ok(slow.length <= 2, `${slow.length} slow rounds: ${slow.map((e) => Math.round(e.ms))}`);
    r0.stop();
    r2.stop();
  });
});

describe("rounds under a flood", () => {
  it("more than MAX_COMMIT_ENTRIES contributions from newcomers: the member first, then NEWCOMER_SLOTS newcomers by H(runId, t, author), no throw", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    // Some share a join time, so the peer id breaks ties in the order.
    const [self, ...others] = await testKeys(MAX_COMMIT_ENTRIES + 77, (i) => TEST_JOINED_AT + (i % 7));
    const published: Uint8Array[] = [];
    const events: RoundsEvent[] = [];
    const rounds = new Rounds(
      self.author,
      run,
      initialReplica(run),
      {
        publishContribution: async () => {},
        publishCommit: async (bytes) => {
          published.push(bytes);
        },
        sign: self.sign,
      },
      { roundTimeoutMs: 10_000, stopAt: 1, contribute: true },
      log,
      (e) => events.push(e),
    );
    // This node is the only author of the last commit: it proposes as soon as it contributed.
    rounds.resumeChain(new Uint8Array(32), [self.author.id]);
    const payload = new Uint8Array(run.algorithm.maxPayloadBytes);
    for (const k of others) rounds.onContribution(signedContribution(k, run.runId, 0, payload).c, 0, new Uint8Array(32));
    rounds.start();
    rounds.stop();
    assert.equal(published.length, 1, "one commit published");
    // The real wire check: every entry's signature, the proposer's, the order.
    const commit = commitFromBytes(published[0]).commit;
    // Admission (finding 1): the member (self) first, then NEWCOMER_SLOTS of the 1,100 newcomers,
    // picked by H(runId, t, author) whatever join time they claim.
    const admitted = proposerOrder(run.runId, 0, others.map((k) => k.author.id)).slice(0, NEWCOMER_SLOTS);
    assert.deepEqual(
      commit.entries.map((e) => e.author.id).sort(),
      [self.author.id, ...admitted].sort(),
    );
    const applied = events.find((e) => e.kind === "applied");
    assert.equal(applied?.kind === "applied" && applied.contributions, 1 + NEWCOMER_SLOTS);
  });

  it("caps what one signer and one iteration may hold for later iterations", async () => {
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const [self, flooder, ...signers] = await testKeys(22);
    const transport = { publishContribution: async () => {}, publishCommit: async () => {}, sign: self.sign };
    const rounds = new Rounds(self.author, run, initialReplica(run), transport, { roundTimeoutMs: 1000, stopAt: 10, contribute: false }, log);
    const payload = new Uint8Array(run.algorithm.maxPayloadBytes);
    const parent = new Uint8Array(32);
    // One signer, contributions on 4 parents for each of the next 100 iterations (those past
    // FUTURE_ITERATIONS are not held at all).
    for (let t = 1; t <= 100; t++)
      for (let p = 0; p < 4; p++) rounds.onContribution(signedContribution(flooder, run.runId, t, payload, new Uint8Array(32).fill(p)).c, t, new Uint8Array(32).fill(p));
    assert.equal(rounds.held().contributions, ROUND_CAPS.futureContributionsPerSigner);
    // Many signers for one iteration (signatures are the validator's: not checked here).
    const many = ROUND_CAPS.contributionsPerIteration + 50;
    const sig = new Uint8Array(64);
    for (let i = 0; i < many; i++) rounds.onContribution({ author: { id: `a${i}`, joinedAt: 2 }, payload, signature: sig }, 0, parent);
    assert.equal(rounds.held().contributions, ROUND_CAPS.futureContributionsPerSigner + ROUND_CAPS.contributionsPerIteration);

    const commitAt = (proposer: TestKey, iteration: number, rank: number) =>
      signedCommit(proposer, { runId: run.runId, iteration, checksum: new Uint8Array(32), rank }, [{ key: proposer, payload }]);
    // One proposer, 4 commits for each of 100 later iterations.
    for (let t = 1; t <= 100; t++) for (let rank = 0; rank < 4; rank++) rounds.onCommit(commitAt(flooder, t, rank));
    assert.equal(rounds.held().commits, ROUND_CAPS.pendingCommitsPerSigner);
    // Many proposers, competing commits for one later iteration (7 is past the flooder's 4).
    for (const [i, k] of signers.entries()) rounds.onCommit(commitAt(k, 7, i));
    assert.equal(rounds.held().commits, ROUND_CAPS.pendingCommitsPerSigner + ROUND_CAPS.pendingCommitsPerIteration);
  });
});
