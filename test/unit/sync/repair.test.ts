/**
 * Fork resolution (node/sync/repair.ts) on two real libp2p hosts over TCP, with real signed
 * commits and real training state (tiny-spsa): our node holds one side of a fork, the peer serves
 * the other over /commits.
 *
 * The case the wire fuzz found (issue 11): a node on the losing side of a fork kept committing
 * alone while it fetched the peer's side; its head passing the unchained commit's iteration was
 * taken for "fork resolved", and it finished the run on its own fork (replicas disagreed at the
 * last iterations).
 */
// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { admissionAfter } from "../../../node/chain/admission.js";
import { chained, type EncodedCommit, isBetter, proposerOrder, ZERO_HASH } from "../../../node/chain/commit.js";
import { Rounds } from "../../../node/chain/rounds.js";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { Gossip } from "../../../node/network/gossip.js";
import { Peers } from "../../../node/network/peers.js";
import { createLogger } from "../../../node/observe/logger.js";
import { CatchUp } from "../../../node/sync/catch-up.js";
import { serveSync, type SyncSource } from "../../../node/sync/protocols.js";
import { defaultRepairOptions, Repair, type RepairOptions } from "../../../node/sync/repair.js";
import { lpStream } from "@libp2p/utils";
import { MAX_REQUEST_BYTES } from "../../../protocol/limits.js";
import { decodeCommitsRequest, encodeCommitsResponse } from "../../../protocol/sync-codec.js";
import { PROTOCOLS } from "../../../protocol/topics.js";
import { SnapshotStore } from "../../../node/sync/snapshot-store.js";
import { fromHex, toHex } from "../../../protocol/bytes.js";
import { PRESETS } from "../../../protocol/presets.js";
import { canonicalJson, parseRunSpec } from "../../../protocol/run-spec.js";
import { compareAuthors } from "../../../training/algorithms/contribution.js";
import { useBackend } from "../../../training/engine.js";
import type { Replica } from "../../../training/replica.js";
import { initialReplica, openRun, type RunContext } from "../../../training/run-context.js";
import { signedCommit, signedContribution, type TestKey, testKeys } from "../../helpers/chain-keys.js";
import { syncParts } from "../../helpers/sync-parts.js";

const log = createLogger({ level: "silent" });
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let run: RunContext;
let keys: TestKey[];
let ours: SwarmNode;
let theirs: SwarmNode;
const byId = new Map<string, TestKey>();

before(async () => {
  await useBackend("wasm");
  run = await openRun(spec);
  keys = await testKeys(3);
  for (const k of keys) byId.set(k.author.id, k);
  [ours, theirs] = await Promise.all([0, 1].map(async () => createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log)));
});

after(async () => {
  await Promise.all([ours, theirs].filter((n) => n !== undefined).map((n) => n.stop()));
});

const payloadOf = (k: TestKey, t: number) => new Uint8Array(run.algorithm.maxPayloadBytes).fill(((keys.indexOf(k) * 7 + t) % 100) + 1);

/**
 * The commit for `t` on `parent` (with the state `state` after it, advanced here) by the proposer
 * of rank `rank` over `eligible` (the authors of the parent; the entries' own authors at the start).
 */
function next(state: Replica, t: number, parent: Uint8Array, eligible: readonly TestKey[], rank: number, authors: readonly TestKey[], ordered = false): EncodedCommit {
  const entries = authors
    .map((k) => signedContribution(k, run.runId, t, payloadOf(k, t), parent).c)
    .sort((a, b) => compareAuthors(a.author, b.author));
  state.applyIteration(run.algorithm, entries);
  const ids = eligible.map((k) => k.author.id);
  const proposer = byId.get((ordered ? ids : proposerOrder(run.runId, t, ids))[rank]) as TestKey;
  return signedCommit(proposer, { runId: run.runId, iteration: t, prevHash: parent, checksum: fromHex(state.checksum()), rank }, authors.map((key) => ({ key, payload: payloadOf(key, t) })));
}

/**
 * The next commit of `before` (a chain, oldest first) with entries by `authors`, by the proposer
 * of rank `rank` in the chain's admission (node/chain/admission.ts).
 */
