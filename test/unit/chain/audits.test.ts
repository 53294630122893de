import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Audits, type ProofClaim } from "../../../node/chain/audits.js";
import { commitFromBytes } from "../../../node/chain/commit-wire.js";
import { Rounds, type RoundsEvent } from "../../../node/chain/rounds.js";
import { createLogger } from "../../../node/ground/index.js";
import { BYZANTINE_MODES } from "../../../node/ops/fault-hooks.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { checksum, type Weights } from "../../../training/params.js";
import { Replica } from "../../../training/replica.js";
import { initialReplica, openRun, type RunContext } from "../../../training/run-context.js";
import { type TestKey, testKeys } from "../../helpers/chain-keys.js";

const log = createLogger({ level: "silent" });

interface Member {
  readonly key: TestKey;
  readonly byzantine?: Exclude<keyof typeof BYZANTINE_MODES, "loss-liar">;
  readonly liar?: boolean;
  /** Audit budget (default 1: every commit). */
  readonly budget?: number;
  /** Never records an exclusion in its own commits: its proofs reach the chain only by gossip. */
  readonly neverRecords?: boolean;
}

/**
 * Nodes on an in-memory bus speaking the real wire (signed contributions, signed commits checked
 * by commitFromBytes), each with its audits at full budget; proofs are checked from the initial
 * state, replayed. Fraud proofs are gossiped on the bus too; `proofs` holds what each node's
 * audits made of those it received.
 */
async function swarm(run: RunContext, members: Member[], stopAt: number) {
  const nodes = new Map<string, Rounds>();
  const events = new Map<string, RoundsEvent[]>();
  const audits = new Map<string, Audits>();
  const proofs = new Map<string, string[]>();
  const deliver = (from: string, fn: (r: Rounds) => void): void => {
    setImmediate(() => {
      for (const [id, r] of nodes) if (id !== from) fn(r);
    });
  };
  const done = members.map(
    (m) =>
      new Promise<Rounds>((resolve) => {
        const self = m.key.author;
        const replica = initialReplica(run);
        const start = { iteration: 0, checksum: replica.checksum(), weights: replica.weights.slice() };
        const evs: RoundsEvent[] = [];
        events.set(self.id, evs);
        const tamper = m.byzantine ? BYZANTINE_MODES[m.byzantine] : undefined;
        const rounds: Rounds = new Rounds(
          self,
          run,
          replica,
          {
            publishContribution: async (c) =>
              deliver(self.id, (r) => r.onContribution({ author: { id: self.id, joinedAt: c.joinedAt }, payload: c.payload, signature: c.signature }, c.iteration, c.parentHash)),
            publishCommit: async (bytes) => deliver(self.id, (r) => r.onCommit(commitFromBytes(bytes))),
            sign: m.key.sign,
          },
          {
            roundTimeoutMs: 600,
            stopAt,
            contribute: true,
            ...(tamper
              ? {
                  tamper: (honest: Uint8Array, other: () => Uint8Array) => {
                    const out = tamper(new Int8Array(honest.buffer.slice(0)), () => new Int8Array(other().buffer.slice(0)));
                    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
                  },
                }
              : {}),
          },
          log,
          (e) => {
            evs.push(e);
            if (e.kind === "done") resolve(rounds);
          },
        );
        const replicaAt = (w: Weights, iteration: number) => new Replica(run.runId, run.model, w, iteration);
        proofs.set(self.id, []);
        const publishProof = (p: ProofClaim) =>
          setImmediate(() => {
            for (const [id, other] of audits) if (id !== self.id) proofs.get(id)?.push(other.takeProof(p, self.id));
          });
        const chargeFalseProof = (auditor: string) => proofs.get(self.id)?.push(`charged ${auditor}`);
        const chain = { commitAt: (t: number) => rounds.commitAt(t), checksumAt: (t: number) => rounds.checksumAt(t), snapshots: () => [start], isExcluded: (x: string) => rounds.isExcluded(x) };
        const a = new Audits(self.id, { algorithm: run.algorithm, replicaAt }, chain, { budget: m.budget ?? 1, liar: m.liar, publishProof, chargeFalseProof }, log);
        if (m.neverRecords) a.provable = () => [];
        rounds.useAudits(a);
        audits.set(self.id, a);
        nodes.set(self.id, rounds);
      }),
  );
  for (const r of nodes.values()) r.start();
  return { rounds: await Promise.all(done), events, audits, proofs };
}

