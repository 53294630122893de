/**
 * A swarm that mixes hardware, as real node processes: one on the wasm backend, one on pure-JS
 * cpu, and one whose canonical update runs in WGSL on the WebGPU device of
 * VK_DRIVER_FILES (SEEDSWARM_UPDATE_KERNELS=webgpu, forward passes on wasm). Shared by the e2e
 * test and the gpu benchmark (`mixed_backend_swarm_identical`).
 */
import { Node, tempDir } from "./node-process.js";
export async function runMixedSwarm(iterations) {
    const t = performance.now();
    const stop = ["--stop-at", String(iterations)];
    // The webgpu node starts first and holds the swarm until both others are connected: it is the
    // slowest to start (a worker thread opens the device), and one that joins a run late can be
    // left behind when the others stop at the same iteration.
    // (The child inherits VK_DRIVER_FILES: the test's lavapipe; unset on a GPU machine.)
    const gpu = new Node(await tempDir(), [...stop, "--join-wait", "120000", "--min-peers", "2"], { SEEDSWARM_UPDATE_KERNELS: "webgpu" });
    const addr = await gpu.address();
    const wasm = new Node(await tempDir(), [...stop, "--bootstrap", addr]);
    const cpu = new Node(await tempDir(), [...stop, "--bootstrap", addr, "--backend", "cpu"]);
    const nodes = [wasm, cpu, gpu];
    const exits = await Promise.all(nodes.map((n) => n.exit));
    const sums = nodes.map((n) => n.checksums());
    let compared = 0;
    let disagreed = 0;
    for (const [it, sum] of sums[2]) {
        for (const other of sums.slice(0, 2)) {
            if (!other.has(it))
                continue;
            compared++;
            if (other.get(it) !== sum)
                disagreed++;
        }
    }
    return { nodes, exits, compared, disagreed, seconds: (performance.now() - t) / 1000 };
}
//# sourceMappingURL=mixed-swarm.js.map