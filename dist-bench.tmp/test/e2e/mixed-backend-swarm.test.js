/**
 * A swarm that mixes hardware (issue 14): a wasm node, a pure-JS cpu node and a node whose update
 * runs in WGSL on lavapipe (software Vulkan) must stay bit-identical.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { webGpuProblem } from "../helpers/vulkan.js";
import { runMixedSwarm } from "./mixed-swarm.js";
import { cleanup } from "./node-process.js";
after(cleanup);
const skip = (await webGpuProblem()) ?? false;
describe("mixed-backend swarm", { skip }, () => {
    it("wasm, cpu and webgpu-update nodes: 50 iterations, identical checksums at every iteration", { timeout: 240_000 }, async (t) => {
        const { nodes, exits, compared, disagreed } = await runMixedSwarm(50);
        for (const [i, e] of exits.entries())
            assert.equal(e.code, 0, `node ${i}: ${nodes[i].stderr}`);
        const inUse = nodes.map((n) => n.lines.find((l) => l.msg === "backend in use"));
        assert.deepEqual(inUse.map((l) => l?.backend), ["wasm", "cpu", "wasm"]);
        assert.deepEqual(inUse.slice(0, 2).map((l) => l?.updateKernels), ["wasm", "wasm"]);
        assert.match(String(inUse[2]?.updateKernels), /^webgpu \(llvmpipe.*\(software\)\)$/);
        const results = nodes.map((n) => n.result());
        assert.deepEqual(results.map((r) => r.iteration), [50, 50, 50]);
        assert.equal(new Set(results.map((r) => r.checksum)).size, 1, "all nodes end bit-identical");
        assert.equal(disagreed, 0);
        assert.ok(compared >= 50, `only ${compared} checksum pairs compared`);
        // The GPU node applied every iteration with its WGSL kernel (compared above), and those
        // iterations carried non-zero bytes. Whether its own bytes made the rounds depends on the
        // machine's load (on a loaded 2-core machine: anywhere from 0 to several of the 50 commits).
        const commits = nodes[2].commits();
        assert.ok(commits.filter((c) => c.entries.some((e) => /[^0]/.test(e.payload))).length >= 25, "non-zero gradient bytes were applied");
        const own = commits.filter((c) => c.entries.some((e) => e.author === results[2].peerId)).length;
        t.diagnostic(`the webgpu node's bytes are in ${own} of ${commits.length} commits`);
    });
});
//# sourceMappingURL=mixed-backend-swarm.test.js.map