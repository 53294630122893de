import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pino } from "pino";
import { healthOf, NODE_STATES, RunMonitor, stallMsFor } from "../../../node/observe/run-monitor.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import type { Replica } from "../../../training/replica.js";
import type { TrainingRun } from "../../../training/run-context.js";

describe("evaluations", () => {
  it("a causal-LM run (no accuracy, ever) is evaluated once at the start, then every evalEvery iterations", () => {
    const dir = mkdtempSync(join(tmpdir(), "seedswarm-monitor-"));
    let calls = 0;
    const run = {
      runId: "0".repeat(64),
      spec: parseRunSpec(PRESETS["tiny-lm"]),
      algorithm: { lastLoss: 1 } as unknown as TrainingRun["algorithm"],
      heldOut: () => {
        calls++;
        return { loss: 2, accuracy: null, examples: 10 };
      },
    };
    const replica = { iteration: 0, backend: { tensors: [] } } as unknown as Replica & { iteration: number };
    const view = { peerId: "p", state: () => "training" as const, peers: () => 1, checksum: () => "c", backend: () => "cpu" };
    const monitor = new RunMonitor(run, replica, view, null, join(dir, "metrics.jsonl"), { evalEvery: 50, evalLimit: 10, stallMs: 10_000, historyRows: 10, rowEveryMs: 1e9 }, pino({ level: "silent" }));
    for (let t = 1; t <= 120; t++) {
      replica.iteration = t;
      monitor.onApplied(1);
    }
    assert.equal(calls, 3, "iterations 1, 50 and 100");
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("health", () => {
  const stall = 10_000;
  it("healthy only while training or following with a recent iteration", () => {
    const now = 1_000_000;
    const verdicts = NODE_STATES.map((s) => [s, healthOf(s, now - 1000, now, stall)] as const);
    assert.deepEqual(
      verdicts.map(([s, h]) => [s, h.ok, h.reason]),
      [
        ["joining", false, "joining"],
        ["training", true, "ok"],
        ["following", true, "ok"],
        ["leaving", false, "leaving"],
      ],
    );
  });

  it("stalled once no iteration was applied for longer than the threshold", () => {
    const now = 1_000_000;
    assert.equal(healthOf("training", now - stall, now, stall).ok, true);
    const h = healthOf("training", now - stall - 2500, now, stall);
    assert.equal(h.ok, false);
    assert.equal(h.reason, "stalled: no iteration applied for 13 s");
    assert.equal(healthOf("following", now - 60_000, now, stall).ok, false);
  });

  it("the stall threshold is five round timeouts, at least 10 s", () => {
    assert.equal(stallMsFor(500), 10_000);
    assert.equal(stallMsFor(2000), 10_000);
    assert.equal(stallMsFor(10_000), 50_000);
  });
});