function atRank(state: Replica, before: readonly EncodedCommit[], rank: number, authors: readonly TestKey[]): EncodedCommit {
  const { order } = admissionAfter(run.runId, before.map((c) => c.commit));
  const ids = order.map((id) => byId.get(id) as TestKey);
  return next(state, before.length, chained(before[before.length - 1]).hash, ids, rank, authors, true);
}

/**
 * The next commit of `before` (a chain, oldest first) with entries by `authors`, proposed by the
 * best-ranked of them in the chain's admission (node/chain/admission.ts), at that rank.
 */
function nextOn(state: Replica, before: readonly EncodedCommit[], t: number, authors: readonly TestKey[]): EncodedCommit {
  const admission = admissionAfter(run.runId, before.map((c) => c.commit));
  const ids = new Set(authors.map((k) => k.author.id));
  const rank = admission.order.findIndex((id) => ids.has(id));
  const parent = chained(before[before.length - 1]).hash;
  const entries = authors.map((k) => signedContribution(k, run.runId, t, payloadOf(k, t), parent).c).sort((a, b) => compareAuthors(a.author, b.author));
  state.applyIteration(run.algorithm, entries);
  const proposer = byId.get(admission.order[rank]) as TestKey;
  return signedCommit(proposer, { runId: run.runId, iteration: t, prevHash: parent, checksum: fromHex(state.checksum()), rank }, authors.map((key) => ({ key, payload: payloadOf(key, t) })));
}

describe("fork resolution", () => {
  it("a node that commits alone on the losing side while it fetches the other side still switches to the winning fork", async () => {
    const [a, b, c] = keys;
    // Shared commit 0, then the fork at 1: ours by rank 0 (all three authors), theirs by rank 1
    // (a and b). At 2, a and b (authors of commit 0) built on theirs; only c on ours.
    const shared = initialReplica(run);
    const c0 = next(shared, 0, ZERO_HASH, [a, b, c], 0, [a, b, c]);
    const afterC0 = shared.weights.slice();
    const sumC0 = shared.checksum();
    const mine = initialReplica(run);
    mine.reset(afterC0.slice(), 1);
    const x1 = atRank(mine, [c0], 0, [a, b, c]);
    const x2 = nextOn(mine, [c0, x1], 2, [c]);
    const other = initialReplica(run);
    other.reset(afterC0.slice(), 1);
    const y1 = atRank(other, [c0], 1, [a, b]);
    const y2 = nextOn(other, [c0, y1], 2, [a, b]);
    const theirChain = [c0, y1, y2];

    // Our node: applied commit 0 and our commit 1; a snapshot after commit 0 (the base both share).
    const replica = initialReplica(run);
    const self = { id: peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString(), joinedAt: Date.UTC(2025, 0, 2) };
    const transport = { publishContribution: async () => {}, publishCommit: async () => {}, sign: c.sign };
    const rounds = new Rounds(self, run, replica, transport, { roundTimeoutMs: 60_000, stopAt: 100, contribute: false }, log);
    rounds.onCommit(c0);
    rounds.onCommit(x1);
    assert.equal(rounds.head, 2);
    const snapshots = new SnapshotStore();
    snapshots.take(1, sumC0, afterC0);

    // The peer serves its side; while it answers, our node commits alone (x2): its head passes 2.
    let fetches = 0;
    await serveSync(
      theirs,
      {
        runId: run.runId,
        specJson: canonicalJson(spec),
        snapshot: () => null,
        commitsFrom: (from, max) => {
          if (fetches++ === 0) rounds.onCommit(x2);
          return theirChain.filter((x) => x.commit.iteration >= from).slice(0, max).map((x) => x.encoded);
        },
        checksumAt: () => null,
        admits: () => true,
      },
      log,
    );
    const topics = Gossip.topicsOf(run.runId);
    for (const n of [ours, theirs]) n.services.pubsub.subscribe(topics.commit);
    await ours.dial(theirs.getMultiaddrs()[0]);
    const abort = new AbortController();
    const peers = new Peers(ours, run.runId, topics.commit, [], log, abort.signal, () => true);
    for (let i = 0; i < 100 && peers.connected().length === 0; i++) await sleep(50);
    assert.equal(peers.connected().length, 1, "the peer takes part in the run");

    const reported: Record<string, unknown>[] = [];
    const parts = await syncParts({ host: ours, runId: run.runId, self: self.id, rounds, replica, peers, log, planner: { store: snapshots }, faults: (kind, msg, ctx) => reported.push({ kind, msg, ...ctx }) });
    const catchUp = new CatchUp(parts, { joinWaitMs: 0, minPeers: 0, checkEvery: 10 }, abort.signal);
    const repair = new Repair(parts, catchUp, snapshots, null);

    await repair.resolveFork(y2);
    abort.abort();
    rounds.stop();
    assert.ok(fetches >= 2, `the peer's side was fetched for the deep fork too (${fetches} fetches)`);
    assert.equal(rounds.head, 3);
    assert.equal(toHex(rounds.headHash), toHex(chained(y2).hash), "on the winning fork (theirs: endorsed by 2 authors of commit 0, ours by 1)");
    assert.equal(replica.checksum(), other.checksum());
    assert.deepEqual(rounds.appliedCommits().map((x) => toHex(x.hash)), theirChain.map((x) => toHex(chained(x).hash)));
    // The switch is one fault line: where the chains part, the peer whose side won, and why.
    const switches = reported.filter((r) => r.kind === "forkSwitch");
    assert.equal(switches.length, 1, JSON.stringify(reported));
    assert.deepEqual(
      [switches[0].msg, switches[0].iteration, switches[0].peer, switches[0].reason],
      ["switching to a better fork", 1, theirs.peerId.toString(), "endorsed by 2 authors of the shared commit, the other side by 1"],
    );
  });
});

