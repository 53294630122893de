import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppliedHistory, DECODED_KEEP } from "../../../node/chain/applied-history.js";
import { CHAIN_KEEP, type ChainedCommit, chained } from "../../../node/chain/commit.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { signedCommit, testKeys } from "../../helpers/chain-keys.js";

const runId = runIdOf(parseRunSpec(PRESETS["tiny-spsa"]));
const [A, B] = await testKeys(2);

/** Commits from..to-1 on top of `parent` (undefined: the chain's start), proposed by `by`, checksum byte `mark`. */
function commits(from: number, to: number, parent: ChainedCommit | undefined, by: typeof A, mark: number): ChainedCommit[] {
  const out: ChainedCommit[] = [];
  let prev = parent;
  for (let t = from; t < to; t++) {
    const c = chained(signedCommit(by, { runId, iteration: t, ...(prev ? { prevHash: prev.hash } : {}), checksum: new Uint8Array(32).fill(mark), rank: 0 }, [{ key: by, payload: new Uint8Array(16).fill(1) }]));
    out.push(c);
    prev = c;
  }
  return out;
}

function historyOf(chain: readonly ChainedCommit[]): AppliedHistory {
  const h = new AppliedHistory(0, "s0");
  for (const c of chain) h.record(c, c.commit.iteration + 1, `ours-${c.commit.iteration + 1}`);
  return h;
}

describe("AppliedHistory.jumpTo: only the chain the snapshot's anchor builds on stays", () => {
  const shared = commits(0, 5, undefined, A, 1);
  const ours = [...shared, ...commits(5, 12, shared[4], A, 2)];
  const theirs = [...shared, ...commits(5, 12, shared[4], B, 3)];

  it("a snapshot of the other side of a fork at 5 (anchor 9 of theirs): our commits 5..8 go, with their checksums", () => {
    const h = historyOf(ours);
    h.jumpTo(10, "theirs-10", theirs[9]);
    assert.deepEqual(h.all().map((c) => c.commit.iteration), [9]);
    assert.deepEqual(h.commitAt(9)?.hash, theirs[9].hash);
    assert.equal(h.commitAt(6), undefined, "our losing commit 6 is no longer served as our chain");
    assert.equal(h.checksumAt(7), undefined, "nor its checksum compared with peers");
    assert.equal(h.checksumAt(10), "theirs-10");
    assert.equal(h.excluded().size, 0);
  });

  it("a snapshot of our own chain (a rewind, a repair) keeps the commits it builds on", () => {
    const h = historyOf(ours);
    h.jumpTo(8, "ours-8", ours[7]);
    assert.deepEqual(h.all().map((c) => c.commit.iteration), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(h.checksumAt(5), "ours-5");
    assert.equal(h.checksumAt(9), undefined);
  });

  it("an empty history takes the anchor alone; a jump without an anchor keeps what is before it", () => {
    const fresh = new AppliedHistory(0, "s0");
    fresh.jumpTo(10, "theirs-10", theirs[9]);
    assert.deepEqual(fresh.all().map((c) => c.commit.iteration), [9]);
    const h = historyOf(ours);
    h.jumpTo(8, "x-8", null);
    assert.deepEqual(h.all().map((c) => c.commit.iteration), [0, 1, 2, 3, 4, 5, 6]);
  });

  it("prepend puts the chain behind the anchor before it (fork points and exclusions older than a snapshot), and nothing unlinked", () => {
    const h = new AppliedHistory(0, "s0");
    h.jumpTo(10, "theirs-10", theirs[9]);
    h.prepend(ours.slice(0, 9));
    assert.deepEqual(h.all().map((c) => c.commit.iteration), [9], "our commits 0..8 do not lead to their 9");
    h.prepend(theirs.slice(2, 9));
    assert.deepEqual(h.all().map((c) => c.commit.iteration), [2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(h.commitAt(5)?.commit.proposer, B.author.id);
  });
});

describe("AppliedHistory keeps old commits as bytes and decodes them on demand", () => {
  const [C] = [B];
  // Two entries, and an exclusion every 50th commit, so compacted commits carry exclusions too.
  const chain: ChainedCommit[] = [];
  let prev: ChainedCommit | undefined;
  for (let t = 0; t < CHAIN_KEEP + 100; t++) {
    const exclusions = t % 50 === 7 ? [{ author: C.author.id, iteration: t - 1 }] : undefined;
    const c = chained(
      signedCommit(
        A,
        { runId, iteration: t, ...(prev ? { prevHash: prev.hash } : {}), checksum: new Uint8Array(32).fill(t % 251), rank: 0, ...(exclusions ? { exclusions } : {}) },
        [{ key: A, payload: new Uint8Array(16).fill(t % 7) }, { key: B, payload: new Uint8Array(16).fill(t % 5) }],
      ),
    );
    chain.push(c);
    prev = c;
  }
  const h = historyOf(chain);

  it("keeps the last CHAIN_KEEP; every kept commit reads back equal to the one recorded, compacted or not", () => {
    const all = h.all();
    assert.equal(all.length, CHAIN_KEEP);
    assert.equal(all[0].iteration, 100);
    for (const k of all) {
      const original = chain[k.iteration];
      assert.deepEqual(k.commit, original.commit, `commit ${k.iteration}`);
      assert.deepEqual(k.encoded, original.encoded);
      assert.deepEqual(k.hash, original.hash);
      // An own copy of the bytes, never a view holding a larger buffer alive.
      assert.equal(k.encoded.buffer.byteLength, k.encoded.length);
    }
    assert.deepEqual(new Set(h.commitAt(200)?.commit.entries.map((e) => e.author.id)), new Set([A.author.id, B.author.id]));
    assert.equal(h.last()?.commit.iteration, CHAIN_KEEP + 99);
    assert.equal(h.checksumBefore(CHAIN_KEEP + 100), toHexString(chain[CHAIN_KEEP + 99].commit.checksum));
  });

  it("the exclusions of compacted commits still count (excluded() reads no decoded commit)", () => {
    const x = h.excluded();
    assert.equal(x.get(C.author.id), 107, "the first kept commit that excluded C: 107 (7 mod 50, after 100)");
  });

  it("serves compacted commits' exact bytes, and only the newest DECODED_KEEP stay decoded", () => {
    const from = 1000;
    const page = h.encodedFrom(from, 3);
    assert.deepEqual(page, chain.slice(from, from + 3).map((c) => c.encoded));
    // A compacted commit decodes anew on every read (equal, not the same object); a recent one does not.
    const old = h.commitAt(1000);
    const recent = h.commitAt(CHAIN_KEEP + 99 - (DECODED_KEEP - 1));
    assert.ok(old && recent);
    assert.notEqual(old.commit, old.commit);
    assert.equal(recent.commit, recent.commit);
    const older = h.commitAt(CHAIN_KEEP + 99 - DECODED_KEEP);
    assert.ok(older && older.commit !== older.commit, "the one just past DECODED_KEEP is compacted");
  });
});

function toHexString(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}
