/**
 * The wire fuzz test (issue 11): three real node processes and a pool of hostile identities
 * sending a few hundred WireFuzzer cases per gossip topic and per sync protocol, and answering
 * the nodes' own requests with hostile replies. The full 10,000-per-topic run is the `fuzz`
 * benchmark (bench/fuzz.ts). A failure prints the seed; `SEEDSWARM_FUZZ_SEED=<seed>` replays it.
 */
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { PROTOCOL_NAMES, TOPIC_KINDS } from "../../protocol/topics.js";
import { converged, nodeCounts, notAccepted, runFuzzCampaign, syncSeen } from "./fuzz-campaign.js";
import { cleanup, type Node, startSwarm } from "./node-process.js";

after(cleanup);

/** Per gossip topic: 5 topics x 120 keeps the campaign at the 600 messages it had with 4 topics (npm test time). */
const PER_TOPIC = 120;
const PER_PROTOCOL = 100;
const url = async (n: Node) => String((await n.waitFor((l) => l.msg === "http listening", 20_000, "http listening")).url);
const headOf = (n: Node) => n.lines.findLast((l) => l.msg === "applied")?.iteration ?? -1;

describe("wire fuzz", () => {
  it("hundreds of hostile messages per topic and protocol: no crash, no state change, progress, the cases reach the validators", async () => {
    const seed = Number(process.env.SEEDSWARM_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], iterations: 100000 });
    const runId = runIdOf(spec);
    const nodes = await startSwarm(3, ["--iterations", "100000", "--http", "127.0.0.1:0"]);
    const urls = await Promise.all(nodes.map(url));
    await Promise.all(nodes.map((n) => n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 3, 30_000, "iteration 3")));
    const before = await Promise.all(urls.map(nodeCounts));

    const result = await runFuzzCampaign(nodes, { seed, runId, perTopic: PER_TOPIC, perProtocol: PER_PROTOCOL, concurrency: 12, burst: 100 });
    const counts = await Promise.all(urls.map(nodeCounts));
    /** Per node and kind: messages that reached validation during the campaign (leaves: all, since honest nodes send none mid-run; other kinds: those not accepted, since honest traffic is accepted). */
    const reached = counts.map((c, i) =>
      Object.fromEntries(
        TOPIC_KINDS.map((kind) => [
          kind,
          kind === "leave"
            ? Object.values(c.gossip[kind] ?? {}).reduce((a, b) => a + b, 0) - Object.values(before[i].gossip[kind] ?? {}).reduce((a, b) => a + b, 0)
            : notAccepted(c, kind) - notAccepted(before[i], kind),
        ]),
      ),
    );
    const context = `seed ${seed}: ${JSON.stringify({ ...result, ids: result.ids.size, reached })}`;

    // Progress after the attack: every node applies 5 more iterations.
    const heads = nodes.map(headOf);
    await Promise.all(
      nodes.map((n, i) => n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= heads[i] + 5, 20_000, `progress past ${heads[i]}`)),
    );
    // Not in the middle of a fork between two honest proposers (settled by the fork choice
    // within a round or two); a disagreement that outlasts the wait fails the checks below.
    await converged(nodes, 15_000);
    for (const n of nodes) n.child.kill("SIGTERM");
    const exits = await Promise.all(nodes.map((n) => n.exit));
    for (const e of exits) assert.equal(e.code, 0, `a node crashed (${context})`);

    // No state change: the replicas agree at every iteration all three applied, and no hostile
    // identity authored or proposed anything in the chain.
    const sums = nodes.map((n) => n.checksums());
    let compared = 0;
    for (const [it, sum] of sums[0])
      if (sums[1].has(it) && sums[2].has(it)) {
        assert.equal(sums[1].get(it), sum, `iteration ${it} (${context})`);
        assert.equal(sums[2].get(it), sum, `iteration ${it} (${context})`);
        compared++;
      }
    assert.ok(compared >= 10, `compared ${compared} iterations`);
    for (const n of nodes)
      for (const c of n.commits()) {
        assert.ok(!result.ids.has(String((c as { proposer?: string }).proposer)), `a hostile proposer in the chain (${context})`);
        assert.ok(c.entries.every((e) => !result.ids.has(e.author)), `a hostile author in the chain (${context})`);
      }

    // Not vacuous: most cases reached every node's validators (per node, per topic: at least half
    // of what was published), and the sync handlers saw the requests.
    // Cases a validator accepts (a far-past heartbeat, a contribution on a wrong parent, a usurping
    // commit the rounds then refuse) are not counted here, so per kind the floor is low; in all,
    // at least a third of every case published reached each node's validators and was refused.
    // Per kind, two of the three nodes at least: an honest node relays no refused case, so one a
    // burst's identity was not yet meshed with hears only what it was sent directly (a clean CI run:
    // one node validated 11 of 120 heartbeat cases while the other two validated 78 each).
    for (const kind of TOPIC_KINDS) {
      const low = reached.map((r, i) => ({ i, n: r[kind] })).filter(({ n }) => n < PER_TOPIC * 0.1);
      assert.ok(low.length <= 1, `${low.map(({ i, n }) => `node ${i} validated only ${n}`).join(", ")} of ${PER_TOPIC} ${kind} cases (${context})`);
    }
    for (const [i, r] of reached.entries()) {
      const all = TOPIC_KINDS.reduce((s, k) => s + r[k], 0);
      assert.ok(all >= (PER_TOPIC * TOPIC_KINDS.length) / 3, `node ${i} validated only ${all} cases in all (${context})`);
    }
    for (const p of PROTOCOL_NAMES) {
      const seen = counts.reduce((s, c, i) => s + syncSeen(c, p) - syncSeen(before[i], p), 0);
      assert.ok(seen >= PER_PROTOCOL / 3, `${p}: the handlers saw ${seen} of ${PER_PROTOCOL} requests (${context})`);
    }
    // Penalties are counted, not required: a fuzzed commit is judged (and its usurping signer
    // charged) only if it arrives while its iteration is the head, which on a fast swarm is luck
    // (1 run in ~4 had none on some node). The e2e tests hostile-chain and hostile charge on purpose.
    const charged = nodes.map((n) => n.lines.filter((l) => l.msg === "peer penalised" && result.ids.has(String(l.peer))).length);
    const refused = nodes.map((n) => n.lines.filter((l) => l.msg === "commit rejected").length);
    console.log(`fuzz: hostile signers charged per node ${charged}; commits rejected per node ${refused}`);
    // Garbage replies to the nodes' own requests crashed nothing (counted, not required: the
    // nodes ask the attackers only on a heartbeat hint or a check).
    console.log(`fuzz: ${context}`);
  });
});