/**
 * A fork at `n`: shared commits 0..n-1 by a, b and c; our side by rank 1 (all three), then c
 * alone through `ourHead`; theirs by rank 0 (a and b), built on by a and b through `theirHead`.
 * `atTheirs` sees their state after each of their commits (to take snapshots).
 */
function forked(n: number, ourHead: number, theirHead: number, atTheirs?: (t: number, state: Replica) => void) {
  const [a, b, c] = keys;
  const shared = initialReplica(run);
  const sharedChain: EncodedCommit[] = [];
  let parent: Uint8Array = ZERO_HASH;
  for (let t = 0; t < n; t++) {
    sharedChain.push(t === 0 ? next(shared, t, parent, [a, b, c], 0, [a, b, c]) : atRank(shared, sharedChain, 0, [a, b, c]));
    parent = chained(sharedChain[t]).hash;
  }
  const atFork = { weights: shared.weights.slice(), sum: shared.checksum() };
  const side = (rank: number, first: TestKey[], then: TestKey[], head: number, at?: (t: number, state: Replica) => void) => {
    const state = initialReplica(run);
    state.reset(atFork.weights.slice(), n);
    const out = [atRank(state, sharedChain, rank, first)];
    at?.(n, state);
    for (let t = n + 1; t <= head; t++) {
      out.push(nextOn(state, [...sharedChain, ...out], t, then));
      at?.(t, state);
    }
    return { out, state };
  };
  const ours = side(1, [a, b, c], [c], ourHead);
  const theirs = side(0, [a, b], [a, b], theirHead, atTheirs);
  return { sharedChain, ourSide: ours.out, theirSide: theirs.out, theirChain: [...sharedChain, ...theirs.out], atFork, other: theirs.state };
}

/**
 * Our node holding `ourChain` and `snapshots`, and a peer serving `source` (its commits and
 * snapshots), dialled over TCP; `body` gets the repair and the faults it reported.
 */
