// Finding 6 (security review): the DHT's expert records under a flood and poisoned copies.
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { randomBytes } from "node:crypto";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PrivateKey } from "@libp2p/interface";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { Key } from "interface-datastore";
import { signerOf } from "../../../node/chain/signatures.js";
import { CompactMemoryDatastore } from "../../../node/network/compact-datastore.js";
import { ExpertCopyVerifier } from "../../../node/network/expert-copies.js";
import {
  bestExpertRecord,
  ExpertRecordError,
  ExpertUidError,
  expertKey,
  expertRecordValidator,
  MAX_EXPERT_RECORD_BYTES,
  MAX_HOLDERS_PER_SUFFIX,
  mergeExpertRecords,
  SENIOR_HOLDER_SLOTS,
} from "../../../protocol/experts.js";
import { MAX_EXPERT_ENTRIES } from "../../../protocol/limits.js";
import { expertEntrySignedBytes } from "../../../protocol/signing.js";
import { encodeExpertRecord, type ExpertEntry } from "../../../protocol/sync-codec.js";

const RUN = "ab".repeat(32);
const OTHER = "cd".repeat(32);
const KEY = expertKey(RUN, "snap");

function signed(k: PrivateKey, claim: { suffix: number; timestamp: number; expiresAt: number }, key = KEY): ExpertEntry {
  return { ...claim, peer: peerIdFromPrivateKey(k).toMultihash().bytes, signature: signerOf(k)(expertEntrySignedBytes(key, claim)) };
}

/** An entry naming a fresh Ed25519 identity with a random (bogus) signature: what a poisoner sends for free. */
async function bogus(suffix: number, now: number): Promise<ExpertEntry> {
  const k = await generateKeyPair("Ed25519");
  return { suffix, timestamp: now, expiresAt: now + 10_000, peer: peerIdFromPrivateKey(k).toMultihash().bytes, signature: randomBytes(64) };
}

describe("finding 6: expert record validator", () => {
  const validate = expertRecordValidator([RUN]);
  const record = encodeExpertRecord({ entries: [] });

  it("stores records of our run only, within the byte bound", async () => {
    await validate(KEY, record);
    await assert.rejects(validate(expertKey(OTHER, "snap"), record), (e: unknown) => e instanceof ExpertRecordError && e.code === "EXPERT_FOREIGN_RUN");
    await assert.rejects(validate(new TextEncoder().encode(`/seedswarm-expert/${RUN}/Bad`), record), ExpertUidError);
    await assert.rejects(validate(KEY, new Uint8Array(MAX_EXPERT_RECORD_BYTES + 1)), (e: unknown) => e instanceof ExpertRecordError && e.code === "EXPERT_RECORD_TOO_LARGE");
    await assert.rejects(validate(KEY, Uint8Array.of(0xff, 0xff)));
    // A node that knows no run (the default network options) stores no expert record at all.
    await assert.rejects(expertRecordValidator([])(KEY, record), ExpertRecordError);
  });

  it("the byte bound holds a full record of MAX_EXPERT_ENTRIES entries", async () => {
    const k = await generateKeyPair("Ed25519");
    const now = Date.now();
    const e = signed(k, { suffix: 0xffffffff, timestamp: now, expiresAt: now + 1000 });
    const full = encodeExpertRecord({ entries: Array.from({ length: MAX_EXPERT_ENTRIES }, () => e) });
    assert.ok(full.byteLength <= MAX_EXPERT_RECORD_BYTES, `${full.byteLength} <= ${MAX_EXPERT_RECORD_BYTES}`);
    await validate(KEY, full);
  });
});

