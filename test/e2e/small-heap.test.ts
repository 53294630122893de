/**
 * `seedswarm node --small-heap`: what only process start can set (V8's young generation, glibc's
 * allocator) is named in a hint when missing, and not mentioned once set.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ALLOCATOR_ENV, SMALL_HEAP_ENV, YOUNG_GENERATION_FLAG } from "../../node/ops/heap-policy.js";
import { cleanup, type Line, Node, tempDir } from "./node-process.js";

after(cleanup);

const hint = (n: Node, words: string): Line | undefined =>
  n.lines.find((l) => typeof l.msg === "string" && l.msg.startsWith("small heap:") && l.msg.includes(words));

describe("--small-heap start-up hints", () => {
  it("name the settings missing at process start, and stay silent once both are set", async () => {
    // Unset, not empty: glibc reads an empty MALLOC_MMAP_THRESHOLD_ as 0 and maps every block
    // (start-up then took 16 s instead of 2).
    const unset = Object.fromEntries(Object.keys(ALLOCATOR_ENV).map((k) => [k, undefined]));
    const bare = new Node(await tempDir(), ["--small-heap"], { NODE_OPTIONS: undefined, ...unset });
    const ready = new Node(await tempDir(), ["--small-heap"], { ...SMALL_HEAP_ENV });
    try {
      for (const n of [bare, ready]) await n.address();
      assert.equal(hint(bare, "young generation")?.hint, `NODE_OPTIONS=${YOUNG_GENERATION_FLAG}`);
      const allocator = Object.entries(ALLOCATOR_ENV).map(([k, v]) => `${k}=${v}`).join(" ");
      assert.equal(hint(bare, "allocator")?.hint, allocator);
      assert.equal(hint(ready, "young generation"), undefined);
      assert.equal(hint(ready, "allocator"), undefined);
    } finally {
      // Only the start-up lines matter here: no graceful stop (a checkpoint) to wait for.
      for (const n of [bare, ready]) n.child.kill("SIGKILL");
      await Promise.all([bare.exit, ready.exit]);
    }
  });
});