async function againstPeer(
  ourChain: readonly EncodedCommit[],
  snapshots: SnapshotStore,
  source: Pick<SyncSource, "commitsFrom"> & Partial<Pick<SyncSource, "snapshot">> & { readonly delayMs?: number },
  body: (x: { repair: Repair; rounds: Rounds; replica: Replica; reported: Record<string, unknown>[]; lines: Record<string, unknown>[] }) => Promise<void>,
  selfId?: string,
  repairOpts: RepairOptions = defaultRepairOptions,
): Promise<void> {
  // The repair's own log lines (debug: why no switch), for the tests that assert the verdict.
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const replica = initialReplica(run);
  const self = { id: selfId ?? peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString(), joinedAt: Date.UTC(2025, 0, 2) };
  const transport = { publishContribution: async () => {}, publishCommit: async () => {}, sign: keys[2].sign };
  const rounds = new Rounds(self, run, replica, transport, { roundTimeoutMs: 60_000, stopAt: 10_000, contribute: false }, log);
  for (const x of ourChain) rounds.onCommit(x);
  assert.equal(rounds.head, ourChain.length);
  const [host, peer] = await Promise.all([0, 1].map(async () => createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log)));
  const abort = new AbortController();
  try {
    await serveSync(
      peer,
      { runId: run.runId, specJson: canonicalJson(spec), snapshot: () => null, checksumAt: () => null, admits: () => true, ...source },
      log,
    );
    // A dissenter that answers each /commits request just before the fetcher gives up.
    if (source.delayMs !== undefined) await slowCommits(peer, source.commitsFrom, source.delayMs);
    const topics = Gossip.topicsOf(run.runId);
    for (const n of [host, peer]) n.services.pubsub.subscribe(topics.commit);
    await host.dial(peer.getMultiaddrs()[0]);
    const peers = new Peers(host, run.runId, topics.commit, [], log, abort.signal, () => true);
    for (let i = 0; i < 100 && peers.connected().length === 0; i++) await sleep(50);
    assert.equal(peers.connected().length, 1, "the peer takes part in the run");
    const reported: Record<string, unknown>[] = [];
    const decode = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    const parts = await syncParts({ host, runId: run.runId, self: self.id, rounds, replica, peers, log, planner: { store: snapshots }, decode, faults: (kind, msg, ctx) => reported.push({ kind, msg, ...ctx }) });
    const catchUp = new CatchUp(parts, { joinWaitMs: 0, minPeers: 0, checkEvery: 5 }, abort.signal);
    await body({ repair: new Repair(parts, catchUp, snapshots, null, repairOpts), rounds, replica, reported, lines });
  } finally {
    abort.abort();
    rounds.stop();
    await Promise.all([host.stop(), peer.stop()]);
  }
}

/** Replaces `node`'s /commits handler by one that answers from `commitsFrom` after `delayMs`. */
async function slowCommits(node: SwarmNode, commitsFrom: SyncSource["commitsFrom"], delayMs: number): Promise<void> {
  await node.unhandle(PROTOCOLS.commits);
  await node.handle(PROTOCOLS.commits, async (stream) => {
    try {
      const lp = lpStream(stream, { maxDataLength: MAX_REQUEST_BYTES });
      const req = decodeCommitsRequest((await lp.read({ signal: AbortSignal.timeout(5000) })).subarray());
      await sleep(delayMs);
      await lp.write(encodeCommitsResponse({ commits: commitsFrom(req.fromIteration, req.max) }));
      await stream.close();
    } catch (err) {
      stream.abort(err as Error);
    }
  });
}

/** Commits of `chain` from `from` on (none kept before `firstKept`), at most `max`. */
const served = (chain: readonly EncodedCommit[], from: number, max: number, firstKept = 0) =>
  chain.filter((x) => x.commit.iteration >= Math.max(from, firstKept)).slice(0, max).map((x) => x.encoded);

describe("fork search against a peer that keeps fewer commits", () => {
  it("a peer whose kept commits begin after the search's first probe (a later snapshot) still shows where the chains part", async () => {
    // The fork at 5; ours to 12, theirs to 8. The peer keeps only from 4 on (it adopted a
    // snapshot there), so the binary search's probe at 3 gets a page from 4.
    const { sharedChain, ourSide, theirSide, theirChain, atFork, other } = forked(5, 12, 8);
    const snapshots = new SnapshotStore();
    snapshots.take(5, atFork.sum, atFork.weights);
    await againstPeer([...sharedChain, ...ourSide], snapshots, { commitsFrom: (from, max) => served(theirChain, from, max, 4) }, async ({ repair, rounds, replica, reported }) => {
      await repair.resolveFork(theirSide[theirSide.length - 1]);
      const switches = reported.filter((r) => r.kind === "forkSwitch");
      assert.deepEqual(switches.map((r) => [r.iteration, r.reason]), [[5, "endorsed by 2 authors of the shared commit, the other side by 1"]]);
      assert.equal(rounds.head, 9, "on their side, replayed to its head");
      assert.equal(replica.checksum(), other.checksum());
    });
  });
});

