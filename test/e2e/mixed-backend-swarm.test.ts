/**
 * A swarm that mixes hardware (issue 14): three real node processes, one on the wasm backend, one
 * on pure-JS cpu, and one whose canonical update and seeded noise run in WGSL on a WebGPU device
 * (lavapipe, software Vulkan; SEEDSWARM_UPDATE_KERNELS=webgpu, forward passes on wasm), must stay
 * bit-identical.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { useLavapipe } from "../helpers/vulkan.js";
import { cleanup, Node, tempDir } from "./node-process.js";

after(cleanup);

const skip = useLavapipe() ?? false;

describe("mixed-backend swarm", { skip }, () => {
  it("wasm, cpu and webgpu-update nodes: 50 iterations, identical checksums at every iteration", async () => {
    const stop = ["--stop-at", "50"];
    const first = new Node(await tempDir(), [...stop, "--join-wait", "15000", "--min-peers", "2"]);
    const addr = await first.address();
    const cpu = new Node(await tempDir(), [...stop, "--bootstrap", addr, "--backend", "cpu"]);
    const gpu = new Node(await tempDir(), [...stop, "--bootstrap", addr], {
      SEEDSWARM_UPDATE_KERNELS: "webgpu",
      VK_DRIVER_FILES: process.env.VK_DRIVER_FILES ?? "",
    });
    const nodes = [first, cpu, gpu];
    const exits = await Promise.all(nodes.map((n) => n.exit));
    for (const [i, e] of exits.entries()) assert.equal(e.code, 0, `node ${i}: ${nodes[i].stderr}`);

    const inUse = nodes.map((n) => n.lines.find((l) => l.msg === "backend in use"));
    assert.deepEqual(inUse.map((l) => l?.backend), ["wasm", "cpu", "wasm"]);
    assert.deepEqual(inUse.slice(0, 2).map((l) => l?.updateKernels), ["wasm", "wasm"]);
    assert.match(String(inUse[2]?.updateKernels), /^webgpu \(llvmpipe.*\(software\)\)$/);

    const results = nodes.map((n) => n.result());
    assert.deepEqual(results.map((r) => r.iteration), [50, 50, 50]);
    assert.equal(new Set(results.map((r) => r.checksum)).size, 1, "all nodes end bit-identical");
    const sums = nodes.map((n) => n.checksums());
    let compared = 0;
    for (const [t, sum] of sums[2]) {
      for (const other of sums.slice(0, 2)) {
        if (!other.has(t)) continue;
        assert.equal(other.get(t), sum, `iteration ${t}`);
        compared++;
      }
    }
    assert.ok(compared >= 50, `only ${compared} checksum pairs compared`);
    // The GPU node's updates were not trivially empty: its own and others' bytes were applied.
    const commits = gpu.commits();
    // (It opens its device after the others start, so it joins a few iterations late.)
    const own = commits.filter((c) => c.entries.some((e) => e.author === results[2].peerId)).length;
    assert.ok(own >= 5, `the webgpu node's contributions are in only ${own} commits`);
    assert.ok(commits.some((c) => c.entries.some((e) => /[^0]/.test(e.payload))), "non-zero gradient bytes were applied");
  });
});
