/** Finding 3b: serve slots per peer and one byte budget for all replies, waited for in order, never past the deadline. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ServeLimitError, ServeLimits } from "../../../node/sync/serve-limits.js";

const never = new AbortController().signal;

describe("finding 3b: serve limits", () => {
  it("a peer gets at most perPeer serves at once; the next waits its turn; another peer does not wait", async () => {
    const limits = new ServeLimits({ perPeer: 2, maxBytes: 100 });
    const a1 = await limits.enter("a", never);
    await limits.enter("a", never);
    let third = false;
    const p = limits.enter("a", never).then((r) => ((third = true), r));
    await limits.enter("b", never);
    await new Promise((r) => setImmediate(r));
    assert.equal(third, false);
    assert.equal(limits.activeFor("a"), 2);
    a1();
    a1(); // a second release is a no-op
    await p;
    assert.equal(third, true);
    assert.equal(limits.activeFor("a"), 2);
  });

  it("replies hold at most maxBytes together; a shrunk reservation lets the next in; one larger than the budget goes alone", async () => {
    const limits = new ServeLimits({ perPeer: 4, maxBytes: 100 });
    const r1 = await limits.reserve(80, never);
    let second = false;
    const p2 = limits.reserve(50, never).then((r) => ((second = true), r));
    await new Promise((r) => setImmediate(r));
    assert.equal(second, false);
    r1.shrink(40);
    const r2 = await p2;
    assert.equal(limits.heldBytes, 90);
    r1.release();
    r2.release();
    assert.equal(limits.heldBytes, 0);
    const big = await limits.reserve(500, never);
    assert.equal(limits.heldBytes, 500);
    big.release();
  });

  it("waiting past the deadline fails with a typed error and leaves nothing held", async () => {
    // AbortSignal.timeout does not hold the event loop open by itself.
    const alive = setInterval(() => {}, 1000);
    const limits = new ServeLimits({ perPeer: 1, maxBytes: 100 });
    const leave = await limits.enter("a", never);
    await assert.rejects(limits.enter("a", AbortSignal.timeout(50)), (e: ServeLimitError) => e.code === "SERVE_DEADLINE");
    const held = await limits.reserve(100, never);
    await assert.rejects(limits.reserve(10, AbortSignal.timeout(50)), ServeLimitError);
    held.release();
    leave();
    assert.equal(limits.activeFor("a"), 0);
    assert.equal(limits.heldBytes, 0);
    clearInterval(alive);
  });
});
