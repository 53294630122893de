import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { healthOf, NODE_STATES, stallMsFor } from "../../../node/observe/run-monitor.js";

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
