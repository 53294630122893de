/**
 * Issue 15 with real node processes over TCP: a Byzantine author (`SEEDSWARM_FAULT=byzantine:
 * max-flip`, +/-127 against the sign of its honest measurement every round) and a false accuser
 * (`audit-liar`, whose audits report fraud without cause) in one tiny-spsa swarm of four.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PRESETS } from "../../protocol/presets.js";
import { cleanup, startSwarm, tempDir } from "./node-process.js";

after(cleanup);

describe("Byzantine contributions and false accusations (real processes)", () => {
  it("the Byzantine author is excluded at one iteration on every honest replica; no false exclusion enters the honest chain", async (t) => {
    const stopAt = 70;
    const [liar, a, b, byz] = await startSwarm(
      4,
      // Every commit audited: the swarm is tiny, the point is the proof path, not the budget.
      ["--stop-at", String(stopAt), "--audit-budget", "1"],
      [{ SEEDSWARM_FAULT: "audit-liar" }, {}, {}, { SEEDSWARM_FAULT: "byzantine:max-flip" }],
    );
    const byzId = (await byz.waitFor((l) => l.msg === "node started", 30_000, "start")).peerId as string;
    const liarId = (await liar.waitFor((l) => l.msg === "node started", 30_000, "start")).peerId as string;
    const honest = [a, b];
    for (const n of honest) await n.waitFor((l) => l.msg === "author excluded" && l.author === byzId, 60_000, "the Byzantine author excluded");
    for (const n of honest) await n.waitFor((l) => l.msg === "peer penalised" && l.peer === byzId, 10_000, "the excluded author charged");
    const exits = await Promise.all(honest.map((n) => n.exit));
    for (const e of exits) assert.equal(e.code, 0);
    assert.equal(new Set(honest.map((n) => n.result().checksum)).size, 1, "honest replicas bit-identical");
    // The liar proposes false exclusions; none may enter the honest chain (asserted below). An
    // honest node refuses and charges it when the liar's commit chains onto the honest head; when
    // the liar was on a fork of its own by then, the commit never gets that far (its parent is
    // unknown), so the refusal is a diagnostic here and asserted in test/unit/chain/audits.test.ts.
    const refusals = honest.flatMap((n) => n.lines.filter((l) => l.msg === "commit rejected" && String(l.reason).startsWith("false accusation")));
    for (const r of refusals) assert.equal(r.proposer, liarId);
    t.diagnostic(`liar: ${liar.lines.filter((l) => l.msg === "author excluded" && l.author !== byzId).length} false exclusion(s) applied on its own chain; ${refusals.length} refused by honest nodes`);
    // The liar also gossips its proofs, about commits of the chain it shared with the honest nodes
    // at first: those recompute honest there, and cost it.
    const charged = honest.map((n) => n.lines.filter((l) => l.msg === "peer penalised" && l.peer === liarId && String(l.reason).startsWith("false fraud proof")).length);
    assert.ok(charged.some((c) => c >= 1), `the liar's false proofs charged by an honest node: ${charged}`);
    for (const n of honest)
      assert.ok(!n.lines.some((l) => l.msg === "peer penalised" && String(l.reason).startsWith("false fraud proof") && l.peer !== liarId), "an honest auditor charged for its proof");
    // On the chain both honest nodes end on (the last line per iteration: a one-step switch can
    // replace a commit that a node logged first), one commit excludes the Byzantine author, and
    // none from there on holds its bytes; nobody honest is excluded.
    const at = honest.map((n) => {
      const chain = [...new Map(n.commits().map((c) => [c.iteration, c])).values()].sort((x, y) => x.iteration - y.iteration);
      const excluding = chain.filter((c) => c.exclusions?.some((x) => x.author === byzId));
      assert.equal(excluding.length, 1, "one commit excludes the Byzantine author");
      for (const c of chain.filter((c) => c.iteration >= excluding[0].iteration))
        assert.ok(!c.entries.some((e) => e.author === byzId), `entry of the excluded author at ${c.iteration}`);
      for (const c of chain) for (const x of c.exclusions ?? []) assert.equal(x.author, byzId, `an honest author excluded at ${c.iteration}`);
      return excluding[0].iteration;
    });
    assert.equal(new Set(at).size, 1, `excluded at ${at}`);
    assert.ok(at[0] <= 50, `excluded at iteration ${at[0]}`);
    for (const n of [liar, byz]) n.child.kill("SIGKILL");
  });

  it("Marketplace V1: a loss liar (claims loss 0 to win every iteration) is excluded; training goes on", async () => {
    const base = PRESETS["tiny-marketplace"];
    const specFile = join(await tempDir(), "spec.json");
    writeFileSync(specFile, JSON.stringify({ ...base, name: "tiny-marketplace-v1", algorithm: { ...base.algorithm, version: 1 } }));
    const nodes = await startSwarm(3, ["--spec", specFile, "--stop-at", "60", "--audit-budget", "1"], [{}, {}, { SEEDSWARM_FAULT: "byzantine:loss-liar" }]);
    const liarId = (await nodes[2].waitFor((l) => l.msg === "node started", 30_000, "start")).peerId as string;
    const honest = nodes.slice(0, 2);
    await Promise.all(honest.map((n) => n.waitFor((l) => l.msg === "author excluded" && l.author === liarId, 60_000, "the loss liar excluded")));
    const exits = await Promise.all(honest.map((n) => n.exit));
    for (const e of exits) assert.equal(e.code, 0);
    assert.equal(new Set(honest.map((n) => n.result().checksum)).size, 1, "honest replicas bit-identical");
    assert.deepEqual(new Set(honest.map((n) => n.result().iteration)), new Set([60]), "training went on to the end");
    nodes[2].child.kill("SIGKILL");
  });
});
