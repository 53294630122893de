/**
 * The round-trace diagnostic (bench/round-trace.ts) on a short real swarm: its preload still finds
 * the methods it times (it throws naming one that was renamed), both nodes' traces come back, and
 * the report's figures are consistent (the parts of a contribution's time add up to it).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const TOOL = fileURLToPath(new URL("../../bench/round-trace.js", import.meta.url));

describe("round trace", () => {
  it("reports each node's time per contribution and the commit path of a 2-node swarm", async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [TOOL, "--stop-at", "60", "--from", "20"], { timeout: 120_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(stdout))),
    );
    const nodes = [...out.matchAll(/^node (\d): (\d+) contributions, ([\d.]+) ms each: (.*), idle or untimed ([\d.]+)$/gm)];
    assert.equal(nodes.length, 2, out);
    for (const [, , count, each, parts, rest] of nodes) {
      assert.ok(Number(count) >= 20, `contributions from iteration 20 to 60: ${count}`);
      const spans = new Map([...parts.matchAll(/([a-z-]+) ([\d.]+)/g)].map((m) => [m[1], Number(m[2])]));
      assert.ok((spans.get("contribute") ?? 0) > 0, `time computing contributions: ${parts}`);
      assert.ok(spans.has("commit-in"), `time handling commits: ${parts}`);
      const sum = [...spans.values()].reduce((a, b) => a + b, 0) + Number(rest);
      // Each figure is rounded to 0.1 ms.
      assert.ok(Math.abs(sum - Number(each)) <= 0.1 * (spans.size + 2), `parts ${sum} against ${each} ms: ${out}`);
    }
    const paths = [...out.matchAll(/contribution reached its handler ([\d.]+) ms \(median, (\d+)\).* ([\d.]+) ms after \((\d+)\)$/gm)];
    assert.equal(paths.length, 2, out);
    assert.ok(
      paths.some((p) => Number(p[2]) > 0 && Number(p[4]) > 0),
      `commits matched to the contributions and handlers they name: ${out}`,
    );
  });
});
