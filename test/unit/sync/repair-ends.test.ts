/**
 * Fork repair (node/sync/repair.ts) on real libp2p hosts over TCP, continued: the end of a run
 * (settleAtEnd), a deep fork at the chain's start (finding 7), and one deadline per fork search
 * against a slow dissenter (finding 9).
 */
// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { chained, isBetter, ZERO_HASH } from "../../../node/chain/commit.js";
import { Rounds } from "../../../node/chain/rounds.js";
import { createSwarmNode } from "../../../node/network/libp2p.js";
import { Gossip } from "../../../node/network/gossip.js";
import { Peers } from "../../../node/network/peers.js";
import { CatchUp } from "../../../node/sync/catch-up.js";
import { serveSync } from "../../../node/sync/protocols.js";
import { Repair } from "../../../node/sync/repair.js";
import { SnapshotStore } from "../../../node/sync/snapshot-store.js";
import { toHex } from "../../../protocol/bytes.js";
import { canonicalJson } from "../../../protocol/run-spec.js";
import { initialReplica } from "../../../training/run-context.js";
import { testKeys } from "../../helpers/chain-keys.js";
import { syncParts } from "../../helpers/sync-parts.js";
import { log, spec, netOpts, sleep, run, keys, byId, next, forked, againstPeer, served, genesisChain, initialSnapshot } from "./repair-harness.js";

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
