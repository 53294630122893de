// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { EncodedCommit } from "../../../node/chain/commit.js";
import { createSwarmNode, type SwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions } from "../../../node/network/network-options.js";
import { createLogger } from "../../../node/ground/index.js";
import { chainBehind, excludedBy, holdersFirst, linkedTo } from "../../../node/sync/chain-behind.js";
import { serveSync } from "../../../node/sync/protocols.js";
import { commitHash } from "../../../protocol/codec.js";
import { PRESETS } from "../../../protocol/presets.js";
import { canonicalJson, parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { signedCommit, testKeys } from "../../helpers/chain-keys.js";

const log = createLogger({ level: "silent" });
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
const runId = runIdOf(spec);
const netOpts = { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], bootstrap: [], mdns: false };
const [A, B, CHEAT, HONEST] = await testKeys(4);
const payload = new Uint8Array(16).fill(1);

/** A chain of `n` commits by A and B; commit 6 excludes CHEAT (for its entry in commit 4). */
function chain(n: number): EncodedCommit[] {
  const out: EncodedCommit[] = [];
  let prevHash: Uint8Array | undefined;
  for (let t = 0; t < n; t++) {
    const entries = [{ key: A, payload }, { key: B, payload }, ...(t === 4 ? [{ key: CHEAT, payload }] : [])];
    const exclusions = t === 6 ? [{ author: CHEAT.author.id, iteration: 4 }] : undefined;
    const c = signedCommit(A, { runId, iteration: t, ...(prevHash ? { prevHash } : {}), checksum: new Uint8Array(32).fill(t), rank: 0, ...(exclusions ? { exclusions } : {}) }, entries);
    out.push(c);
    prevHash = commitHash(c.encoded);
  }
  return out;
}

