import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppliedHistory } from "../../../node/chain/applied-history.js";
import { type ChainedCommit, chained } from "../../../node/chain/commit.js";
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
    assert.ok(h.commitAt(9) === theirs[9]);
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
