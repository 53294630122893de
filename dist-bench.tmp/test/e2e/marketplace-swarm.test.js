/**
 * A Marketplace V2 swarm of two real node processes (tiny-marketplace): payloads of quantized
 * path losses travel over gossipsub, both nodes apply the same commits and stay bit-identical,
 * and the shared model's loss goes down.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec } from "../../protocol/run-spec.js";
import { useBackend } from "../../training/engine.js";
import { evaluate } from "../../training/evaluate.js";
import { initialReplica, openRun } from "../../training/run-context.js";
import { cleanup, startSwarm } from "./node-process.js";
after(cleanup);
const spec = parseRunSpec(PRESETS["tiny-marketplace"]);
const STOP = 40;
describe("Marketplace swarm of real node processes", () => {
    it("2 nodes, V2: identical checksums, equal to a single-process replay, loss lowered", async () => {
        const nodes = await startSwarm(2, ["--preset", "tiny-marketplace", "--stop-at", String(STOP)]);
        const exits = await Promise.all(nodes.map((n) => n.exit));
        for (const e of exits)
            assert.equal(e.code, 0);
        const results = nodes.map((n) => n.result());
        assert.deepEqual(new Set(results.map((r) => r.iteration)), new Set([STOP]));
        assert.equal(new Set(results.map((r) => r.checksum)).size, 1, "both nodes end bit-identical");
        const a = nodes[0].checksums();
        const b = nodes[1].checksums();
        for (let t = 1; t <= STOP; t++)
            if (a.has(t) && b.has(t))
                assert.equal(a.get(t), b.get(t), `checksums agree after ${t}`);
        // Replay a full commit log here (a node that started late on a loaded machine may have
        // joined by snapshot and logged only the commits after it): the same bytes, and the loss of
        // the shared model fell.
        const logs = nodes.map((n) => new Map(n.commits().map((c) => [c.iteration, c])));
        const commits = logs.find((l) => l.size === STOP);
        assert.ok(commits, `a node logged all ${STOP} commits (${logs.map((l) => l.size).join(", ")})`);
        const size = 8 + 16; // V2: base, step and one byte per path (4 vendors x 2 specs)
        const authors = new Set();
        await useBackend("wasm");
        const run = await openRun(spec);
        const r = initialReplica(run);
        const before = evaluate(run.model, r.backend.tensors, run.dataset.train);
        for (let t = 0; t < STOP; t++) {
            const c = commits.get(t);
            assert.ok(c, `commit ${t} in the log`);
            const entries = c.entries.map((e) => {
                authors.add(e.author);
                assert.equal(e.payload.length, 2 * size, "V2 payload size");
                return { author: { id: e.author, joinedAt: e.joinedAt }, payload: Buffer.from(e.payload, "hex") };
            });
            r.applyIteration(run.algorithm, entries);
        }
        assert.equal(r.checksum(), results[0].checksum);
        assert.deepEqual(authors, new Set(results.map((x) => x.peerId)), "both nodes contributed");
        const afterEval = evaluate(run.model, r.backend.tensors, run.dataset.train);
        assert.ok(afterEval.loss < 0.8 * before.loss, `loss ${before.loss} -> ${afterEval.loss}`);
        r.dispose();
    });
});
//# sourceMappingURL=marketplace-swarm.test.js.map