describe("fork search cost", () => {
  it("a fork less than a page deep is found with one probe at the page ending where the checksums differ, not a binary search over the kept chain", async () => {
    // 600 shared commits; the fork at 600, ours to 640, theirs to 620. The binary search over
    // our 641 commits took three pages (320, 608, 592; about five over a full 4,096-commit
    // history, each ~1 s from a peer under the fuzz's load); the page ending at the unchained
    // commit, one.
    const { sharedChain, ourSide, theirSide, theirChain, atFork, other } = forked(600, 640, 620);
    const snapshots = new SnapshotStore();
    snapshots.take(600, atFork.sum, atFork.weights);
    const asked: number[] = [];
    const commitsFrom = (from: number, max: number) => {
      asked.push(from);
      return served(theirChain, from, max);
    };
    await againstPeer([...sharedChain, ...ourSide], snapshots, { commitsFrom }, async ({ repair, rounds, replica, reported }) => {
      // The unchained commit 620: resolveFork first asks for its parent (619), then the deep fork.
      await repair.resolveFork(theirSide[theirSide.length - 1]);
      assert.deepEqual(reported.filter((r) => r.kind === "forkSwitch").map((r) => [r.iteration, r.base]), [[600, 600]]);
      assert.equal(rounds.head, 621);
      assert.equal(replica.checksum(), other.checksum());
      // 619 (the parent), 620 - 255 = 365 (the one probe: its page shows the chains part at 600),
      // 599 (commits t-1, t, t+1 to decide), 599 (the winner's commits replayed from our snapshot),
      // then the rest of its chain from our new head.
      assert.deepEqual(asked.slice(0, 4), [619, 365, 599, 599], `pages asked from: ${asked.join(", ")}`);
      assert.ok(asked.length <= 6, `pages asked from: ${asked.join(", ")}`);
    });
  });
});

describe("a fork older than every snapshot kept (the winner's state adopted)", () => {
  it("keeps the chain behind the adopted snapshot from what it holds: ours to the fork, the winner's verified run after it", async () => {
    // The fork at 5; ours to 12, theirs to 11. We keep no snapshot before the fork, so the
    // switch downloads theirs at 10 (checkEvery 5). The peer keeps its commits from 4 on only,
    // as a peer that adopted a snapshot there does: read from it, the chain behind our new
    // state would begin at 4, and a later fork older than that could not be settled.
    const theirStore = new SnapshotStore();
    const { sharedChain, ourSide, theirSide, theirChain, other } = forked(5, 12, 11, (t, state) => {
      if (t === 9) theirStore.take(10, state.checksum(), state.weights.slice());
    });
    const source = { commitsFrom: (from: number, max: number) => served(theirChain, from, max, 4), snapshot: (iteration?: number) => theirStore.find(iteration) };
    await againstPeer([...sharedChain, ...ourSide], new SnapshotStore(), source, async ({ repair, rounds, replica, reported }) => {
      await repair.resolveFork(theirSide[theirSide.length - 1]);
      assert.deepEqual(reported.filter((r) => r.kind === "forkSwitch").map((r) => [r.iteration, r.base]), [[5, null]], "a switch with no base of ours");
      assert.deepEqual(reported.filter((r) => r.kind === "snapshotAdopted").map((r) => r.iteration), [10]);
      assert.equal(rounds.head, 12, "on their side, replayed to its head");
      assert.equal(replica.checksum(), other.checksum());
      // Held at once, from 0: our shared commits and their run, the very chain the peer holds.
      assert.deepEqual(rounds.appliedCommits().map((x) => toHex(x.hash)), theirChain.map((x) => toHex(chained(x).hash)));
    });
  });
});

