/** What the fork-repair tests share: the tiny-spsa run, three signing keys, signed chains and forks, and a node against a real peer over TCP. */
// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { pino } from "pino";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { admissionAfter } from "../../../node/chain/admission.js";
import { chained, type EncodedCommit, proposerOrder, ZERO_HASH } from "../../../node/chain/commit.js";
import { Rounds } from "../../../node/chain/rounds.js";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { Gossip } from "../../../node/network/gossip.js";
import { Peers } from "../../../node/network/peers.js";
import { createLogger } from "../../../node/ground/index.js";
import { CatchUp } from "../../../node/sync/catch-up.js";
import { serveSync, type SyncSource } from "../../../node/sync/protocols.js";
import { defaultRepairOptions, Repair, type RepairOptions } from "../../../node/sync/repair.js";
import { lpStream } from "@libp2p/utils";
import { MAX_REQUEST_BYTES } from "../../../protocol/limits.js";
import { decodeCommitsRequest, encodeCommitsResponse } from "../../../protocol/sync-codec.js";
import { PROTOCOLS } from "../../../protocol/topics.js";
import { SnapshotStore } from "../../../node/sync/snapshot-store.js";
import { fromHex } from "../../../protocol/bytes.js";
import { PRESETS } from "../../../protocol/presets.js";
import { canonicalJson, parseRunSpec } from "../../../protocol/run-spec.js";
import { compareAuthors } from "../../../training/algorithms/contribution.js";
import { useBackend } from "../../../training/engine.js";
import type { Replica } from "../../../training/replica.js";
import { initialReplica, openRun, type RunContext } from "../../../training/run-context.js";
import { signedCommit, signedContribution, type TestKey, testKeys } from "../../helpers/chain-keys.js";
import { syncParts } from "../../helpers/sync-parts.js";

export const log = createLogger({ level: "silent" });
export const spec = parseRunSpec(PRESETS["tiny-spsa"]);
export const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false };
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

await useBackend("wasm");
export const run: RunContext = await openRun(spec);
export const keys: TestKey[] = await testKeys(3);
export const byId = new Map<string, TestKey>(keys.map((k) => [k.author.id, k]));

export const payloadOf = (k: TestKey, t: number) => new Uint8Array(run.algorithm.maxPayloadBytes).fill(((keys.indexOf(k) * 7 + t) % 100) + 1);

/**
 * The commit for `t` on `parent` (with the state `state` after it, advanced here) by the proposer
 * of rank `rank` over `eligible` (the authors of the parent; the entries' own authors at the start).
 */
export function next(state: Replica, t: number, parent: Uint8Array, eligible: readonly TestKey[], rank: number, authors: readonly TestKey[], ordered = false): EncodedCommit {
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
export function atRank(state: Replica, before: readonly EncodedCommit[], rank: number, authors: readonly TestKey[]): EncodedCommit {
  const { order } = admissionAfter(run.runId, before.map((c) => c.commit));
  const ids = order.map((id) => byId.get(id) as TestKey);
  return next(state, before.length, chained(before[before.length - 1]).hash, ids, rank, authors, true);
}

/**
 * The next commit of `before` (a chain, oldest first) with entries by `authors`, proposed by the
 * best-ranked of them in the chain's admission (node/chain/admission.ts), at that rank.
 */
export function nextOn(state: Replica, before: readonly EncodedCommit[], t: number, authors: readonly TestKey[]): EncodedCommit {
  const admission = admissionAfter(run.runId, before.map((c) => c.commit));
  const ids = new Set(authors.map((k) => k.author.id));
  const rank = admission.order.findIndex((id) => ids.has(id));
  const parent = chained(before[before.length - 1]).hash;
  const entries = authors.map((k) => signedContribution(k, run.runId, t, payloadOf(k, t), parent).c).sort((a, b) => compareAuthors(a.author, b.author));
  state.applyIteration(run.algorithm, entries);
  const proposer = byId.get(admission.order[rank]) as TestKey;
  return signedCommit(proposer, { runId: run.runId, iteration: t, prevHash: parent, checksum: fromHex(state.checksum()), rank }, authors.map((key) => ({ key, payload: payloadOf(key, t) })));
}

/**
 * A fork at `n`: shared commits 0..n-1 by a, b and c; our side by rank 1 (all three), then c
 * alone through `ourHead`; theirs by rank 0 (a and b), built on by a and b through `theirHead`.
 * `atTheirs` sees their state after each of their commits (to take snapshots).
 */
export function forked(n: number, ourHead: number, theirHead: number, atTheirs?: (t: number, state: Replica) => void) {
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
export async function againstPeer(
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
export async function slowCommits(node: SwarmNode, commitsFrom: SyncSource["commitsFrom"], delayMs: number): Promise<void> {
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
export const served = (chain: readonly EncodedCommit[], from: number, max: number, firstKept = 0) =>
  chain.filter((x) => x.commit.iteration >= Math.max(from, firstKept)).slice(0, max).map((x) => x.encoded);

/**
 * A chain from the run's start through `head`, each commit by the rank-0 proposer among the
 * previous commit's authors (at 0, among its own), with the entries of `authorsAt(t)`.
 */
export function genesisChain(head: number, authorsAt: (t: number) => readonly TestKey[]): { chain: EncodedCommit[]; state: Replica } {
  const state = initialReplica(run);
  const chain: EncodedCommit[] = [];
  chain.push(next(state, 0, ZERO_HASH, authorsAt(0), 0, authorsAt(0)));
  for (let t = 1; t <= head; t++) chain.push(nextOn(state, chain, t, authorsAt(t)));
  return { chain, state };
}

/** Our node's snapshot of the run's initial state (the base a switch at t = 0 rewinds to). */
export function initialSnapshot(): SnapshotStore {
  const store = new SnapshotStore();
  const initial = initialReplica(run);
  store.take(0, initial.checksum(), initial.weights.slice());
  return store;
}
