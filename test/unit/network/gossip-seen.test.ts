import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Gossip, SEEN_KEEP } from "../../../node/network/gossip.js";
import type { SwarmNode } from "../../../node/network/libp2p.js";
import { createLogger } from "../../../node/ground/index.js";
import { faultHooks } from "../../../node/ops/fault-hooks.js";
import type { GossipContext } from "../../../protocol/validation.js";

/** A Gossip whose head the test moves; its libp2p host is never touched by the dedupe. */
function gossipAt(head: { value: number }) {
  const view = { head: () => head.value, maxPayloadBytes: 8, payloadProblem: () => null, admits: () => true, excluded: () => false, maxStaleness: 0 };
  const signer = { author: new Uint8Array(0), sign: () => new Uint8Array(64) };
  const g = new Gossip({} as SwarmNode, "ab".repeat(32), view, signer, faultHooks(), createLogger({ level: "silent" }));
  const ctx = () => (g as unknown as { context(): GossipContext }).context();
  return { g, ctx };
}

describe("gossip dedupe memory", () => {
  it("forgets the keys of iterations the head passed: a long run holds a few iterations' keys, not every key until the cap", () => {
    const head = { value: 0 };
    const { g, ctx } = gossipAt(head);
    const data = Uint8Array.of(1, 2, 3);
    for (let t = 0; t < 5000; t++) {
      head.value = t;
      for (let s = 0; s < 4; s++) assert.equal(ctx().seen("contribution", `signer${s}`, t, data), "new");
      // Still deduped within the live iterations.
      assert.equal(ctx().seen("contribution", "signer0", t, data), "same");
    }
    assert.ok(g.seenSize <= 8, `held ${g.seenSize} keys`);
  });

  it("a flood for iterations ahead is capped at SEEN_KEEP keys", () => {
    const { g, ctx } = gossipAt({ value: 10 });
    const data = Uint8Array.of(1);
    for (let i = 0; i < SEEN_KEEP * 3; i++) ctx().seen("commit", `sybil${i}`, 10 + (i % 1000), data);
    assert.equal(g.seenSize, SEEN_KEEP);
  });
});
