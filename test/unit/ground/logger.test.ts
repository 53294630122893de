import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { pino } from "pino";
import { commitFromBytes } from "../../../node/chain/commit-wire.js";
import { detach } from "../../../node/ground/index.js";

describe("detach", () => {
  it("a detached promise that rejects is logged with what it was, never an unhandled rejection", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      // What fork resolution does with a /commits reply: decode it. Garbage throws in the task.
      const resolve = async () => commitFromBytes(Uint8Array.of(0xff, 0xff, 0xff, 0x01));
      detach(resolve(), pino({ level: "info" }, sink), "fork resolution");
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    assert.deepEqual(unhandled, []);
    assert.equal(lines.length, 1);
    assert.equal(lines[0].msg, "background task failed");
    assert.equal(lines[0].what, "fork resolution");
    assert.ok(lines[0].err, "the error is logged");
  });
});
