/**
 * Finding 8 of the security review: a joiner's anchor (node/sync/anchor-run.ts joinerReference)
 * on real libp2p hosts over TCP with real signed commits. One peer's linked run used to be
 * enough, and its first commit's rank cannot be checked: one Sybil signing a commit far ahead of
 * the swarm anchored a joiner to a fabricated chain. Now ANCHOR_QUORUM distinct peers must serve
 * the same anchor.
 */
// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PeerId } from "@libp2p/interface";
import { pino } from "pino";
import { chained, type EncodedCommit, proposerOrder } from "../../../node/chain/commit.js";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { createLogger } from "../../../node/ground/index.js";
import { ANCHOR_QUORUM, joinerReference } from "../../../node/sync/anchor-run.js";
import { serveSync } from "../../../node/sync/protocols.js";
import { toHex } from "../../../protocol/bytes.js";
import { PRESETS } from "../../../protocol/presets.js";
import { canonicalJson, parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { signedCommit, type TestKey, testKeys } from "../../helpers/chain-keys.js";

const quiet = createLogger({ level: "silent" });
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const runId = runIdOf(spec);
const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false };

let honestKeys: TestKey[];
let sybilKeys: TestKey[];
/** The honest chain, 0..40. */
let honest: EncodedCommit[];
/** A Sybil-signed linked run at 500..502, far ahead of the honest head (41). */
let fabricated: EncodedCommit[];
/** A Sybil-signed linked run at 20..22: another anchor at an iteration honest peers hold. */
let rival: EncodedCommit[];
const hosts: SwarmNode[] = [];

/** A linked run of `count` commits from `from` by `keys`, each by the rank-0 proposer among the previous commit's authors. */
function linked(keys: readonly TestKey[], from: number, count: number, start: Uint8Array, fill: number): EncodedCommit[] {
  const out: EncodedCommit[] = [];
  let prev = start;
  for (let t = from; t < from + count; t++) {
    const proposerId = proposerOrder(runId, t, keys.map((k) => k.author.id))[0];
    const proposer = keys.find((k) => k.author.id === proposerId) as TestKey;
    const entries = keys.map((key) => ({ key, payload: new Uint8Array(16).fill(fill + t) }));
    const c = signedCommit(proposer, { runId, iteration: t, prevHash: prev, checksum: new Uint8Array(32).fill(fill), rank: 0 }, entries);
    out.push(c);
    prev = chained(c).hash;
  }
  return out;
}

before(async () => {
  honestKeys = await testKeys(3);
  sybilKeys = await testKeys(2);
  honest = linked(honestKeys, 0, 41, new Uint8Array(32), 1);
  fabricated = linked(sybilKeys, 500, 3, new Uint8Array(32).fill(9), 2);
  rival = linked(sybilKeys, 20, 3, new Uint8Array(32).fill(8), 3);
});

after(async () => {
  await Promise.all(hosts.map((h) => h.stop()));
});

/** A host serving `chain` over /commits. */
async function server(chain: readonly EncodedCommit[]): Promise<SwarmNode> {
  const h = await createSwarmNode(netOpts, await generateKeyPair("Ed25519"), quiet);
  hosts.push(h);
  const commitsFrom = (from: number, max: number) => chain.filter((c) => c.commit.iteration >= from).slice(0, max).map((c) => c.encoded);
  await serveSync(h, { runId, specJson: canonicalJson(spec), snapshot: () => null, commitsFrom, checksumAt: () => null, admits: () => true }, quiet);
  return h;
}

/** A joiner connected to `servers`, and its log lines. */
async function joinerOf(servers: readonly SwarmNode[]) {
  const host = await createSwarmNode(netOpts, await generateKeyPair("Ed25519"), quiet);
  hosts.push(host);
  for (const s of servers) await host.dial(s.getMultiaddrs()[0]);
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const connected: PeerId[] = servers.map((s) => s.peerId);
  return { parts: { libp2p: host, runId, log, peers: { connected: () => [...connected], admits: () => true } }, lines };
}

describe("finding 8: a joiner's anchor needs a quorum of distinct peers", () => {
  it("a Sybil's anchor for a fabricated head far ahead is refused: the honest peers serve nothing there", async () => {
    const [h1, h2, sybil] = await Promise.all([server(honest), server(honest), server([...honest, ...fabricated])]);
    const j = await joinerOf([h1, h2, sybil]);
    // The snapshot at 501 is the Sybil's (its holder); its anchor would be its commit 500.
    assert.equal(await joinerReference(j.parts, 501, [sybil.peerId], null), null);
    const refused = j.lines.find((l) => l.msg === "anchor not vouched for by a quorum of peers; not used");
    assert.deepEqual([refused?.iteration, refused?.vouchers, refused?.need], [501, 1, ANCHOR_QUORUM]);
    // At an iteration the honest peers hold, all three serve the honest anchor.
    const ref = await joinerReference(j.parts, 30, [h1.peerId], null);
    assert.equal(toHex(chained(ref?.anchor as EncodedCommit).hash), toHex(chained(honest[29]).hash));
    assert.ok((ref?.vouchers ?? 0) >= ANCHOR_QUORUM, `vouched for by ${ref?.vouchers} peers`);
  });

  it("a rival anchor at an honest iteration loses to the one more peers serve, and a tie takes neither", async () => {
    const splice = [...honest.slice(0, 20), ...rival, ...honest.slice(23)];
    const [h1, h2, sybil] = await Promise.all([server(honest), server(honest), server(splice)]);
    const three = await joinerOf([h1, h2, sybil]);
    const ref = await joinerReference(three.parts, 21, [sybil.peerId], null);
    assert.equal(toHex(chained(ref?.anchor as EncodedCommit).hash), toHex(chained(honest[20]).hash), "the honest anchor");
    assert.equal(ref?.vouchers, 2);
    // One honest peer and the Sybil, each serving its own anchor at 20: one word against another.
    const two = await joinerOf([h1, sybil]);
    assert.equal(await joinerReference(two.parts, 21, [sybil.peerId], null), null);
    assert.equal(two.lines.find((l) => l.msg === "anchor not vouched for by a quorum of peers; not used")?.anchors, 2);
  });

  it("a joiner with one peer to ask takes its anchor (nobody else to ask), counted as one voucher", async () => {
    const only = await server(honest);
    const j = await joinerOf([only]);
    const ref = await joinerReference(j.parts, 30, [only.peerId], null);
    assert.equal(toHex(chained(ref?.anchor as EncodedCommit).hash), toHex(chained(honest[29]).hash));
    assert.equal(ref?.vouchers, 1);
  });
});
