import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { chained, type Commit } from "../../../node/chain/commit.js";
import {
  CommitAuthorError,
  commitFromBytes,
  commitFromWire,
  commitToBytes,
  commitToWire,
} from "../../../node/chain/commit-wire.js";
import { commitHash, decodeCommit, encodeCommit } from "../../../protocol/codec.js";

const RUN = "0123456789abcdef".repeat(4);

async function peerIds(n: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: n }, async () => peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString()),
  );
}

async function sample(): Promise<Commit> {
  const [a, b] = await peerIds(2);
  return {
    iteration: 41,
    prevHash: new Uint8Array(32).fill(7),
    checksum: new Uint8Array(32).fill(9),
    rank: 1,
    entries: [
      { author: { id: a, joinedAt: 1000 }, payload: Uint8Array.of(1, 255, 3) },
      { author: { id: b, joinedAt: 1001 }, payload: Uint8Array.of(4, 5, 6) },
    ],
  };
}

describe("commit wire form", () => {
  it("round-trips a commit: peer id strings become multihash bytes and come back", async () => {
    const c = await sample();
    const wire = commitToWire(RUN, c);
    assert.equal(wire.runId, RUN);
    assert.equal(wire.entries[0].author[0], 0x00, "an Ed25519 peer id is an identity multihash");
    assert.deepEqual(commitFromWire(wire), c);
    assert.deepEqual(commitFromWire(decodeCommit(encodeCommit(wire))), c);
  });

  it("commitToBytes is the codec's encoding; commitFromBytes keeps the bytes it was given", async () => {
    const c = await sample();
    const bytes = commitToBytes(RUN, c);
    assert.deepEqual(bytes, encodeCommit(commitToWire(RUN, c)));
    const received = commitFromBytes(bytes);
    assert.equal(received.encoded, bytes);
    assert.deepEqual(received.commit, c);
    assert.deepEqual(chained(received).hash, commitHash(bytes));
  });

  it("refuses bytes that are not a commit", () => {
    assert.throws(() => commitFromBytes(Uint8Array.of(0xff, 0xff, 0xff)));
  });

  it("a commit served with an author that is no peer id, or one author twice, is a typed error", async () => {
    const wire = commitToWire(RUN, await sample());
    // An identity multihash of 36 non-key bytes: peer id parsing throws a TypeError (Invalid URL).
    const bogus = Uint8Array.of(0x00, 36, ...new Uint8Array(36).fill(1));
    const bad = { ...wire, entries: [{ ...wire.entries[0], author: bogus }, wire.entries[1]] };
    assert.throws(() => commitFromBytes(encodeCommit(bad)), (err: unknown) => {
      assert.ok(err instanceof CommitAuthorError);
      assert.equal(err.code, "COMMIT_BAD_AUTHOR");
      assert.equal(err.context.entry, 0);
      return true;
    });
    const twice = { ...wire, entries: [wire.entries[0], { ...wire.entries[1], author: wire.entries[0].author }] };
    assert.throws(() => commitFromWire(twice), (err: unknown) => {
      assert.ok(err instanceof CommitAuthorError);
      assert.equal(err.code, "COMMIT_DUPLICATE_AUTHOR");
      assert.equal(err.context.entry, 1);
      return true;
    });
  });
});