describe("the chain behind an adopted snapshot (real libp2p, /commits)", () => {
  const honest = chain(20);
  const anchor = honest[19];
  /** A peer that serves the chain with commit 10 swapped for its own, on the same parent, excluding an honest author. */
  const forged = honest.map((c) =>
    c.commit.iteration === 10
      ? signedCommit(B, { runId, iteration: 10, prevHash: c.commit.prevHash, checksum: new Uint8Array(32).fill(99), rank: 0, exclusions: [{ author: HONEST.author.id, iteration: 8 }] }, [{ key: A, payload }])
      : c,
  );
  let nodes: SwarmNode[] = [];

  before(async () => {
    nodes = await Promise.all([0, 1, 2, 3].map(async () => createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log)));
    const serve = (n: SwarmNode, commits: EncodedCommit[]) =>
      serveSync(
        n,
        {
          runId,
          specJson: canonicalJson(spec),
          snapshot: () => null,
          // Two commits a reply: the reader must page through the window.
          commitsFrom: (from, max) => commits.filter((c) => c.commit.iteration >= from).slice(0, Math.min(max, 2)).map((c) => c.encoded),
          checksumAt: () => null,
          admits: () => true,
        },
        log,
      );
    await serve(nodes[1], honest);
    await serve(nodes[2], forged);
    // nodes[3] keeps only the last 5 commits (as a peer far ahead would): it links, but not far back.
    await serve(nodes[3], honest.slice(15));
    for (const n of nodes.slice(1)) await nodes[0].dial(n.getMultiaddrs()[0]);
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  });

  it("reads the commits linked by hash to the anchor, paging through the window, and the exclusions they record", async () => {
    const got = await chainBehind(nodes[0], runId, anchor, [nodes[1].peerId]);
    assert.deepEqual(got.map((c) => c.commit.iteration), [...Array(19).keys()]);
    const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
    assert.deepEqual(got.map((c) => hex(c.encoded)), honest.slice(0, 19).map((c) => hex(c.encoded)), "the very bytes");
    assert.deepEqual(excludedBy(got), [CHEAT.author.id]);
  });

  it("a forged commit off the chain ends the run there; the longest linked run among the peers asked is kept", async () => {
    // The forger's run links from 18 back to 11 (its 10 is not the one 11 names), the short
    // keeper's from 18 back to 15; the honest peer, asked third, reaches the start.
    const forgerOnly = await chainBehind(nodes[0], runId, anchor, [nodes[2].peerId]);
    assert.deepEqual(forgerOnly.map((c) => c.commit.iteration), [11, 12, 13, 14, 15, 16, 17, 18]);
    assert.deepEqual(excludedBy(forgerOnly), [], "the forged exclusion is off the chain: not learnt");
    const got = await chainBehind(nodes[0], runId, anchor, [nodes[2].peerId, nodes[3].peerId, nodes[1].peerId]);
    assert.equal(got.length, 19);
    assert.deepEqual(excludedBy(got), [CHEAT.author.id]);
  });

  it("the snapshot's holders are asked first: three peers that serve nothing linked no longer use up the reading", async () => {
    // nodes[2] serves a forged run (8 linked), nodes[3] a short one (4): two peers off the
    // anchor's full chain, asked first in connection order together with one that serves
    // nothing (an unknown host). The honest holder comes fourth: past PEERS_ASKED.
    const stranger = await createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log);
    try {
      const connected = [stranger.peerId, nodes[2].peerId, nodes[3].peerId, nodes[1].peerId];
      const plain = await chainBehind(nodes[0], runId, anchor, connected);
      assert.equal(plain.length, 8, "in connection order the honest holder is never asked");
      const ordered = holdersFirst(connected, [nodes[1].peerId.toString()]);
      assert.deepEqual(ordered.map(String), [nodes[1], stranger, nodes[2], nodes[3]].map((n) => n.peerId.toString()));
      const got = await chainBehind(nodes[0], runId, anchor, ordered);
      assert.equal(got.length, 19);
    } finally {
      await stranger.stop();
    }
  });

  it("a read cut short keeps the commits next to the anchor: pages are read newest first", async () => {
    // A peer that serves three pages and then nothing (gone, or the read's deadline passed).
    // Read oldest first, three pages were 0-5, which do not reach the anchor: nothing was kept,
    // and the node's chain began at its snapshot (fuzz run, 2026-11-28: reads took 12-20 s of
    // the 20 s allowed).
    const tired = await createSwarmNode(netOpts, await generateKeyPair("Ed25519"), log);
    try {
      let pages = 0;
      await serveSync(
        tired,
        {
          runId,
          specJson: canonicalJson(spec),
          snapshot: () => null,
          commitsFrom: (from, max) => (pages++ < 3 ? honest.filter((c) => c.commit.iteration >= from).slice(0, Math.min(max, 2)).map((c) => c.encoded) : []),
          checksumAt: () => null,
          admits: () => true,
        },
        log,
      );
      await nodes[0].dial(tired.getMultiaddrs()[0]);
      const got = await chainBehind(nodes[0], runId, anchor, [tired.peerId]);
      // The first page asked starts a full page back (256: from 0 here) and gets 0-1: the stride
      // shrinks to the two commits it served, then 17-18, 15-16.
      assert.deepEqual(got.map((c) => c.commit.iteration), [15, 16, 17, 18]);
      assert.equal(pages, 4, "three pages served, the fourth found none");
    } finally {
      await tired.stop();
    }
  });

  it("the run already held (ours to the fork, the winner's after it) is taken from memory, linked by hash", () => {
    assert.deepEqual(linkedTo(anchor, honest.slice(0, 19)).map((c) => c.commit.iteration), [...Array(19).keys()]);
    assert.deepEqual(linkedTo(anchor, honest.slice(0, 19), 5).map((c) => c.commit.iteration), [14, 15, 16, 17, 18], "at most `keep`");
    // Commits past the anchor's parent are skipped; a commit off the chain ends the run.
    assert.deepEqual(linkedTo(anchor, honest).length, 19);
    assert.deepEqual(linkedTo(anchor, forged.slice(0, 19)).map((c) => c.commit.iteration), [11, 12, 13, 14, 15, 16, 17, 18]);
    assert.deepEqual(linkedTo(anchor, honest.slice(0, 17)), [], "a gap before the anchor: nothing links");
    assert.deepEqual(linkedTo(honest[0], honest), [], "the first commit has nothing behind it");
  });

  it("a window shorter than the chain reads only that far back", async () => {
    const got = await chainBehind(nodes[0], runId, anchor, [nodes[1].peerId], 10);
    assert.deepEqual(got.map((c) => c.commit.iteration), [9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
    assert.deepEqual(excludedBy(got), [], "commit 6 is outside a 10-commit window behind 19");
  });
});