describe("finding 6: capped datastore", () => {
  it("a flood of 10,000 records holds at most the cap's keys and bytes; the newest and recently read stay", async () => {
    const ds = new CompactMemoryDatastore([{ prefix: "/dht/record/", maxKeys: 100, maxBytes: 64 * 1024 }]);
    ds.put(new Key("/dht/record/honest"), new Uint8Array(1000));
    ds.put(new Key("/peers/a"), new Uint8Array(10)); // another key space: not counted, not evicted
    for (let i = 0; i < 10_000; i++) {
      ds.put(new Key(`/dht/record/f${i}`), new Uint8Array(2000));
      if (i % 20 === 0) ds.get(new Key("/dht/record/honest")); // read every few seconds
    }
    const [use] = ds.use();
    assert.ok(use.keys <= 100 && use.bytes <= 64 * 1024, JSON.stringify(use));
    assert.equal(use.evicted, 10_001 - use.keys);
    assert.ok(ds.has(new Key("/dht/record/f9999")));
    assert.ok(!ds.has(new Key("/dht/record/f0")));
    assert.ok(ds.has(new Key("/dht/record/honest")), "a key read more often than the flood turns over stays");
    assert.ok(ds.has(new Key("/peers/a")));
    // What is held is exactly what is counted.
    let held = 0;
    for await (const { key, value } of ds.query({ prefix: "/dht/record/" })) if (key.toString().startsWith("/dht/record/")) held += value.byteLength;
    assert.equal(held, use.bytes);
  });

  it("rewriting a key replaces its bytes; deleting forgets them", () => {
    const ds = new CompactMemoryDatastore([{ prefix: "/dht/record/", maxKeys: 10, maxBytes: 1000 }]);
    for (let i = 0; i < 50; i++) ds.put(new Key("/dht/record/x"), new Uint8Array(900));
    assert.deepEqual(ds.use()[0], { prefix: "/dht/record/", keys: 1, bytes: 900, evicted: 0 });
    ds.delete(new Key("/dht/record/x"));
    assert.equal(ds.use()[0].bytes, 0);
  });
});

describe("finding 6: copies verified at a bounded cost, selector counts verified entries", () => {
  it("a copy of 1,024 bogus-signature entries does not win, costs a few verifications once, and an honest copy beside it still counts", async () => {
    const now = Date.now();
    const k = await generateKeyPair("Ed25519");
    const honest = encodeExpertRecord({ entries: [signed(k, { suffix: 7, timestamp: now, expiresAt: now + 10_000 })] });
    const one = await bogus(1, now);
    const poison = encodeExpertRecord({ entries: Array.from({ length: MAX_EXPERT_ENTRIES }, (_, i) => ({ ...one, suffix: i, signature: randomBytes(64) })) });
    const v = new ExpertCopyVerifier({ entries: 4096, failedCopies: 64, freshPerRead: 1024, badPerCopy: 4 });
    const copies = Array.from({ length: 20 }, (_, i) => (i === 13 ? honest : poison));
    assert.equal(bestExpertRecord(KEY, copies, now, v.check), 13);
    assert.equal(v.counts.verified, 1 + 5, "the honest entry, and the poisoned copy until its fifth failure");
    assert.equal(v.counts.refused, 1, "20 copies of one poison are one copy");
    // Read again (every 5 s): no verification at all.
    const before = v.counts.verified;
    const out = v.check(KEY, copies, now);
    assert.equal(v.counts.verified, before);
    assert.equal(out[13]?.length, 1);
    assert.equal(out.filter((c) => c === null).length, 19);
    // Only poisoned copies: none is spread as a correction.
    assert.throws(() => bestExpertRecord(KEY, [poison, poison], now, v.check), (e: unknown) => e instanceof ExpertRecordError && e.code === "EXPERT_NO_VERIFIED_COPY");
  });

  it("a forged entry appended to an honest copy drops only itself", async () => {
    const now = Date.now();
    const k = await generateKeyPair("Ed25519");
    const h = signed(k, { suffix: 7, timestamp: now, expiresAt: now + 10_000 });
    const v = new ExpertCopyVerifier();
    const [got] = v.check(KEY, [encodeExpertRecord({ entries: [h, await bogus(8, now)] })], now);
    assert.deepEqual(got, [h]);
  });

  it("fresh signatures per read are bounded; copies that repeat verified entries are checked first", async () => {
    const now = Date.now();
    const keys = await Promise.all(Array.from({ length: 12 }, () => generateKeyPair("Ed25519")));
    const entries = keys.map((k, i) => signed(k, { suffix: i, timestamp: now, expiresAt: now + 10_000 }));
    const v = new ExpertCopyVerifier({ entries: 4096, failedCopies: 64, freshPerRead: 8, badPerCopy: 4 });
    const known = encodeExpertRecord({ entries: entries.slice(0, 4) });
    v.check(KEY, [known], now);
    assert.equal(v.counts.verified, 4);
    // A copy of 8 fresh valid entries listed first, a copy of 1 fresh entry, the known copy (all cached) last:
    // checked fewest-fresh first, so the known copy and the small one count; the big one runs out of budget.
    const fresh = encodeExpertRecord({ entries: entries.slice(4, 12) });
    const third = encodeExpertRecord({ entries: [signed(keys[0], { suffix: 99, timestamp: now, expiresAt: now + 10_000 })] });
    const out = v.check(KEY, [fresh, third, known], now);
    assert.equal(out[2]?.length, 4);
    assert.equal(out[1]?.length, 1, "the smaller fresh copy first");
    assert.equal(out[0], null, "over the budget: skipped, not condemned");
    assert.equal(v.counts.verified, 4 + 8, "freshPerRead new verifications, no more");
    assert.equal(v.counts.skipped, 1);
    // The next read goes on where this one stopped: one verification left.
    assert.equal(v.check(KEY, [fresh], now)[0]?.length, 8);
    assert.equal(v.counts.verified, 4 + 8 + 1);
    assert.equal(v.counts.refused, 0);
  });
});

