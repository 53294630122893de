import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { localAuthors } from "../../../node/local/local-trainer.js";
import { createLogger } from "../../../node/observe/logger.js";
import type { Commit } from "../../../node/chain/commit.js";
import { commitFromBytes, commitToBytes } from "../../../node/chain/commit-wire.js";
import { ROUND_CAPS, Rounds, type RoundsEvent } from "../../../node/chain/rounds.js";
import { MAX_COMMIT_ENTRIES } from "../../../protocol/limits.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { compareAuthors, type Contribution } from "../../../training/algorithms/algorithm.js";
import { useBackend } from "../../../training/engine.js";
import type { Author } from "../../../training/rng/seeds.js";
import { initialReplica, openRun, type RunContext } from "../../../training/run-context.js";

const log = createLogger({ level: "silent" });
const encodeOf = (c: Commit) =>
  Buffer.from(
    JSON.stringify({
      ...c,
      prevHash: Buffer.from(c.prevHash).toString("hex"),
      checksum: Buffer.from(c.checksum).toString("hex"),
      entries: c.entries.map((e) => [
        e.author.id,
        e.author.joinedAt,
        Buffer.from(e.payload).toString("hex"),
      ]),
    }),
  );

/** In-memory gossip: every message reaches every other live node on a later tick. */
class Bus {
  readonly nodes = new Map<string, Rounds>();
  readonly dead = new Set<string>();
  deliver(from: string, fn: (r: Rounds) => void): void {
    setImmediate(() => {
      if (this.dead.has(from)) return;
      for (const [id, r] of this.nodes) if (id !== from && !this.dead.has(id)) fn(r);
    });
  }
}

/** Test stand-in for the wire: encoded bytes map back to the commit they encode. */
const commits = new Map<string, Commit>();

async function swarm(
  run: RunContext,
  authors: Author[],
  stopAt: number,
  bus = new Bus(),
  roundTimeoutMs = 200,
) {
  const events = new Map<string, RoundsEvent[]>();
  const done = authors.map(
    (self) =>
      new Promise<Rounds>((resolve) => {
        const replica = initialReplica(run);
        const evs: RoundsEvent[] = [];
        events.set(self.id, evs);
        const rounds: Rounds = new Rounds(
          self,
          run,
          replica,
          {
            publishContribution: async (iteration, payload) =>
              bus.deliver(self.id, (r) => r.onContribution({ author: self, payload }, iteration)),
            publishCommit: async (bytes) => {
              const c = commits.get(Buffer.from(bytes).toString("hex"));
              if (c) bus.deliver(self.id, (r) => r.onCommit({ commit: c, encoded: bytes }));
            },
            encodeCommit: (c) => {
              const bytes = encodeOf(c);
              commits.set(bytes.toString("hex"), c);
              return bytes;
            },
          },
          { roundTimeoutMs, stopAt, contribute: true },
          log,
          (e) => {
            evs.push(e);
            if (e.kind === "done") resolve(rounds);
          },
        );
        bus.nodes.set(self.id, rounds);
      }),
  );
  for (const r of bus.nodes.values()) r.start();
  return { done, events, bus };
}

