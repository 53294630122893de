/**
 * Low-rank SPSA in a real swarm: two node processes on the tiny-spsa-lowrank preset (rank-1
 * directions, batched forward) end bit-identical, and a single-process replay of the commit log
 * ends on the same checksum.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec } from "../../protocol/run-spec.js";
import { useBackend } from "../../training/engine.js";
import { initialReplica, openRun } from "../../training/run-context.js";
import { cleanup, startSwarm } from "./node-process.js";
after(cleanup);
describe("low-rank SPSA swarm", () => {
    it("2 nodes, 30 iterations: identical checksums, equal to a replay of the commits", async () => {
        const nodes = await startSwarm(2, ["--preset", "tiny-spsa-lowrank", "--stop-at", "30"]);
        const exits = await Promise.all(nodes.map((n) => n.exit));
        for (const e of exits)
            assert.equal(e.code, 0);
        const results = nodes.map((n) => n.result());
        assert.deepEqual(new Set(results.map((r) => r.iteration)), new Set([30]));
        assert.equal(new Set(results.map((r) => r.checksum)).size, 1, "both nodes end bit-identical");
        await useBackend("wasm");
        const run = await openRun(parseRunSpec(PRESETS["tiny-spsa-lowrank"]));
        const r = initialReplica(run);
        const commits = new Map(nodes[1].commits().map((c) => [c.iteration, c]));
        const authors = new Set();
        for (const c of [...commits.values()].sort((x, y) => x.iteration - y.iteration)) {
            assert.equal(c.iteration, r.iteration, "commit log is contiguous");
            for (const e of c.entries)
                authors.add(e.author);
            r.applyIteration(run.algorithm, c.entries.map((e) => ({ author: { id: e.author, joinedAt: e.joinedAt }, payload: Buffer.from(e.payload, "hex") })));
        }
        assert.equal(authors.size, 2, "both nodes' contributions were applied");
        assert.equal(r.checksum(), results[0].checksum);
        r.dispose();
    });
});
//# sourceMappingURL=lowrank-swarm.test.js.map