describe("the end of a run (settleAtEnd)", () => {
  /** Our node at the state after commit 0, and a peer whose answer for iteration 1 the test sets. */
  async function pair(answer: () => { iteration: number; checksum: string } | null) {
    const [a] = keys;
    const replica = initialReplica(run);
    const self = { id: peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString(), joinedAt: Date.UTC(2025, 0, 2) };
    const transport = { publishContribution: async () => {}, publishCommit: async () => {}, sign: a.sign };
    const rounds = new Rounds(self, run, replica, transport, { roundTimeoutMs: 60_000, stopAt: 1, contribute: false }, log);
    rounds.onCommit(next(initialReplica(run), 0, ZERO_HASH, [a], 0, [a]));
    assert.equal(rounds.head, 1);
    const [mine, peer] = await Promise.all([0, 1].map(async () => createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log)));
    await serveSync(peer, { runId: run.runId, specJson: canonicalJson(spec), snapshot: () => null, commitsFrom: () => [], checksumAt: answer, admits: () => true }, log);
    const topics = Gossip.topicsOf(run.runId);
    for (const n of [mine, peer]) n.services.pubsub.subscribe(topics.commit);
    await mine.dial(peer.getMultiaddrs()[0]);
    const abort = new AbortController();
    const peers = new Peers(mine, run.runId, topics.commit, [], log, abort.signal, () => true);
    for (let i = 0; i < 100 && peers.connected().length === 0; i++) await sleep(50);
    assert.equal(peers.connected().length, 1, "the peer takes part in the run");
    const snapshots = new SnapshotStore();
    const parts = await syncParts({ host: mine, runId: run.runId, self: self.id, rounds, replica, peers, log, planner: { store: snapshots } });
    const catchUp = new CatchUp(parts, { joinWaitMs: 0, minPeers: 0, checkEvery: 10 }, abort.signal);
    const repair = new Repair(parts, catchUp, snapshots, null);
    const close = async () => {
      abort.abort();
      await Promise.all([mine.stop(), peer.stop()]);
    };
    return { repair, sum: replica.checksum(), signal: abort.signal, close };
  }

  it("waits for a peer still behind until it holds our checksum, then agrees", async () => {
    let sum = "";
    let behindUntil = 0;
    const p = await pair(() => (Date.now() < behindUntil ? null : { iteration: 1, checksum: sum }));
    try {
      sum = p.sum;
      behindUntil = Date.now() + 600;
      const started = Date.now();
      const outcome = await p.repair.settleAtEnd(1, 10_000, 100, p.signal);
      assert.equal(outcome, "agreed");
      assert.ok(Date.now() - started >= 500, `waited for the peer (${Date.now() - started} ms)`);
    } finally {
      await p.close();
    }
  });

  it("gives up on a peer that never gets there after the bound, still pending", async () => {
    const p = await pair(() => null);
    try {
      const started = Date.now();
      const outcome = await p.repair.settleAtEnd(1, 800, 100, p.signal);
      assert.equal(outcome, "pending");
      const took = Date.now() - started;
      assert.ok(took >= 600 && took < 5000, `bounded wait (${took} ms)`);
    } finally {
      await p.close();
    }
  });
});

/**
 * A chain from the run's start through `head`, each commit by the rank-0 proposer among the
 * previous commit's authors (at 0, among its own), with the entries of `authorsAt(t)`.
 */
function genesisChain(head: number, authorsAt: (t: number) => readonly TestKey[]): { chain: EncodedCommit[]; state: Replica } {
  const state = initialReplica(run);
  const chain: EncodedCommit[] = [];
  chain.push(next(state, 0, ZERO_HASH, authorsAt(0), 0, authorsAt(0)));
  for (let t = 1; t <= head; t++) chain.push(nextOn(state, chain, t, authorsAt(t)));
  return { chain, state };
}

