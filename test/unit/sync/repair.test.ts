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
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { chained, ZERO_HASH } from "../../../node/chain/commit.js";
import { Rounds } from "../../../node/chain/rounds.js";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { Gossip } from "../../../node/network/gossip.js";
import { Peers } from "../../../node/network/peers.js";
import { CatchUp } from "../../../node/sync/catch-up.js";
import { serveSync } from "../../../node/sync/protocols.js";
import { Repair } from "../../../node/sync/repair.js";
import { SnapshotStore } from "../../../node/sync/snapshot-store.js";
import { toHex } from "../../../protocol/bytes.js";
import { canonicalJson } from "../../../protocol/run-spec.js";
import { initialReplica } from "../../../training/run-context.js";
import { syncParts } from "../../helpers/sync-parts.js";
import { log, spec, netOpts, sleep, run, keys, next, atRank, nextOn, forked, againstPeer, served } from "./repair-harness.js";

let ours: SwarmNode;
let theirs: SwarmNode;

before(async () => {
  [ours, theirs] = await Promise.all([0, 1].map(async () => createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log)));
});

after(async () => {
  await Promise.all([ours, theirs].filter((n) => n !== undefined).map((n) => n.stop()));
});

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
      // 599 (commits t-1, t, t+1 to decide; asked again for the winner's commits replayed from our
      // snapshot, that request is answered from the server's last reply, so the source sees it
      // once), then the rest of its chain from our new head.
      assert.deepEqual(asked.slice(0, 3), [619, 365, 599], `pages asked from: ${asked.join(", ")}`);
      assert.ok(asked.length <= 5, `pages asked from: ${asked.join(", ")}`);
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
