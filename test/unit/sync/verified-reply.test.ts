/**
 * Findings 5 and 13 on the pull path: a commits reply costs verifications only for the commits
 * asked and chained onto ours, and a served commit with a payload no honest node can make is
 * refused before it is applied, whatever path it comes by, leaving the tip's rollback intact.
 * Real signatures, real training state (tiny-spsa); the pull over real libp2p.
 */
// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PeerId } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import { chained, type EncodedCommit, proposerOrder } from "../../../node/chain/commit.js";
import { Rounds, type RoundsEvent } from "../../../node/chain/rounds.js";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { createLogger } from "../../../node/ground/index.js";
import { type AnchorParts, verifiedReply } from "../../../node/sync/anchor-run.js";
import { CatchUp, type SyncParts } from "../../../node/sync/catch-up.js";
import { ChainFix } from "../../../node/sync/chain-fix.js";
import { serveSync } from "../../../node/sync/protocols.js";
import { fromHex } from "../../../protocol/bytes.js";
import { PRESETS } from "../../../protocol/presets.js";
import { canonicalJson, parseRunSpec } from "../../../protocol/run-spec.js";
import { checkSignature, type SignatureCheck } from "../../../protocol/signing.js";
import { useBackend } from "../../../training/engine.js";
import { initialReplica, openRun, type RunContext } from "../../../training/run-context.js";
import { signedCommit, signedContribution, type TestKey, testKeys } from "../../helpers/chain-keys.js";

const log = createLogger({ level: "silent" });
const H0 = new Uint8Array(32).fill(0x42);
let run: RunContext;
let keys: TestKey[];
let order: TestKey[];
let stranger: TestKey;

before(async () => {
  await useBackend("wasm");
  run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
  keys = await testKeys(4);
  [stranger] = await testKeys(1, () => 9000);
  const byId = new Map(keys.slice(0, 3).map((k) => [k.author.id, k]));
  order = proposerOrder(run.runId, 0, byId.keys()).map((id) => byId.get(id) as TestKey);
});

const payloadOf = (i: number) => new Uint8Array(run.algorithm.maxPayloadBytes).fill((i % 100) + 1);

/** A chain of `n` commits from iteration 0 on H0, by keys[0], entries by keys 0..2 (checksums made up). */
function chainOf(n: number, prev: Uint8Array = H0): EncodedCommit[] {
  const out: EncodedCommit[] = [];
  for (let t = 0; t < n; t++) {
    const c = signedCommit(keys[0], { runId: run.runId, iteration: t, prevHash: prev, checksum: new Uint8Array(32).fill(t), rank: 0 }, keys.slice(0, 3).map((key, i) => ({ key, payload: payloadOf(i) })));
    out.push(c);
    prev = chained(c).hash;
  }
  return out;
}

/** Parts for verifiedReply with a counting check and a record of blames. */
function parts(payloadProblem?: AnchorParts["payloadProblem"]) {
  const counter = { verified: 0, blamed: [] as string[] };
  const check: SignatureCheck = (s, m, sig) => {
    counter.verified++;
    return checkSignature(s, m, sig);
  };
  const p: AnchorParts = {
    libp2p: undefined as never,
    runId: run.runId,
    peers: { connected: () => [], admits: () => true },
    log,
    blame: (_peer, reason) => counter.blamed.push(reason),
    check,
    ...(payloadProblem ? { payloadProblem } : {}),
  };
  return { p, counter };
}

describe("finding 5: a commits reply is verified only as far as it is of use", () => {
  const PER_COMMIT = 4; // the proposer and 3 entries
  let peer: PeerId;
  before(() => {
    peer = peerIdFromString(stranger.author.id);
  });

  it("a reply of 256 commits when 2 iterations were asked: 2 commits' worth of verifications", () => {
    const reply = chainOf(256).map((c) => c.encoded);
    const { p, counter } = parts();
    const got = verifiedReply(p, peer, reply, { from: 10, upTo: 11 });
    assert.deepEqual(got.map((c) => c.commit.iteration), [10, 11]);
    assert.equal(counter.verified, 2 * PER_COMMIT);
  });

  it("a static reply that does not chain onto our head costs no verification; a break in the chain ends the reply unverified", () => {
    const reply = chainOf(256).map((c) => c.encoded);
    const { p, counter } = parts();
    assert.deepEqual(verifiedReply(p, peer, reply, { from: 0, after: new Uint8Array(32).fill(7) }), []);
    assert.equal(counter.verified, 0);
    // Chained to H0, but commit 3 is of another chain: only 0..2 are verified and kept.
    const other = chainOf(5, new Uint8Array(32).fill(8));
    const broken = [...reply.slice(0, 3), ...other.slice(3).map((c) => c.encoded), ...reply.slice(5)];
    const got = verifiedReply(p, peer, broken, { from: 0, after: H0 });
    assert.deepEqual(got.map((c) => c.commit.iteration), [0, 1, 2]);
    assert.equal(counter.verified, 3 * PER_COMMIT);
    assert.deepEqual(counter.blamed, [], "a reply of another chain is no lie");
  });

  it("the first commit that fails ends the reply: nothing after it is verified, its server is charged", () => {
    const reply = chainOf(20).map((c) => c.encoded);
    const bad = reply[5].slice();
    bad[bad.length - 1] ^= 1; // the proposer's signature, last field
    const { p, counter } = parts();
    const got = verifiedReply(p, peer, [...reply.slice(0, 5), bad, ...reply.slice(6)], { from: 0, after: H0 });
    assert.equal(got.length, 5);
    assert.ok(counter.verified <= 5 * PER_COMMIT + PER_COMMIT, `${counter.verified} verifications`);
    assert.equal(counter.blamed.length, 1);
  });
});

