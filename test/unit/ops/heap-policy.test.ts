/**
 * The daemon's heap policy takes effect when set at run time (node/ops/heap-policy.ts): the same
 * garbage flood over the same live set, in two fresh processes, one with `preferSmallHeap()`
 * called first. A flag V8 ignored after start would leave the two heaps alike.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import {
  ALLOCATOR_ENV,
  allocatorUnset,
  GC_ON_MAIN_THREAD_FLAG,
  gcOnMainThread,
  YOUNG_GENERATION_FLAG,
  youngGenerationCapped,
} from "../../../node/ops/heap-policy.js";

const policy = fileURLToPath(new URL("../../../node/ops/heap-policy.js", import.meta.url));

/** Peak V8 heap (MiB) of a process holding ~20 MiB live while it churns through medium-lived garbage. */
function peakHeapMb(small: boolean): number {
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

describe("young generation cap", () => {
  it("is seen in node's own arguments or in NODE_OPTIONS, in either spelling", () => {
    assert.equal(youngGenerationCapped([], undefined), false);
    assert.equal(youngGenerationCapped(["--max-old-space-size=512"], "--enable-source-maps"), false);
    assert.equal(youngGenerationCapped([YOUNG_GENERATION_FLAG], undefined), true);
    assert.equal(youngGenerationCapped([], `--enable-source-maps ${YOUNG_GENERATION_FLAG}`), true);
    assert.equal(youngGenerationCapped(["--max_semi_space_size=4"], ""), true);
  });

  it("the flag caps the young generation when given at start", () => {
    const out = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", `import v8 from "node:v8"; const a = []; for (let i = 0; i < 2e6; i++) a.push({ i }); process.stdout.write(String(Math.max(...v8.getHeapSpaceStatistics().filter((s) => s.space_name === "new_space").map((s) => s.space_size))))`],
      { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: YOUNG_GENERATION_FLAG } },
    );
    assert.ok(Number(out) <= 4 * 2 ** 20, `new space ${Number(out) / 2 ** 20} MiB`);
  });
});

/**
 * Resident MiB of a process that keeps small buffers while large ones of random sizes (1-8 MiB,
 * as hostile gossip may be) come and go: glibc's default raises its mmap threshold after the first
 * large free, so the later large buffers land in the main heap between the small ones it keeps.
 */
function residentAfterLargeBuffers(env: NodeJS.ProcessEnv): number {
  const script = `
    const keep = [];
    let seed = 1;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let r = 0; r < 60; r++) {
      let big = Buffer.alloc(Math.floor((1 + 7 * rnd()) * 2 ** 20), 1);
      for (let i = 0; i < 50; i++) keep.push(Buffer.allocUnsafeSlow(2048).fill(3));
      big = null;
      globalThis.gc();
    }
    globalThis.gc();
    process.stdout.write(String(process.memoryUsage().rss / 2 ** 20 + keep.length * 0));
  `;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in ALLOCATOR_ENV)));
  return Number(execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { encoding: "utf8", env: { ...clean, ...env } }));
}

describe("allocator settings", () => {
  it("give large freed buffers back: resident memory stays well below glibc's default", () => {
    const plain = residentAfterLargeBuffers({});
    const set = residentAfterLargeBuffers(ALLOCATOR_ENV);
    assert.ok(set < plain - 8, `resident ${set.toFixed(1)} MiB with ${JSON.stringify(ALLOCATOR_ENV)}, ${plain.toFixed(1)} MiB without`);
  });

  it("names the variables a process lacks", () => {
    assert.deepEqual(allocatorUnset({}), Object.keys(ALLOCATOR_ENV));
    assert.deepEqual(allocatorUnset({ ...ALLOCATOR_ENV }), []);
    assert.deepEqual(allocatorUnset({ MALLOC_ARENA_MAX: "4", MALLOC_MMAP_THRESHOLD_: "" }), ["MALLOC_MMAP_THRESHOLD_"]);
  });
});

/**
 * CPU clock ticks of a garbage-heavy process (the churn above, twice as long): all its threads,
 * and its main thread alone (/proc/<pid>/task/<pid>/stat), started with `flags`.
 */
function gcTicks(flags: string[]): { all: number; main: number } {
  const script = `
    import { readFileSync } from "node:fs";
    const ticks = (p) => { const f = readFileSync(p, "utf8").split(") ")[1].split(" "); return Number(f[11]) + Number(f[12]); };
    const live = Array.from({ length: 150000 }, (_, i) => ({ s: "x".repeat(60) + i, b: new Uint8Array(16) }));
    let keep = [];
    for (let r = 0; r < 600; r++) {
      for (let i = 0; i < 2000; i++) keep.push({ s: "y".repeat(100) + i, a: [i, i + 1, i + 2] });
      if (keep.length > 60000) keep = keep.slice(30000);
    }
    process.stdout.write(JSON.stringify({ all: ticks("/proc/self/stat"), main: ticks("/proc/self/task/" + process.pid + "/stat"), live: live.length }));
  `;
  return JSON.parse(execFileSync(process.execPath, [...flags, "--input-type=module", "-e", script], { encoding: "utf8" })) as { all: number; main: number };
}

describe("garbage collection on the main thread", () => {
  it("the flag keeps V8's collector off other threads (and off other processes' cores)", () => {
    const plain = gcTicks([]);
    const flagged = gcTicks([GC_ON_MAIN_THREAD_FLAG]);
    // Measured here: helpers 109 to 122 of 194 to 207 ticks without the flag, 1 to 2 of ~150 with.
    assert.ok(plain.all - plain.main > 0.25 * plain.all, `without the flag, helper threads took ${plain.all - plain.main} of ${plain.all} ticks`);
    assert.ok(flagged.all - flagged.main < 0.1 * flagged.all, `with the flag, helper threads took ${flagged.all - flagged.main} of ${flagged.all} ticks`);
  });

  it("is seen in node's own arguments, as the flag or as --single-threaded", () => {
    assert.equal(gcOnMainThread([]), false);
    assert.equal(gcOnMainThread(["--max-old-space-size=512", "--single-threaded-gc-x"]), false);
    assert.equal(gcOnMainThread([GC_ON_MAIN_THREAD_FLAG]), true);
    assert.equal(gcOnMainThread(["--single_threaded_gc"]), true);
    assert.equal(gcOnMainThread(["--single-threaded"]), true);
  });
});
