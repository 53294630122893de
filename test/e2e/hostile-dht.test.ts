// Finding 6 (security review): a hostile kad-dht peer floods an honest node with records and
// poisons the run's snapshot key; real libp2p nodes over loopback TCP, raw PUT_VALUE requests.
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PrivateKey } from "@libp2p/interface";
import { signerOf } from "../../node/chain/signatures.js";
import { defaultKeySpaceCaps } from "../../node/network/compact-datastore.js";
import { expertCopies } from "../../node/network/expert-copies.js";
import { ExpertDirectory } from "../../node/network/experts.js";
import { createSwarmNode, defaultNetworkOptions, type SwarmNode } from "../../node/network/libp2p.js";
import { createLogger } from "../../node/ground/index.js";
import { expertKey } from "../../protocol/experts.js";
import { datastoreOf, floodRecord, poisonRecord, rawPutValues } from "./dht-attacker.js";

const log = createLogger({ level: "silent" });
const RUN = "5e".repeat(32);
const KAD = `${defaultNetworkOptions.dhtProtocolPrefix}/kad/1.0.0`;
const RECORDS = defaultKeySpaceCaps.find((c) => c.prefix === "/dht/record/");
const recordUse = (n: SwarmNode) => {
  const u = datastoreOf(n).use().find((s) => s.prefix === "/dht/record/");
  assert.ok(u);
  return u;
};
const contains = async (n: SwarmNode, bytes: Uint8Array) => {
  for await (const { value } of datastoreOf(n).query({ prefix: "/dht/record/" })) if (Buffer.from(value).includes(Buffer.from(bytes))) return true;
  return false;
};

describe("finding 6: a hostile DHT peer floods and poisons expert records (3 nodes, loopback TCP)", () => {
  let honest: SwarmNode[] = [];
  let hostile: SwarmNode;
  const keys: PrivateKey[] = [];
  let dirs: ExpertDirectory[] = [];
  before(async () => {
    const opts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [] };
    for (let i = 0; i < 2; i++) keys.push(await generateKeyPair("Ed25519"));
    honest = await Promise.all(keys.map((k) => createSwarmNode({ ...opts, dhtRunIds: [RUN] }, k, log)));
    // The attacker speaks the run's DHT protocol in server mode (the project's own settings).
    hostile = await createSwarmNode(opts, await generateKeyPair("Ed25519"), log);
    await honest[0].dial(honest[1].getMultiaddrs()[0]);
    for (const n of honest) await hostile.dial(n.getMultiaddrs()[0]);
    for (let i = 0; i < 100 && honest.some((n) => n.getPeers().length < 2); i++) await new Promise((r) => setTimeout(r, 50));
    dirs = honest.map((n, i) => new ExpertDirectory(n, RUN, signerOf(keys[i]), log, { announceEveryMs: 60_000, ttlMs: 60_000, queryTimeoutMs: 3000 }));
  });
  after(async () => {
    await Promise.all(dirs.map((d) => d.stop()));
    await Promise.all([...honest, hostile].map((n) => n.stop()));
  });

  it("records under random runIds are refused; a flood under the run's own keys stays within the datastore cap", async () => {
    assert.ok(RECORDS);
    const victim = honest[1];
    const now = Date.now();
    // Realistic entries (~130 bytes each): 70 a record, about 9 KB.
    const value = await floodRecord(70, now);
    const foreign = await rawPutValues(hostile, victim.peerId, KAD, Array.from({ length: 200 }, () => ({ key: expertKey(randomBytes(32).toString("hex"), "snap"), value })));
    assert.deepEqual(new Set(foreign), new Set(["refused"]), "every foreign-run record refused by the validator");
    assert.equal(recordUse(victim).keys, 0, "nothing stored");
    // Our run's keys are free to choose below the runId: 1,200 of them, about 11 MB in all.
    const count = RECORDS.maxKeys + 176;
    const own = await rawPutValues(hostile, victim.peerId, KAD, Array.from({ length: count }, (_, i) => ({ key: expertKey(RUN, `snap.${1_000_000 + i}`), value })));
    assert.equal(own.filter((v) => v === "stored").length, count, "every own-run record passed the validator");
    const use = recordUse(victim);
    assert.ok(use.keys <= RECORDS.maxKeys && use.bytes <= RECORDS.maxBytes, JSON.stringify(use));
    assert.ok(use.evicted >= count - RECORDS.maxKeys, JSON.stringify(use));
    assert.equal(recordUse(honest[0]).keys, 0, "the flood reached only the node it was sent to");
  });

  it("a poisoned snap record (1,024 bogus signatures) costs a reader a few verifications, does not win, and is replaced by the honest copy", async () => {
    const key = expertKey(RUN, "snap");
    // One announcement that outlives the test, no re-announce: what the reader finds after the
    // poison is the honest copy on the other node, not a fresh write.
    await dirs[0].declare(["snap.5.0"], 60_000);
    const holders = async () => (await dirs[1].suffixes("snap")).get(5)?.map((h) => h.peer.toString()) ?? [];
    assert.deepEqual(await holders(), [honest[0].peerId.toString()]);
    const poison = await poisonRecord(Date.now());
    assert.deepEqual(await rawPutValues(hostile, honest[1].peerId, KAD, [{ key, value: poison }]), ["stored"], "the poison passed the validator (shape only)");
    const marker = poison.subarray(poison.byteLength - 256);
    assert.ok(await contains(honest[1], marker), "the victim's copy is the poison");
    const before = { ...expertCopies.counts };
    const t0 = performance.now();
    assert.deepEqual(await holders(), [honest[0].peerId.toString()], "the reader still finds the honest holder");
    const readMs = performance.now() - t0;
    const verified = expertCopies.counts.verified - before.verified;
    assert.ok(expertCopies.counts.refused > before.refused, "the poisoned copy reached the verifier and was refused");
    assert.ok(verified <= 10, `${verified} verifications for a poisoned read (1,024 without the fix)`);
    // The selector picked the honest copy: the victim corrected itself with it, and the poison
    // was spread to nobody.
    assert.ok(!(await contains(honest[1], marker)), "the victim's poisoned copy was replaced");
    assert.ok(!(await contains(honest[0], marker)), "the honest node never took the poison");
    log.info({ readMs, verified }, "poisoned read");
  });
});
