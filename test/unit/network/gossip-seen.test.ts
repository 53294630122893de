import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Gossip, SEEN_KEEP, SIGNER_KEEP } from "../../../node/network/gossip.js";
import type { SwarmNode } from "../../../node/network/libp2p.js";
import { createLogger } from "../../../node/observe/logger.js";
import { faultHooks } from "../../../node/ops/fault-hooks.js";
import type { GossipContext } from "../../../protocol/validation.js";

/** A Gossip whose head the test moves; its libp2p host is never touched by the dedupe. */
function gossipAt(head: { value: number }) {
  const view = { head: () => head.value, maxPayloadBytes: 8, payloadProblem: () => null, admits: () => true, maxStaleness: 0 };
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

  it("one signer holds at most SIGNER_KEEP keys ahead; honest signers keep their room, and a signer's room comes back as the head passes", () => {
    const head = { value: 10 };
    const { g, ctx } = gossipAt(head);
    const data = Uint8Array.of(1);
    // One identity signs a message for each of 1,000 iterations ahead, of both kinds.
    const outcomes = new Map<string, number>();
    for (let t = 10; t < 1010; t++)
      for (const kind of ["contribution", "commit"] as const) {
        const o = ctx().seen(kind, "flooder", t, data);
        outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
      }
    assert.deepEqual(Object.fromEntries(outcomes), { new: SIGNER_KEEP, crowded: 2000 - SIGNER_KEEP });
    assert.equal(g.seenSize, SIGNER_KEEP);
    // A second signer is untouched by the first's flood.
    assert.equal(ctx().seen("contribution", "honest", 10, data), "new");
    assert.equal(ctx().seen("contribution", "honest", 10, data), "same", "still deduped");
    // Known keys of a full signer still dedupe (same) and see a second version (different).
    assert.equal(ctx().seen("contribution", "flooder", 10, data), "same");
    assert.equal(ctx().seen("contribution", "flooder", 10, Uint8Array.of(2)), "different");
    // The head passes the flooder's first 16 iterations (32 keys): it has room for 32 more.
    head.value = 27;
    let fresh = 0;
    for (let t = 100; t < 200; t++) if (ctx().seen("commit", "flooder", t, data) === "new") fresh++;
    assert.equal(fresh, 32);
  });
});
