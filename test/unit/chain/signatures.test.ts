import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { SignatureVerifier, signerOf } from "../../../node/chain/signatures.js";
import { peerIdBytes } from "../../../node/ground/index.js";
import { equalBytes } from "../../../protocol/bytes.js";
import { peerIdStringBytes } from "../../../protocol/signing.js";

async function identity(verifier?: SignatureVerifier) {
  const key = await generateKeyPair("Ed25519");
  const id = peerIdFromPrivateKey(key).toString();
  return { id, bytes: peerIdBytes(id), sign: signerOf(key, verifier) };
}

/** A copy of `bytes` with one bit of byte `at` flipped. */
function flipped(bytes: Uint8Array, at: number): Uint8Array {
  const out = bytes.slice();
  out[at] ^= 1;
  return out;
}

describe("SignatureVerifier", () => {
  it("verifies once: the same signer, message and signature again are a cache hit", async () => {
    const a = await identity();
    const v = new SignatureVerifier({ verified: 8, keys: 8 });
    const message = Uint8Array.from({ length: 121 }, (_, i) => i);
    const signature = a.sign(message);
    assert.equal(v.check(a.bytes, message, signature), true);
    assert.equal(v.check(a.bytes, message.slice(), signature.slice()), true, "equal bytes in other arrays hit too");
    assert.deepEqual(v.counts, { verified: 1, cached: 1, imported: 1 });
  });

  it("a flipped bit anywhere (message, signature, signer) misses the cache and is refused", async () => {
    const [a, b] = [await identity(), await identity()];
    const v = new SignatureVerifier({ verified: 8, keys: 8 });
    const message = Uint8Array.from({ length: 121 }, (_, i) => 255 - i);
    const signature = a.sign(message);
    assert.equal(v.check(a.bytes, message, signature), true);
    for (const at of [0, 60, 120]) assert.equal(v.check(a.bytes, flipped(message, at), signature), false, `message byte ${at}`);
    for (const at of [0, 31, 32, 63]) assert.equal(v.check(a.bytes, message, flipped(signature, at)), false, `signature byte ${at}`);
    // Another key's id over the same message and signature (a forged author).
    assert.equal(v.check(b.bytes, message, signature), false);
    assert.equal(v.counts.cached, 0, "none of these was served from the cache");
    assert.equal(v.counts.verified, 1 + 3 + 4 + 1, "each was verified, and failed");
  });

  it("failures are never cached, and a signature of the wrong length fails before any lookup", async () => {
    const a = await identity();
    const v = new SignatureVerifier({ verified: 8, keys: 8 });
    const message = new Uint8Array(40).fill(7);
    const signature = a.sign(message);
    const bad = flipped(signature, 5);
    assert.equal(v.check(a.bytes, message, bad), false);
    assert.equal(v.check(a.bytes, message, bad), false);
    assert.equal(v.counts.verified, 2, "checked again, not answered from a cache");
    assert.equal(v.sizes.verified, 0);
    // Bytes moved from the message's front to the signature's end hash the same way: refused
    // even after the real pair verified.
    assert.equal(v.check(a.bytes, message, signature), true);
    const longSig = Uint8Array.from([...signature, message[0]]);
    assert.equal(v.check(a.bytes, message.subarray(1), longSig), false);
    assert.equal(v.counts.cached, 0);
  });

  it("a non-Ed25519 signer is refused without importing anything", () => {
    const v = new SignatureVerifier({ verified: 8, keys: 8 });
    const sha256Id = Uint8Array.of(0x12, 32, ...new Uint8Array(32).fill(3));
    assert.equal(v.check(sha256Id, new Uint8Array(8), new Uint8Array(64)), false);
    assert.deepEqual(v.counts, { verified: 0, cached: 0, imported: 0 });
  });

  it("both caches stay within their bounds; an evicted key is imported again", async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, () => identity()));
    const v = new SignatureVerifier({ verified: 4, keys: 3 });
    const message = (i: number, r: number) => Uint8Array.of(i, r, 1, 2, 3);
    for (let r = 0; r < 3; r++)
      for (const [i, a] of ids.entries()) {
        assert.equal(v.check(a.bytes, message(i, r), a.sign(message(i, r))), true);
        assert.ok(v.sizes.keys <= 3 && v.sizes.verified <= 4, JSON.stringify(v.sizes));
      }
    assert.deepEqual(v.sizes, { keys: 3, verified: 4 });
    // Six keys in turn through a cache of three: every check imported its key again.
    assert.equal(v.counts.imported, 18);
    assert.equal(v.counts.verified, 18);
  });

  it("a signer made with the verifier remembers its own signatures (and only those bytes)", async () => {
    const v = new SignatureVerifier({ verified: 8, keys: 8 });
    const a = await identity(v);
    const message = new Uint8Array(64).fill(9);
    const signature = a.sign(message);
    assert.equal(v.check(a.bytes, message, signature), true);
    assert.deepEqual(v.counts, { verified: 0, cached: 1, imported: 0 });
    assert.equal(v.check(a.bytes, flipped(message, 0), signature), false, "other bytes are verified, and fail");
    assert.equal(v.counts.verified, 1);
  });
});

describe("peer id bytes and equality helpers", () => {
  it("peerIdStringBytes gives a peer id's multihash bytes, every time", async () => {
    const a = await identity();
    assert.ok(equalBytes(peerIdStringBytes(a.id), a.bytes));
    assert.ok(equalBytes(peerIdStringBytes(a.id), a.bytes), "from the memo too");
    assert.throws(() => peerIdStringBytes("0OIl not base58"));
  });

  it("equalBytes compares short and long inputs, views at offsets included", () => {
    for (const len of [0, 1, 63, 64, 65, 5000]) {
      const a = Uint8Array.from({ length: len }, (_, i) => (i * 7) & 255);
      const big = new Uint8Array(len + 10);
      big.set(a, 5);
      const view = big.subarray(5, 5 + len);
      assert.equal(equalBytes(a, view), true, `length ${len}`);
      if (len > 0) {
        assert.equal(equalBytes(a, flipped(view, len - 1)), false, `last byte, length ${len}`);
        assert.equal(equalBytes(a, flipped(view, 0)), false, `first byte, length ${len}`);
      }
      assert.equal(equalBytes(a, new Uint8Array(len + 1)), false, "another length");
    }
  });
});
