/**
 * Issue 11, attack 9: old contributions from fresh keys. Each fresh key's contribution to an
 * iteration already committed made its author "late", and every round then waited up to
 * 0.5 x roundTimeout for it (tiny-spsa: 250 ms against rounds of a few tens). A hostile peer
 * on the real wire sends, every 20 ms, properly signed contributions to our head - 2 from 3 keys
 * it never used before, against 2 real node processes for 12 s. Once the burst of vain rounds the
 * nodes allow is spent (late-authors.ts: 16 rounds, about 4 s here), the rounds must keep at least
 * half their clean rate (the criterion); the nodes agree and exit 0, and the defence shows
 * in their logs (the old contributions of newcomers ignored unverified, so nobody waits for them).
 */
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { encodeContribution } from "../../protocol/codec.js";
import { PRESETS } from "../../protocol/presets.js";
import { algorithmOf, parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { stringifyTopic } from "../../protocol/topics.js";
import { signedContribution, testKeys } from "../helpers/chain-keys.js";
import { startAttacker } from "./attacker.js";
import { cleanup, type Node, startSwarm } from "./node-process.js";

after(cleanup);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Node 0's applied (iteration, log time) pairs. */
function applied(n: Node): { iteration: number; time: number }[] {
  return n.lines.filter((l) => l.msg === "applied" && typeof l.time === "number").map((l) => ({ iteration: l.iteration ?? 0, time: l.time as number }));
}

/** Iterations per second applied between two wall-clock times (ms), from the log. */
function rate(n: Node, from: number, to: number): number {
  const inside = applied(n).filter((a) => a.time >= from && a.time <= to);
  if (inside.length < 2) return 0;
  const a = inside[0];
  const b = inside[inside.length - 1];
  return ((b.iteration - a.iteration) * 1000) / Math.max(1, b.time - a.time);
}

describe("hostile late contributions (attack 9)", () => {
  it("fresh keys' old contributions every 20 ms keep the rounds at more than half their clean rate", async () => {
    const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], iterations: 100000 });
    const runId = runIdOf(spec);
    const topic = stringifyTopic({ runId, kind: "contribution" });
    const payload = new Uint8Array(algorithmOf(spec, "spsa").perturbations).fill(1);
    const nodes = await startSwarm(2, ["--iterations", "100000", "--log-level", "debug"]);
    const attacker = await startAttacker(nodes, [topic]);
    try {
      await nodes[0].waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 20, 60_000, "iteration 20");
      const cleanFrom = Date.now();
      await sleep(4000);
      const cleanTo = Date.now();
      const head = () => applied(nodes[0]).at(-1)?.iteration ?? 0;
      let sent = 0;
      // The fresh keys are made before the attack: the attacker's key generation would otherwise
      // take the victims' shared cores, which is no cost a remote attacker puts on them.
      const fresh = await testKeys(3 * 800, () => Date.now());
      const attackFrom = Date.now();
      while (Date.now() - attackFrom < 12_000 && fresh.length >= 3) {
        const keys = fresh.splice(0, 3);
        const t = Math.max(0, head() - 2);
        for (const k of keys) {
          await attacker.publish(topic, encodeContribution(signedContribution(k, runId, t, payload, new Uint8Array(32).fill(7)).m));
          sent++;
        }
        await sleep(20);
      }
      const attackTo = Date.now();
      const clean = rate(nodes[0], cleanFrom, cleanTo);
      const burst = rate(nodes[0], attackFrom, attackFrom + 6000);
      const attacked = rate(nodes[0], attackFrom + 6000, attackTo);
      process.stderr.write(
        `attack 9: ${clean.toFixed(1)} iterations/s clean, ${burst.toFixed(1)} in the first 6 s and ${attacked.toFixed(1)} in the next 6 s under ${sent} late contributions from fresh keys\n`,
      );
      assert.ok(sent >= 100, `the attack ran (${sent} contributions)`);
      assert.ok(clean > 5, `the clean swarm made progress (${clean.toFixed(1)}/s)`);
      assert.ok(attacked >= clean / 2, `after the burst ${attacked.toFixed(1)} iterations/s, clean ${clean.toFixed(1)}: more than half`);
      // The defence in the logs: the fresh keys' old contributions ignored as old, before their
      // signature is checked (newcomer-gate.ts), so they never name a late author to wait for.
      const ignored = nodes.map((n) => n.lines.filter((l) => l.msg === "gossip not accepted" && l.kind === "contribution" && l.code === "OLD_ITERATION").length);
      assert.ok(ignored.every((r) => r > 0), `each node ignored old contributions (${ignored.join(" / ")})`);
      for (const n of nodes) n.child.kill("SIGTERM");
      const exits = await Promise.all(nodes.map((n) => n.exit));
      for (const e of exits) assert.equal(e.code, 0, "no node crashed");
      const sums = nodes.map((n) => n.checksums());
      let compared = 0;
      for (const [it, sum] of sums[0])
        if (sums[1].has(it)) {
          compared++;
          assert.equal(sums[1].get(it), sum, `replicas agree at ${it}`);
        }
      assert.ok(compared > 50, `${compared} iterations compared`);
    } finally {
      await attacker.stop();
    }
  });
});