/** Our node's snapshot of the run's initial state (the base a switch at t = 0 rewinds to). */
function initialSnapshot(): SnapshotStore {
  const store = new SnapshotStore();
  const initial = initialReplica(run);
  store.take(0, initial.checksum(), initial.weights.slice());
  return store;
}

describe("finding 7: a deep fork at the chain's start (t = 0)", () => {
  it("a ground Sybil genesis with a lower hash does not rewind an established chain (nor does a lone joiner's genesis)", async () => {
    const [a, b, c] = keys;
    const honest = genesisChain(6, () => [a, b, c]);
    // The attacker grinds: fresh identities until its commit 0 (rank 0 among its own authors)
    // hashes below the honest one, then a chain on it that only it builds on.
    // (Commit 0 alone per try; 400 tries fail to find a lower hash with probability 1/401.)
    const sybils = await testKeys(400);
    for (const k of sybils) byId.set(k.author.id, k);
    const honestHash = toHex(chained(honest.chain[0]).hash);
    let sybil: ReturnType<typeof genesisChain> | null = null;
    for (const k of sybils) {
      if (toHex(chained(genesisChain(0, () => [k]).chain[0]).hash) < honestHash) {
        sybil = genesisChain(8, () => [k]);
        break;
      }
    }
    assert.ok(sybil, "a lower hash within 400 tries");
    const { chain } = sybil;
    // The old rule at t = 0 (no shared commit, so 0 endorsements each) let it win by its hash.
    assert.equal(isBetter(chain[0].commit, chained(chain[0]).hash, honest.chain[0].commit, chained(honest.chain[0]).hash), true);
    let asked = 0;
    const commitsFrom = (from: number, max: number) => {
      asked++;
      return served(chain, from, max);
    };
    await againstPeer(honest.chain, initialSnapshot(), { commitsFrom }, async ({ repair, rounds, replica, reported, lines }) => {
      const sum = replica.checksum();
      await repair.resolveFork(chain[chain.length - 1]);
      assert.ok(asked >= 2, `the Sybil's side was read for the deep fork (${asked} requests)`);
      // The fork was found at 0 and the choice made there: by the authors of our chain, none of whom built on the Sybil's.
      const verdicts = lines.filter((l) => l.msg === "deep fork: no switch").map((l) => [l.iteration, l.reason]);
      assert.deepEqual(verdicts, [[0, "our side wins: at the chain's start, over the 3 authors of our chain: endorsed by 3 authors of the shared commit, the other side by 0"]]);
      assert.deepEqual(reported.filter((r) => r.kind === "forkSwitch"), [], "no switch");
      assert.equal(rounds.head, 7, "our head kept");
      assert.equal(toHex(rounds.appliedCommits()[0].hash), honestHash, "our commit 0 kept");
      assert.equal(replica.checksum(), sum);
    });
  });

  it("a genesis race settles: the side that authors of our own chain built on wins", async () => {
    const [a, b, c] = keys;
    // Our commit 0 by a, b and c; then only c built on it. Theirs by a and b, who built on it.
    const ours = genesisChain(3, (t) => (t === 0 ? [a, b, c] : [c]));
    const theirs = genesisChain(3, () => [a, b]);
    await againstPeer(ours.chain, initialSnapshot(), { commitsFrom: (from, max) => served(theirs.chain, from, max) }, async ({ repair, rounds, replica, reported }) => {
      await repair.resolveFork(theirs.chain[3]);
      const switches = reported.filter((r) => r.kind === "forkSwitch");
      assert.deepEqual(
        switches.map((r) => [r.iteration, r.base, r.reason]),
        [[0, 0, "at the chain's start, over the 3 authors of our chain: endorsed by 2 authors of the shared commit, the other side by 1"]],
      );
      assert.equal(rounds.head, 4);
      assert.equal(replica.checksum(), theirs.state.checksum());
    });
  });

  it("a lone chain (a joiner that started its own genesis) joins the swarm's, whatever the hashes", async () => {
    const [a, b, c] = keys;
    // The joiner (c) trained alone; the swarm's chain by a and b.
    const lone = genesisChain(5, () => [c]);
    const swarm = genesisChain(3, () => [a, b]);
    await againstPeer(
      lone.chain,
      initialSnapshot(),
      { commitsFrom: (from, max) => served(swarm.chain, from, max) },
      async ({ repair, rounds, replica, reported }) => {
        await repair.resolveFork(swarm.chain[3]);
        const switches = reported.filter((r) => r.kind === "forkSwitch");
        assert.equal(switches.length, 1, JSON.stringify(reported));
        assert.match(String(switches[0].reason), /^at the chain's start, our chain built on by nobody else: endorsed by 2 authors/);
        assert.equal(rounds.head, 4);
        assert.equal(replica.checksum(), swarm.state.checksum());
      },
      c.author.id,
    );
  });
});

describe("finding 9: one deadline per fork search, and a slot a slow dissenter cannot keep", () => {
  it("a dissenter answering every probe late is cut off at the search's deadline, then not searched again while quiet", async () => {
    // A fork at 5 (ours to 30, theirs to 12): the search needs a probe and the commits t-1..t+1,
    // each answered by the dissenter after 700 ms; the deadline is 1 s.
    const { sharedChain, ourSide, theirSide, theirChain, atFork } = forked(5, 30, 12);
    const snapshots = new SnapshotStore();
    snapshots.take(5, atFork.sum, atFork.weights);
    let asked = 0;
    const commitsFrom = (from: number, max: number) => {
      asked++;
      return served(theirChain, from, max);
    };
    const opts = { forkSearchMs: 1000, slowCheckMs: 900, quietMs: 60_000, quietMaxMs: 60_000 };
    await againstPeer([...sharedChain, ...ourSide], snapshots, { commitsFrom, delayMs: 700 }, async ({ repair, rounds, reported, lines }) => {
      const head = rounds.head;
      const started = Date.now();
      await repair.resolveFork(theirSide[theirSide.length - 1]);
      const took = Date.now() - started;
      // One-step fetch (its own 1 s deadline), then the deep search cut at 1 s: about 2.4 s, never 32 x 10 s.
      assert.ok(took < 4000, `the fork search ended by its deadline (${took} ms)`);
      const verdicts = lines.filter((l) => l.msg === "deep fork: no switch").map((l) => String(l.reason));
      // Cut either between requests or inside the one the deadline ended.
      assert.equal(verdicts.length, 1, verdicts.join("; "));
      assert.match(verdicts[0], /^no fork found with this peer: .*(the search ran past its deadline|aborted due to timeout)/);
      assert.ok(lines.some((l) => l.msg === "deep fork check done" && (l.ms as number) >= 900), "the slow check held the slot");
      // The next hint from it: its deep search is skipped at once (the one-step fetch is bounded too).
      await sleep(800); // the request the deadline cut is still answered (counted) by the dissenter
      const before = asked;
      await repair.resolveFork(theirSide[theirSide.length - 1]);
      assert.equal(lines.filter((l) => l.msg === "deep fork: no switch").at(-1)?.reason, "its last checks held the slot without a switch");
      assert.equal(asked - before, 1, "only the one-step fetch was asked");
      assert.deepEqual(reported.filter((r) => r.kind === "forkSwitch"), []);
      assert.equal(rounds.head, head);
    }, undefined, opts);
  });

  it("the same fork from a prompt peer is found and switched to within the deadline", async () => {
    const { sharedChain, ourSide, theirSide, theirChain, atFork, other } = forked(5, 30, 12);
    const snapshots = new SnapshotStore();
    snapshots.take(5, atFork.sum, atFork.weights);
    const opts = { forkSearchMs: 1000, slowCheckMs: 900, quietMs: 60_000, quietMaxMs: 60_000 };
    await againstPeer([...sharedChain, ...ourSide], snapshots, { commitsFrom: (from, max) => served(theirChain, from, max), delayMs: 100 }, async ({ repair, rounds, replica, reported }) => {
      await repair.resolveFork(theirSide[theirSide.length - 1]);
      assert.deepEqual(reported.filter((r) => r.kind === "forkSwitch").map((r) => r.iteration), [5]);
      assert.equal(rounds.head, 13);
      assert.equal(replica.checksum(), other.checksum());
    }, undefined, opts);
  });
});
