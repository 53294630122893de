/**
 * Finding 9 (snapshots): chunks go a few at a time to the holders with the best measured
 * throughput, a holder that fails twice is dropped, and the whole stops at its deadline.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { peerIdFromString } from "@libp2p/peer-id";
import type { PeerId } from "@libp2p/interface";
import { type ChunkJob, fetchChunks } from "../../../node/sync/chunk-scheduler.js";

const ids = [
  "12D3KooWFaeTfVGLafuUXEgebQdCGwYcurE9GSn8sBTcrDYdFvQB",
  "12D3KooWKqoNNFSDthE31ngUw2a4iD15iRj2tyaiA96phjwpks5h",
  "12D3KooWRBy97UB99e3J6hiPesre1MZeuNQvfan4gBziswrRJsNK",
].map((s) => peerIdFromString(s));
const [slow, fast, other] = ids;

/** A holder that answers after `ms` (or fails, or never answers), counting what it was asked and its peak concurrency. */
function holders(behaviour: Map<PeerId, { ms: number; fail?: boolean; hang?: boolean }>) {
  const asked = new Map<string, number>();
  const inFlight = new Map<string, number>();
  let peakAll = 0;
  let all = 0;
  const peak = new Map<string, number>();
  const fetch = async (peer: PeerId, i: number): Promise<Uint8Array | null> => {
    const id = peer.toString();
    const b = behaviour.get(peer)!;
    asked.set(id, (asked.get(id) ?? 0) + 1);
    inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
    peak.set(id, Math.max(peak.get(id) ?? 0, inFlight.get(id)!));
    peakAll = Math.max(peakAll, ++all);
    try {
      if (b.hang) await new Promise(() => {});
      await sleep(b.ms);
      return b.fail ? null : Uint8Array.of(i, 1, 2, 3);
    } finally {
      inFlight.set(id, inFlight.get(id)! - 1);
      all--;
    }
  };
  return { fetch, asked, peak, peakAll: () => peakAll };
}

const job = (h: ReturnType<typeof holders>, over: Partial<ChunkJob>): ChunkJob => ({
  holders: [slow, fast],
  total: 40,
  perHolder: 2,
  maxInFlight: 16,
  maxFailures: 2,
  deadlineMs: 30_000,
  fetch: h.fetch,
  usable: () => true,
  ...over,
});

describe("finding 9: snapshot chunk scheduling", () => {
  it("a slow holder listed first serves a chunk or two; the fast one serves the rest, within the per-holder and total bounds", async () => {
    const h = holders(new Map([[slow, { ms: 1500 }], [fast, { ms: 5 }]]));
    const began = performance.now();
    const r = await fetchChunks(job(h, {}));
    const ms = performance.now() - began;
    assert.ok(r.chunks.every((c, i) => c !== undefined && c[0] === i), "every chunk, in its place");
    assert.ok((h.asked.get(slow.toString()) ?? 0) <= 2, `the slow holder was asked ${h.asked.get(slow.toString())}`);
    // 40 chunks at 10 s each from the slow holder first would be minutes; 2 at 1.5 s at most here.
    assert.ok(ms < 1500 + 1000, `done in ${Math.round(ms)} ms`);
    assert.ok(Math.max(...h.peak.values()) <= 2, "at most 2 chunks in flight per holder");
    assert.ok(r.rates.get(fast.toString())! > (r.rates.get(slow.toString()) ?? 0));
  });

  it("never more than maxInFlight chunks at once over many holders", async () => {
    const many = Array.from({ length: 3 }, () => ids).flat();
    const h = holders(new Map(ids.map((p) => [p, { ms: 10 }])));
    const r = await fetchChunks(job(h, { holders: [...new Set(many)], perHolder: 4, maxInFlight: 5 }));
    assert.ok(r.chunks.every((c) => c !== undefined));
    assert.ok(h.peakAll() <= 5, `peak ${h.peakAll()}`);
  });

  it("a holder that fails twice is dropped; its chunks come from the others", async () => {
    const h = holders(new Map([[slow, { ms: 1, fail: true }], [fast, { ms: 5 }], [other, { ms: 5 }]]));
    const r = await fetchChunks(job(h, { holders: [slow, fast, other] }));
    assert.ok(r.chunks.every((c) => c !== undefined));
    assert.deepEqual(r.dropped, [slow.toString()]);
    // Its two failures, and at most one more started while the second was in flight.
    assert.ok(h.asked.get(slow.toString())! <= 3, `asked ${h.asked.get(slow.toString())}`);
  });

  it("holders that never answer cost the deadline, not chunks x timeout", async () => {
    const h = holders(new Map([[slow, { ms: 0, hang: true }], [fast, { ms: 0, hang: true }]]));
    const began = performance.now();
    const r = await fetchChunks(job(h, { deadlineMs: 300 }));
    const ms = performance.now() - began;
    assert.equal(r.timedOut, true);
    assert.ok(r.chunks.every((c) => c === undefined));
    assert.ok(ms < 1000, `returned after ${Math.round(ms)} ms`);
    assert.ok(h.peakAll() <= 4, "2 per holder in flight, never all 40");
  });

  it("a chunk no usable holder can serve stays missing; the rest complete", async () => {
    const h = holders(new Map([[fast, { ms: 1 }]]));
    const r = await fetchChunks(job(h, { holders: [fast], usable: () => true, maxFailures: 1, have: new Map([[0, Uint8Array.of(0)]]) }));
    assert.ok(r.chunks.every((c) => c !== undefined));
    assert.equal(h.asked.get(fast.toString()), 39, "chunk 0 was already held");
  });
});
