import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localAuthors } from "../../../node/local/local-trainer.js";
import { createLogger } from "../../../node/observe/logger.js";
import type { Commit } from "../../../node/chain/commit.js";
import { Rounds, type RoundsEvent } from "../../../node/chain/rounds.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import type { Contribution } from "../../../training/algorithms/algorithm.js";
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
