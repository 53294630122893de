/**
 * Finding 6 of the security review, measured: a hostile kad-dht peer floods a real node with
 * PUT_VALUE records, and serves poisoned copies of the run's snapshot key.
 *
 * - Flood: SEEDSWARM_BENCH_DHT_RECORDS (default 10,000) records of 1,024 entries (about 133 KB,
 *   the largest the validator stores) sent as raw PUT_VALUE requests over loopback TCP to a victim
 *   process (bench/dht-victim.ts), first under random runIds, then under random keys of the
 *   victim's own run. Figures: the victim's RSS growth after a GC, and what its datastore holds.
 * - Poisoned read: 20 distinct copies of 1,024 entries with bogus signatures (what 20 Sybil DHT
 *   peers serve), verified as a reader does (node/network/expert-copies.ts), first read and
 *   re-read; beside it the CPU of verifying every entry, as readers did before the fix.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import { ExpertCopyVerifier } from "../node/network/expert-copies.js";
import { createSwarmNode, defaultNetworkOptions } from "../node/network/libp2p.js";
import { createLogger } from "../node/ground/index.js";
import { expertKey, verifiedExpertEntries } from "../protocol/experts.js";
import { decodeExpertRecord } from "../protocol/sync-codec.js";
import { poisonRecord, rawPutValues } from "../test/e2e/dht-attacker.js";

const RUN = "d6".repeat(32);
const KAD = `${defaultNetworkOptions.dhtProtocolPrefix}/kad/1.0.0`;

interface VictimStats {
  readonly rssMb: number;
  readonly records: { keys: number; bytes: number; evicted: number };
}

async function flood(records: number): Promise<Record<string, number>> {
  const victim = spawn(process.execPath, ["--expose-gc", join(import.meta.dirname, "dht-victim.js"), RUN], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: victim.stdout })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => JSON.parse((await lines.next()).value as string) as T;
  const stats = async () => {
    victim.stdin.write("\n");
    return next<VictimStats>();
  };
  const attacker = await createSwarmNode(
    { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [] },
    await generateKeyPair("Ed25519"),
    createLogger({ level: "silent" }),
  );
  try {
    const { addr, peerId } = await next<{ addr: string; peerId: string }>();
    const peer = peerIdFromString(peerId);
    await attacker.dial(multiaddr(addr));
    const value = await poisonRecord(Date.now());
    const puts = (n: number, key: (i: number) => Uint8Array) => Array.from({ length: n }, (_, i) => ({ key: key(i), value }));
    // Warm-up: the code paths and connection buffers, before the baseline.
    await rawPutValues(attacker, peer, KAD, puts(50, () => expertKey(randomBytes(32).toString("hex"), "snap")));
    const base = await stats();
    const t0 = performance.now();
    const half = Math.floor(records / 2);
    const foreignKey = () => expertKey(randomBytes(32).toString("hex"), "snap");
    const foreign = await rawPutValues(attacker, peer, KAD, puts(half, foreignKey));
    const midForeign = await stats();
    foreign.push(...(await rawPutValues(attacker, peer, KAD, puts(records - half, foreignKey))));
    const foreignS = (performance.now() - t0) / 1000;
    const afterForeign = await stats();
    const t1 = performance.now();
    const own = await rawPutValues(attacker, peer, KAD, puts(records, (i) => expertKey(RUN, `snap.${i}`)));
    const ownS = (performance.now() - t1) / 1000;
    const afterOwn = await stats();
    return {
      dht_flood_records: records,
      dht_flood_record_bytes: value.byteLength,
      dht_flood_rss_growth_mb: afterForeign.rssMb - base.rssMb,
      // The second half's share: what a flood keeps adding once the allocator has warmed up.
      dht_flood_rss_growth_second_half_mb: afterForeign.rssMb - midForeign.rssMb,
      dht_flood_refused: foreign.filter((v) => v === "refused").length,
      dht_flood_seconds: foreignS,
      dht_flood_own_run_rss_growth_mb: afterOwn.rssMb - base.rssMb,
      dht_flood_own_run_stored: own.filter((v) => v === "stored").length,
      dht_flood_own_run_held_keys: afterOwn.records.keys,
      dht_flood_own_run_held_mb: afterOwn.records.bytes / 2 ** 20,
      dht_flood_own_run_seconds: ownS,
    };
  } finally {
    await attacker.stop();
    victim.stdin.end();
    victim.kill();
    await once(victim, "exit").catch(() => {});
  }
}

const cpuMs = (f: () => void) => {
  const c = process.cpuUsage();
  f();
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
};

async function poisonedRead(): Promise<Record<string, number>> {
  const now = Date.now();
  const key = expertKey(RUN, "snap");
  const copies = await Promise.all(Array.from({ length: 20 }, () => poisonRecord(now)));
  const v = new ExpertCopyVerifier();
  const first = cpuMs(() => v.check(key, copies, now));
  const verified = v.counts.verified;
  const again = cpuMs(() => v.check(key, copies, now));
  // Before the fix: every entry of every copy verified, uncached.
  const unbounded = cpuMs(() => {
    for (const c of copies) verifiedExpertEntries(key, decodeExpertRecord(c).entries, now);
  });
  return {
    dht_poisoned_read_cpu_ms: first,
    dht_poisoned_read_verifications: verified,
    dht_poisoned_reread_cpu_ms: again,
    dht_poisoned_read_unbounded_cpu_ms: unbounded,
  };
}

export async function dhtFloodFigures(): Promise<{ figures: Record<string, number>; markdown: string }> {
  const records = Number(process.env.SEEDSWARM_BENCH_DHT_RECORDS ?? 10_000);
  const f = { ...(await flood(records)), ...(await poisonedRead()) };
  const r = (x: number, d = 1) => x.toFixed(d);
  const markdown = [
    `A hostile kad-dht peer (the project's libp2p settings, server mode, the run's DHT prefix) sends ${f.dht_flood_records} raw PUT_VALUE records of ${r(f.dht_flood_record_bytes / 1024)} KiB (1,024 entries) over loopback TCP to a victim process holding one run's records; RSS after a GC against a warmed-up baseline.`,
    "",
    "| | records refused / stored | victim RSS growth | held by the datastore | time |",
    "|---|---|---|---|---|",
    `| random runIds | ${f.dht_flood_refused} refused | ${r(f.dht_flood_rss_growth_mb)} MB (target <= 20); ${r(f.dht_flood_rss_growth_second_half_mb)} MB over the second half | 0 | ${r(f.dht_flood_seconds)} s |`,
    `| random keys of the victim's run | ${f.dht_flood_own_run_stored} stored | ${r(f.dht_flood_own_run_rss_growth_mb)} MB | ${f.dht_flood_own_run_held_keys} keys, ${r(f.dht_flood_own_run_held_mb)} MiB (cap 8 MiB) | ${r(f.dht_flood_own_run_seconds)} s |`,
    "",
    `A poisoned read (20 distinct copies of 1,024 entries with bogus signatures, as 20 Sybil DHT peers serve): ${r(f.dht_poisoned_read_cpu_ms, 0)} ms CPU and ${f.dht_poisoned_read_verifications} verifications the first time, ${r(f.dht_poisoned_reread_cpu_ms, 0)} ms on every re-read (refused copies cached by digest); verifying every entry, as readers did before, costs ${r(f.dht_poisoned_read_unbounded_cpu_ms, 0)} ms per read.`,
  ].join("\n");
  return { figures: f, markdown };
}
