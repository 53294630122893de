/**
 * The daemon's heap policy takes effect when set at run time (node/ops/heap-policy.ts): the same
 * garbage flood over the same live set, in two fresh processes, one with `preferSmallHeap()`
 * called first. A flag V8 ignored after start would leave the two heaps alike.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
const policy = fileURLToPath(new URL("../../../node/ops/heap-policy.js", import.meta.url));
/** Peak V8 heap (MiB) of a process holding ~20 MiB live while it churns through medium-lived garbage. */
function peakHeapMb(small) {
    const script = `
    const { preferSmallHeap } = await import(${JSON.stringify(policy)});
    if (${small}) preferSmallHeap();
    const live = Array.from({ length: 150000 }, (_, i) => ({ s: "x".repeat(60) + i, b: new Uint8Array(16) }));
    let keep = [];
    let peak = 0;
    for (let r = 0; r < 300; r++) {
      for (let i = 0; i < 2000; i++) keep.push({ s: "y".repeat(100) + i, a: [i, i + 1, i + 2] });
      if (keep.length > 60000) keep = keep.slice(30000);
      peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    process.stdout.write(String(peak / 2 ** 20 + live.length * 0));
  `;
    return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
}
describe("heap policy", () => {
    it("preferSmallHeap keeps a garbage-heavy process's heap well below V8's default growth", () => {
        const normal = peakHeapMb(false);
        const small = peakHeapMb(true);
        assert.ok(small < 0.7 * normal, `peak heap ${small.toFixed(0)} MiB with the policy, ${normal.toFixed(0)} MiB without`);
    });
});
//# sourceMappingURL=heap-policy.test.js.map