describe("audits by recomputation (in-memory transport, tiny-spsa)", () => {
  it("a Byzantine author (max-flip) is proven, excluded at one iteration on every replica, and never included again", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const keys = await testKeys(4);
    const bad = keys[3].author.id;
    const { rounds, events, audits } = await swarm(
      run,
      // Node 2 runs no audits of its own: it learns of the fraud only from the proof, which it checks.
      keys.map((key, i) => ({ key, ...(i === 3 ? { byzantine: "max-flip" as const } : {}), ...(i === 2 ? { budget: 0 } : {}) })),
      40,
    );
    const honest = rounds.slice(0, 3);
    const sums = honest.map((r) => r.checksumAt(40));
    assert.equal(new Set(sums).size, 1, `honest checksums differ: ${sums}`);
    const exclusions = honest.map((r) => events.get(keys[rounds.indexOf(r)].author.id)?.filter((e) => e.kind === "excluded") ?? []);
    for (const ex of exclusions) {
      assert.equal(ex.length, 1, "each honest replica applies one exclusion");
      assert.equal(ex[0].kind === "excluded" && ex[0].author, bad);
    }
    const at = exclusions.map((ex) => (ex[0].kind === "excluded" ? ex[0].iteration : -1));
    assert.equal(new Set(at).size, 1, `excluded at ${at}`);
    assert.ok(at[0] <= 20, `excluded at iteration ${at[0]}`);
    for (const r of honest) {
      assert.ok(r.isExcluded(bad));
      for (const { commit } of r.appliedCommits().filter((c) => c.commit.iteration >= at[0]))
        assert.ok(!commit.entries.some((e) => e.author.id === bad), `entry of the excluded author at ${commit.iteration}`);
    }
    // The chain replays to the same bytes from the start, exclusions and all.
    const replay = initialReplica(run);
    for (const { commit } of honest[0].appliedCommits()) replay.applyIteration(run.algorithm, commit.entries);
    assert.equal(checksum(replay.weights), sums[0]);
    const found = [0, 1].reduce((s, i) => s + (audits.get(keys[i].author.id)?.counts.frauds ?? 0), 0);
    assert.ok(found >= 1, "an honest audit found the fraud");
    const checker = audits.get(keys[2].author.id);
    assert.equal(checker?.counts.audited, 0);
    assert.ok((checker?.counts.proofsChecked ?? 0) >= 1 && (checker?.counts.frauds ?? 0) >= 1, "the proof was checked by recomputing a replayed state");
    for (const r of rounds) r.stop();
  });

  it("a false accuser's exclusions are rejected and charged; nobody is excluded, the honest chain goes on", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const keys = await testKeys(3);
    const liar = keys[0].author.id;
    const { rounds, events, audits, proofs } = await swarm(
      run,
      keys.map((key, i) => ({ key, ...(i === 0 ? { liar: true } : {}) })),
      30,
    );
    // The liar's gossiped proofs too: recomputed, found false, the liar charged once, its later proofs ignored.
    for (const i of [1, 2]) {
      const got = proofs.get(keys[i].author.id) ?? [];
      assert.deepEqual(got.filter((v) => v.startsWith("charged")), [`charged ${liar}`], `node ${i}'s outcomes of the liar's proofs: ${got}`);
      assert.equal(got.filter((v) => v === "proven").length, 0);
    }
    const honest = [1, 2].map((i) => ({ r: rounds[i], evs: events.get(keys[i].author.id) ?? [], a: audits.get(keys[i].author.id) }));
    assert.equal(new Set(honest.map((h) => h.r.checksumAt(30))).size, 1);
    for (const h of honest) {
      assert.equal(h.evs.filter((e) => e.kind === "excluded").length, 0, "nobody excluded");
      const refused = h.evs.filter((e) => e.kind === "rejected" && e.reason.startsWith("false accusation"));
      assert.ok(refused.length >= 1, "the liar's exclusion was refused");
      for (const e of refused) assert.deepEqual(e.kind === "rejected" && [e.proposer, e.offence], [liar, "falseAccusation"]);
      assert.ok((h.a?.counts.falseAccusations ?? 0) >= 1);
      for (const { commit } of h.r.appliedCommits()) assert.equal(commit.exclusions?.length ?? 0, 0);
    }
    for (const r of rounds) r.stop();
  });

  it("a proof gossiped by an auditor that never proposes it is recomputed and recorded by another node", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const keys = await testKeys(4);
    const bad = keys[3].author.id;
    const auditor = keys[0].author.id;
    // Only node 0 audits, and it never records an exclusion itself: the chain can learn of the
    // fraud only through its gossiped proof, checked and recorded by nodes 1 or 2.
    const { rounds, events, audits, proofs } = await swarm(
      run,
      keys.map((key, i) => ({ key, budget: i === 0 ? 1 : 0, ...(i === 0 ? { neverRecords: true } : {}), ...(i === 3 ? { byzantine: "max-flip" as const } : {}) })),
      40,
    );
    const honest = rounds.slice(0, 3);
    assert.equal(new Set(honest.map((r) => r.checksumAt(40))).size, 1, "honest replicas identical");
    const recorded = honest[0].appliedCommits().filter((c) => (c.commit.exclusions ?? []).some((x) => x.author === bad));
    assert.equal(recorded.length, 1, "one commit of the chain excludes the Byzantine author");
    assert.notEqual(recorded[0].commit.proposer, auditor, "recorded by a node that only received the proof");
    assert.ok(recorded[0].commit.iteration <= 20, `excluded at ${recorded[0].commit.iteration}`);
    assert.ok((audits.get(auditor)?.counts.proofsSent ?? 0) >= 1, "the auditor gossiped its proof");
    const taken = [1, 2].map((i) => audits.get(keys[i].author.id)?.counts.proofsTaken ?? 0);
    assert.ok(taken.some((n) => n >= 1), `proofs taken by nodes 1 and 2: ${taken}`);
    for (const i of [1, 2]) {
      assert.equal(audits.get(keys[i].author.id)?.counts.audited, 0, "nodes 1 and 2 ran no audits of their own");
      assert.ok(!(proofs.get(keys[i].author.id) ?? []).some((v) => v === "false" || v.startsWith("charged")), "an honest proof is never judged false");
      assert.equal(events.get(keys[i].author.id)?.filter((e) => e.kind === "excluded").length, 1);
    }
    for (const r of rounds) r.stop();
  });
});