describe("rounds (in-memory transport)", () => {
  it("3 nodes apply the same commits and match a single-process replay", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const authors = localAuthors(3).map((a, i) => ({ ...a, joinedAt: 1000 + i }));
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
      replay.applyIteration(run.algorithm, commit.entries as Contribution[]);
    assert.equal(replay.checksum(), sums[0]);
    // Everyone contributed to (nearly) every iteration.
    const included = rounds[0].appliedCommits().reduce((s, l) => s + l.commit.entries.length, 0);
    assert.ok(included >= 3 * 30 - 3, `only ${included} contributions included`);
    for (const r of rounds) r.stop();
  });

  it("a node that dies stalls the others for at most about one deadline", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const authors = localAuthors(3).map((a, i) => ({ ...a, joinedAt: 1000 + i }));
    const bus = new Bus();
    const { done, events } = await swarm(run, authors, 20, bus);
    // After 5 iterations one node stops answering: the survivors must go on.
    const victim = authors[1].id;
    const evs0 = events.get(authors[0].id) ?? [];
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
  /** `n` authors with real Ed25519 peer ids (the wire encoding parses them). */
  async function realAuthors(n: number): Promise<Author[]> {
    return Promise.all(
      Array.from({ length: n }, async (_, i) => ({
        id: peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString(),
        // Some share a join time, so the peer id breaks ties in the order.
        joinedAt: 1000 + (i % 7),
      })),
    );
  }

  it("more than MAX_COMMIT_ENTRIES contributions: the proposer commits the first ones in timestamp order, no throw", async () => {
    await useBackend("wasm");
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const [self, ...others] = await realAuthors(MAX_COMMIT_ENTRIES + 77);
    const published: Uint8Array[] = [];
    const events: RoundsEvent[] = [];
    const rounds = new Rounds(
      self,
      run,
      initialReplica(run),
      {
        publishContribution: async () => {},
        publishCommit: async (bytes) => {
          published.push(bytes);
        },
        // The real wire encoding: it refuses more than MAX_COMMIT_ENTRIES entries.
        encodeCommit: (c) => commitToBytes(run.runId, c),
      },
      { roundTimeoutMs: 10_000, stopAt: 1, contribute: true },
      log,
      (e) => events.push(e),
    );
    // This node is the only author of the last commit: it proposes as soon as it contributed.
    rounds.resumeChain(new Uint8Array(32), [self.id]);
    const payload = new Uint8Array(run.algorithm.maxPayloadBytes);
    for (const a of others) rounds.onContribution({ author: a, payload }, 0);
    rounds.start();
    rounds.stop();
    assert.equal(published.length, 1, "one commit published");
    const commit = commitFromBytes(published[0]).commit;
    assert.equal(commit.entries.length, MAX_COMMIT_ENTRIES);
    const first = [self, ...others].sort(compareAuthors).slice(0, MAX_COMMIT_ENTRIES);
    assert.deepEqual(
      commit.entries.map((e) => e.author.id),
      first.map((a) => a.id),
    );
    const applied = events.find((e) => e.kind === "applied");
    assert.equal(applied?.kind === "applied" && applied.contributions, MAX_COMMIT_ENTRIES);
  });

  it("caps what one signer and one iteration may hold for later iterations", async () => {
    const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
    const transport = { publishContribution: async () => {}, publishCommit: async () => {}, encodeCommit: encodeOf };
    const rounds = new Rounds(localAuthors(1)[0], run, initialReplica(run), transport, { roundTimeoutMs: 1000, stopAt: 10, contribute: false }, log);
    const payload = new Uint8Array(run.algorithm.maxPayloadBytes);
    const flooder: Author = { id: "flooder", joinedAt: 1 };
    // One signer, a contribution for each of the next 100 iterations.
    for (let t = 1; t <= 100; t++) rounds.onContribution({ author: flooder, payload }, t);
    assert.equal(rounds.held().contributions, ROUND_CAPS.futureContributionsPerSigner);
    // Many signers for one iteration.
    const many = ROUND_CAPS.contributionsPerIteration + 50;
    for (let i = 0; i < many; i++) rounds.onContribution({ author: { id: `a${i}`, joinedAt: 2 }, payload }, 0);
    assert.equal(rounds.held().contributions, ROUND_CAPS.futureContributionsPerSigner + ROUND_CAPS.contributionsPerIteration);

    const commitAt = (iteration: number, n: number) => {
      const c: Commit = { iteration, prevHash: new Uint8Array(32), checksum: new Uint8Array(32), rank: n, entries: [] };
      return { commit: c, encoded: encodeOf(c) };
    };
    // One signer, commits for 100 later iterations.
    for (let t = 1; t <= 100; t++) rounds.onCommit(commitAt(t, 0), "flooder");
    assert.equal(rounds.held().commits, ROUND_CAPS.pendingCommitsPerSigner);
    // Many signers, competing commits for one later iteration (200 is past the flooder's).
    for (let i = 0; i < 20; i++) rounds.onCommit(commitAt(200, i), `signer${i}`);
    assert.equal(rounds.held().commits, ROUND_CAPS.pendingCommitsPerSigner + ROUND_CAPS.pendingCommitsPerIteration);
  });
});
