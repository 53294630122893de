import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withdrawals } from "../../../node/network/experts.js";

const keys = (claims: ReturnType<typeof withdrawals>) => claims.map((c) => `${c.prefix}:${c.suffix}:${c.ttlMs}`).sort();

describe("expert withdrawals", () => {
  it("a replaced snapshot is withdrawn once, at the grid key, not at each of its chunk keys", () => {
    const old = [0, 1, 2, 3].map((c) => `snap.100.${c}`);
    const now = [0, 1, 2, 3].map((c) => `snap.120.${c}`);
    assert.deepEqual(keys(withdrawals(old, now)), ["snap:100:1"]);
  });

  it("a dropped uid whose branch is still served is withdrawn where it leaves it", () => {
    assert.deepEqual(keys(withdrawals(["grid.1.1", "grid.2.5"], ["grid.1.2"])), ["grid.1:1:1", "grid:2:1"]);
  });

  it("nothing kept: every top-level branch is withdrawn once", () => {
    assert.deepEqual(keys(withdrawals(["a.1.1", "a.1.2", "a.3.0", "b.4"], [])), ["a:1:1", "a:3:1", "b:4:1"]);
  });

  it("a dropped prefix of a kept uid stays found: no withdrawal", () => {
    assert.deepEqual(withdrawals(["grid.1"], ["grid.1.1"]), []);
  });
});