/** A follower at head 0 chained to H0, whose last commit's authors are keys 0..2. */
function follower() {
  const events: RoundsEvent[] = [];
  const replica = initialReplica(run);
  const transport = { publishContribution: async () => {}, publishCommit: async () => {}, sign: keys[3].sign };
  const rounds = new Rounds(keys[3].author, run, replica, transport, { roundTimeoutMs: 60_000, stopAt: 100, contribute: false }, log, (e) => events.push(e));
  rounds.resumeChain(H0, keys.slice(0, 3).map((k) => k.author.id));
  return { rounds, replica, events };
}

/** The true checksum after iteration 0 with these authors' entries. */
function truth(authors: readonly TestKey[]): string {
  const r = initialReplica(run);
  r.applyIteration(run.algorithm, authors.map((k) => signedContribution(k, run.runId, 0, payloadOf(keys.indexOf(k)), H0).c));
  return r.checksum();
}

/** The stranger's commit at the fallback rank n + 1 (a rank it holds: its own entry), with a payload one byte short. */
function shortPayloadCommit(iteration: number, prevHash: Uint8Array): EncodedCommit {
  return signedCommit(stranger, { runId: run.runId, iteration, prevHash, checksum: new Uint8Array(32).fill(5), rank: 4 }, [
    { key: stranger, payload: new Uint8Array(run.algorithm.maxPayloadBytes - 1) },
  ]);
}

describe("finding 13: a served commit with a wrong-length payload is refused, never half applied", () => {
  let server: SwarmNode;
  let client: SwarmNode;
  let served: Uint8Array[] = [];
  const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false };

  before(async () => {
    [server, client] = await Promise.all([0, 1].map(async () => createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log)));
    await serveSync(server, { runId: run.runId, specJson: canonicalJson(run.spec), snapshot: () => null, commitsFrom: () => served, checksumAt: () => null, admits: () => true }, log);
    await client.dial(server.getMultiaddrs()[0]);
  });
  after(async () => {
    await Promise.all([server, client].map((n) => n.stop()));
  });

  it("pulled: refused at the reply (before its signatures), its server charged, nothing applied", async () => {
    const f = follower();
    const blamed: string[] = [];
    const catchUp = new CatchUp(
      {
        libp2p: client,
        runId: run.runId,
        rounds: f.rounds,
        replica: f.replica,
        peers: { connected: () => [server.peerId], admits: () => true },
        fix: new ChainFix(f.rounds),
        log,
        blame: (_p: string, reason: string) => blamed.push(reason),
        payloadProblem: (payload: Uint8Array, iteration: number) => run.algorithm.payloadProblem(payload, iteration),
      } as unknown as SyncParts,
      { joinWaitMs: 0, minPeers: 0, checkEvery: 10 },
      new AbortController().signal,
    );
    served = [shortPayloadCommit(0, H0).encoded];
    const before = f.replica.checksum();
    assert.equal(await catchUp.pullFrom(server.peerId), 0);
    assert.equal(f.rounds.head, 0);
    assert.equal(f.replica.checksum(), before);
    assert.equal(blamed.length, 1);
    assert.match(blamed[0], /payload/);
  });

  it("applied by whatever path (no reply check): rejected before the state moves, and a better rival for head - 1 can still win", () => {
    const f = follower();
    const all = keys.slice(0, 3);
    const fallback = signedCommit(order[1], { runId: run.runId, iteration: 0, prevHash: H0, checksum: fromHex(truth(all)), rank: 1 }, all.map((key) => ({ key, payload: payloadOf(keys.indexOf(key)) })));
    f.rounds.onCommit(fallback);
    assert.equal(f.rounds.head, 1);
    const at1 = f.replica.checksum();
    // Commit 1 by the stranger at rank n + 1 chained onto ours, one payload a byte short: the
    // algorithm's apply would throw midway (it did, after the rollback state was overwritten).
    assert.doesNotThrow(() => f.rounds.onCommit(shortPayloadCommit(1, chained(fallback).hash)));
    assert.equal(f.rounds.head, 1);
    assert.equal(f.replica.checksum(), at1);
    const rejected = f.events.filter((e) => e.kind === "rejected");
    assert.equal(rejected.length, 1);
    assert.ok(rejected[0].kind === "rejected" && rejected[0].reason.startsWith("payload"), JSON.stringify(rejected[0]));
    // The rollback to before commit 0 is intact: the primary's rank-0 rival still wins.
    const primary = signedCommit(order[0], { runId: run.runId, iteration: 0, prevHash: H0, checksum: fromHex(truth(all)), rank: 0 }, all.map((key) => ({ key, payload: payloadOf(keys.indexOf(key)) })));
    f.rounds.onCommit(primary);
    assert.ok(f.events.some((e) => e.kind === "switched"), "switched to the better rival");
    assert.equal(f.rounds.head, 1);
    assert.deepEqual(f.rounds.headHash, chained(primary).hash);
  });
});
