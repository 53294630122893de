/**
 * What a node's applied history holds in memory (issue 11, bounded resources): CHAIN_KEEP
 * commits, as AppliedHistory keeps them (the newest DECODED_KEEP decoded, older ones as their
 * bytes), against every commit kept decoded (the history before 2026-11-28), for commits of
 * 3 entries (tiny-spsa, the fuzz bench's swarm), 16 and 128, and the cost of reading a compacted one.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { randomBytes } from "node:crypto";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { AppliedHistory, DECODED_KEEP } from "../node/chain/applied-history.js";
import { CHAIN_KEEP, type ChainedCommit, chained, type Commit, ZERO_HASH } from "../node/chain/commit.js";
import { commitFromWire, signCommit } from "../node/chain/commit-wire.js";
import { signerOf } from "../node/chain/signatures.js";
import { decodeCommit } from "../protocol/codec.js";
import { compareAuthors } from "../training/algorithms/contribution.js";
import { fmt, type Section } from "./report.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap plus ArrayBuffer bytes in use after full collections. */
function inUse(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * CHAIN_KEEP + 1 chained commits of `n` entries (16-byte payloads, as mnist-mlp-spsa's), each
 * encoded once as exact-size bytes (read back from the wire: what a received commit is). Entry
 * signatures are random bytes: nothing here verifies them, and memory does not depend on them.
 */
async function chainOf(n: number): Promise<ChainedCommit[]> {
  const keys = await Promise.all(Array.from({ length: n }, () => generateKeyPair("Ed25519")));
  const authors = keys.map((k, i) => ({ id: peerIdFromPrivateKey(k).toString(), joinedAt: 1_795_000_000_000 + i })).sort(compareAuthors);
  const proposer = keys[0];
  const sign = signerOf(proposer);
  const out: ChainedCommit[] = [];
  let prevHash: Uint8Array = ZERO_HASH;
  for (let t = 0; t <= CHAIN_KEEP; t++) {
    const commit: Commit = {
      runId: "0".repeat(64),
      iteration: t,
      prevHash,
      checksum: randomBytes(32),
      rank: 0,
      proposer: peerIdFromPrivateKey(proposer).toString(),
      entries: authors.map((author) => ({ author, payload: randomBytes(16), signature: randomBytes(64) })),
    };
    const { encoded } = signCommit(commit, sign);
    const bytes = encoded.slice();
    const c = chained({ commit: commitFromWire(decodeCommit(bytes)), encoded: bytes });
    out.push(c);
    prevHash = c.hash;
  }
  return out;
}

export async function historySection(): Promise<Section> {
  const rows: string[] = [];
  const figures: Record<string, number> = {};
  for (const n of [3, 16, 128]) {
    const base = inUse();
    const chain = await chainOf(n);
    const h = new AppliedHistory(0, "start");
    for (const c of chain) h.record(c, c.commit.iteration + 1, Buffer.from(c.commit.checksum).toString("hex"));
    // What the history holds beyond the chain itself: drop our references to the originals.
    const compact = h.all();
    const encodedMb = compact.reduce((s, c) => s + c.encoded.length, 0) / 2 ** 20;
    chain.length = 0;
    const kept = (inUse() - base) / 2 ** 20;
    // The old history: every commit decoded, next to its bytes and hash.
    const decoded = compact.map((k) => chained({ commit: commitFromWire(decodeCommit(k.encoded)), encoded: k.encoded }));
    const all = (inUse() - base) / 2 ** 20 - kept;
    // Reading a compacted commit decodes its bytes again.
    const old = compact.slice(0, 1000);
    const t0 = performance.now();
    let entries = 0;
    for (const k of old) entries += k.commit.entries.length;
    const readUs = ((performance.now() - t0) * 1000) / old.length;
    if (entries !== 1000 * n || decoded.length !== CHAIN_KEEP) throw new Error("history bench: wrong commits read back");
    rows.push(`| ${n} | ${fmt(encodedMb)} | ${fmt(kept)} | ${fmt(kept + all)} | ${fmt(readUs)} |`);
    figures[`history_mb_${n}_entries`] = kept;
    figures[`history_mb_${n}_entries_all_decoded`] = kept + all;
    figures[`history_read_compacted_us_${n}_entries`] = readUs;
  }
  return {
    id: "history",
    title: "A node's applied history in memory",
    command: "npm run bench -- --only history",
    markdown: `AppliedHistory (node/chain/applied-history.ts) full: CHAIN_KEEP = ${CHAIN_KEEP} commits (and their checksums) of n entries with 16-byte payloads (mnist-mlp-spsa's), real Ed25519 peer ids, exact-size encoded bytes as read from the wire. MB is heap plus ArrayBuffer bytes in use after full collections, beyond what the process held before. The history keeps the newest ${DECODED_KEEP} commits decoded and older ones as their bytes, hash, iteration and exclusions; "all decoded" is the same history with every commit's decoded form kept as well (what it held before 2026-11-28). Reading a compacted commit's \`commit\` decodes its bytes (no signature check: it was verified when applied); mean over 1,000 reads.

| entries per commit | encoded bytes (MB) | history (MB) | all decoded (MB) | read of a compacted commit (µs) |
|---|---|---|---|---|
${rows.join("\n")}`,
    figures,
  };
}
