/**
 * A chain's start (proposer-schedule.ts): the node that waited for its --min-peers quorum commits
 * the genesis alone; the peers it waited for join on that commit. With them connected, its first
 * round after the genesis waits for the ticks, so a joiner one link-delay behind is in commit 1;
 * a starter that found nobody commits at once, and the joiner misses it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commitFromBytes } from "../../../node/chain/commit-wire.js";
import { Rounds, type RoundsEvent } from "../../../node/chain/rounds.js";
import { createLogger } from "../../../node/ground/index.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
import { type TestKey, testKeys } from "../../helpers/chain-keys.js";

const log = createLogger({ level: "silent" });
/** One-way delay of the link between the two nodes, ms (well under tiny-spsa's 250 ms first tick). */
const LINK_MS = 30;

/** The starter and a joiner that starts once it applied the genesis; the authors of commit 1. */
async function firstRound(keys: readonly TestKey[], withPeers: boolean): Promise<string[]> {
  await useBackend("wasm");
  const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
  const nodes: Rounds[] = [];
  let joinerStarted = false;
  const authorsAt1 = new Promise<string[]>((resolve) => {
    keys.forEach(({ author: self, sign }, i) => {
      const others = () => nodes.filter((_, j) => j !== i);
      const later = (fn: (r: Rounds) => void) => void setTimeout(() => others().forEach(fn), LINK_MS);
      const onEvent = (e: RoundsEvent) => {
        // `iteration`: the state's, one past the commit applied.
        if (e.kind !== "applied") return;
        if (i === 1 && e.iteration === 1 && !joinerStarted) {
          joinerStarted = true;
          nodes[1].start(false);
        }
        // Read once the event's handlers are done: the commit is in the applied history by then.
        if (i === 0 && e.iteration === 2) setImmediate(() => resolve(nodes[0].commitAt(1)?.commit.entries.map((x) => x.author.id) ?? []));
      };
      nodes.push(
        new Rounds(
          self,
          run,
          initialReplica(run),
          {
            publishContribution: async (m) => later((r) => r.onContribution({ author: { id: self.id, joinedAt: m.joinedAt }, payload: m.payload, signature: m.signature }, m.iteration, m.parentHash)),
            publishCommit: async (bytes) => later((r) => r.onCommit(commitFromBytes(bytes))),
            sign,
          },
          { roundTimeoutMs: run.spec.roundTimeoutMs, stopAt: 4, contribute: true },
          log,
          onEvent,
        ),
      );
    });
  });
  nodes[0].start(true, withPeers);
  const authors = await authorsAt1;
  for (const r of nodes) r.stop();
  return authors;
}

describe("a chain's start", () => {
  it("a starter that waited for its peers has the joiner in its first commit after the genesis; one that found nobody does not wait", async () => {
    const keys = await testKeys(2);
    const [starter, joiner] = keys.map((k) => k.author.id);
    assert.deepEqual((await firstRound(keys, true)).sort(), [starter, joiner].sort(), "both in commit 1");
    assert.deepEqual(await firstRound(keys, false), [starter], "committed at once, alone");
  });
});