describe("finding 6: holders per suffix", () => {
  const now = 1_000_000;
  const peer = (i: number) => Uint8Array.of(0x00, 36, ...new Uint8Array(34), i >> 8, i & 255);
  const S = new Uint8Array(64);
  const entry = (i: number, timestamp: number): ExpertEntry => ({ suffix: 3, peer: peer(i), timestamp, expiresAt: now + 10_000, signature: S });

  it("32 Sybils dated +60 s push out neither our own entry nor the holders known before them", () => {
    const honest = Array.from({ length: 20 }, (_, i) => entry(i, now - 3_000));
    const sybils = Array.from({ length: MAX_HOLDERS_PER_SUFFIX }, (_, i) => entry(1000 + i, now + 60_000));
    const seen = new Map(honest.map((e, i) => [e.peer[37], now - 60_000 + i]));
    const merged = mergeExpertRecords([{ entries: [...honest, ...sybils] }], now, {
      prefer: { mine: (e) => e.peer[37] === 19, firstSeen: (e) => (e.peer[36] === 0 ? seen.get(e.peer[37]) : undefined) },
    }).entries;
    assert.equal(merged.length, MAX_HOLDERS_PER_SUFFIX);
    const kept = new Set(merged.filter((e) => e.peer[36] === 0).map((e) => e.peer[37]));
    assert.ok(kept.has(19), "our own entry");
    for (let i = 0; i < SENIOR_HOLDER_SLOTS; i++) assert.ok(kept.has(i), `the ${i}th longest-known holder`);
    // The other slots go to the newest, a future date counting as now: Sybils dated now+60 s tie at now.
    assert.equal(merged.length - kept.size, MAX_HOLDERS_PER_SUFFIX - SENIOR_HOLDER_SLOTS - 1);
    // Without history (a fresh reader), readers that only look see everyone.
    assert.equal(mergeExpertRecords([{ entries: [...honest, ...sybils] }], now, { holdersPerSuffix: Infinity, maxEntries: Infinity }).entries.length, 52);
  });
});
