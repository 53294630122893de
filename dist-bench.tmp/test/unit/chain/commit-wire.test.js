import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chained } from "../../../node/chain/commit.js";
import { checkedCommit, commitFromBytes, commitFromWire, signCommit } from "../../../node/chain/commit-wire.js";
import { SignatureVerifier } from "../../../node/chain/signatures.js";
import { commitHash, decodeCommit, encodeCommit } from "../../../protocol/codec.js";
import { EXCLUSION_WINDOW } from "../../../protocol/limits.js";
import { ChainCheckError } from "../../../protocol/signing.js";
import { signedCommit, signedContribution, testKeys } from "../../helpers/chain-keys.js";
const RUN = "0123456789abcdef".repeat(4);
const fields = { runId: RUN, iteration: 41, prevHash: new Uint8Array(32).fill(7), checksum: new Uint8Array(32).fill(9), rank: 1 };
async function sample() {
    const [p, a, b] = await testKeys(3);
    const encoded = signedCommit(p, fields, [
        { key: a, payload: Uint8Array.of(1, 255, 3) },
        { key: b, payload: Uint8Array.of(4, 5, 6) },
    ]);
    return { p, a, b, encoded };
}
/** Re-signs a tampered commit with the proposer's key, so only the entry checks can catch it. */
function resign(c, sign) {
    return signCommit(c, sign).encoded;
}
function failsWith(code, fn) {
    assert.throws(fn, (err) => {
        assert.ok(err instanceof ChainCheckError, `a ChainCheckError, got ${String(err)}`);
        assert.equal(err.code, code);
        return true;
    });
}
describe("commit wire form and its checks", () => {
    it("a signed commit round-trips: the bytes kept, the hash of those bytes, the proposer and entries named", async () => {
        const { p, a, b, encoded } = await sample();
        const received = commitFromBytes(encoded.encoded);
        assert.equal(received.encoded, encoded.encoded);
        assert.deepEqual(received.commit, encoded.commit);
        assert.equal(received.commit.proposer, p.author.id);
        assert.deepEqual(received.commit.entries.map((e) => e.author.id), [a.author.id, b.author.id]);
        assert.deepEqual(chained(received).hash, commitHash(encoded.encoded));
        assert.deepEqual(commitFromWire(decodeCommit(encoded.encoded)), received.commit);
    });
    it("exclusions round-trip under the proposer's signature; out of the window, twice, or of an entry's author they fail", async () => {
        const [p, a, b, x] = await testKeys(4);
        const entries = [{ key: a, payload: Uint8Array.of(1) }];
        const ok = signedCommit(p, { ...fields, exclusions: [{ author: x.author.id, iteration: fields.iteration - EXCLUSION_WINDOW }] }, entries);
        assert.deepEqual(commitFromBytes(ok.encoded).commit.exclusions, [{ author: x.author.id, iteration: fields.iteration - EXCLUSION_WINDOW }]);
        // An exclusion is signed: dropping it changes the body the proposer signed.
        const stripped = encodeCommit({ ...decodeCommit(ok.encoded), exclusions: [] });
        failsWith("BAD_SIGNATURE", () => commitFromBytes(stripped));
        for (const exclusions of [
            [{ author: x.author.id, iteration: fields.iteration - EXCLUSION_WINDOW - 1 }],
            [{ author: x.author.id, iteration: fields.iteration }],
            [{ author: x.author.id, iteration: 40 }, { author: x.author.id, iteration: 39 }],
            [{ author: a.author.id, iteration: 40 }],
        ])
            failsWith("BAD_EXCLUSION", () => commitFromBytes(signedCommit(p, { ...fields, exclusions }, [...entries, { key: b, payload: Uint8Array.of(2) }]).encoded));
    });
    it("refuses bytes that are not a commit", () => {
        assert.throws(() => commitFromBytes(Uint8Array.of(0xff, 0xff, 0xff)));
    });
    it("a forged proposer signature, or a commit signed by another key than its proposer's, fails", async () => {
        const { b, encoded } = await sample();
        const wire = decodeCommit(encoded.encoded);
        const flipped = { ...wire, signature: wire.signature.map((x, i) => (i === 0 ? x ^ 1 : x)) };
        failsWith("BAD_SIGNATURE", () => commitFromBytes(encodeCommit(flipped)));
        // Usurping a proposer: b signs a commit that names p.
        failsWith("BAD_SIGNATURE", () => commitFromBytes(resign(encoded.commit, b.sign)));
    });
    it("an invented author (entry signed by another key), an altered payload, a re-parented entry each fail", async () => {
        const { p, a, b, encoded } = await sample();
        const c = encoded.commit;
        // Invented: b's key signs an entry that names a.
        const invented = signedContribution(b, RUN, c.iteration, Uint8Array.of(9), c.prevHash).c;
        failsWith("BAD_SIGNATURE", () => commitFromBytes(resign({ ...c, entries: [{ ...invented, author: a.author }, c.entries[1]] }, p.sign)));
        // Altered: a's payload changed after a signed it.
        failsWith("BAD_SIGNATURE", () => commitFromBytes(resign({ ...c, entries: [{ ...c.entries[0], payload: Uint8Array.of(1, 255, 4) }, c.entries[1]] }, p.sign)));
        // Re-parented: a signed for another parent than the commit's prevHash.
        const other = signedContribution(a, RUN, c.iteration, c.entries[0].payload, new Uint8Array(32).fill(8)).c;
        failsWith("BAD_SIGNATURE", () => commitFromBytes(resign({ ...c, entries: [other, c.entries[1]] }, p.sign)));
        // Moved to another iteration.
        failsWith("BAD_SIGNATURE", () => commitFromBytes(resign({ ...c, iteration: c.iteration + 1 }, p.sign)));
    });
    it("one author twice, entries out of timestamp order, a non-Ed25519 author: typed errors, no crash", async () => {
        const { p, encoded } = await sample();
        const c = encoded.commit;
        failsWith("DUPLICATE_AUTHOR", () => commitFromBytes(resign({ ...c, entries: [c.entries[0], c.entries[0]] }, p.sign)));
        failsWith("ENTRY_ORDER", () => commitFromBytes(resign({ ...c, entries: [c.entries[1], c.entries[0]] }, p.sign)));
        // An identity multihash of 36 non-key bytes (it once reached `new URL` and crashed every node).
        const wire = decodeCommit(encoded.encoded);
        const bogus = Uint8Array.of(0x00, 36, ...new Uint8Array(36).fill(1));
        failsWith("NOT_ED25519", () => commitFromBytes(encodeCommit({ ...wire, entries: [{ ...wire.entries[0], author: bogus }] })));
        // A sha2-256 peer id (RSA, secp256k1): no key to check against.
        const sha = Uint8Array.of(0x12, 32, ...new Uint8Array(32).fill(3));
        failsWith("NOT_ED25519", () => commitFromBytes(encodeCommit({ ...wire, proposer: sha })));
    });
    it("a re-encoding of a signed commit (same signature, other bytes, other hash) fails", async () => {
        const { encoded } = await sample();
        // Protobuf accepts a field sent twice (last wins): append the rank field again.
        const padded = Uint8Array.from([...encoded.encoded, 0x30, 0x01]);
        failsWith("NOT_CANONICAL", () => commitFromBytes(padded));
    });
    it("the verifier caches successes only, keyed with the signature", async () => {
        const { encoded } = await sample();
        const v = new SignatureVerifier({ verified: 16, keys: 16 });
        checkedCommit(encoded.encoded, v.check);
        assert.equal(v.counts.verified, 3, "proposer + 2 entries");
        checkedCommit(encoded.encoded, v.check);
        assert.equal(v.counts.verified, 3, "nothing verified twice");
        assert.equal(v.counts.cached, 3);
        // The same bytes under another signature are checked, not served from the cache.
        const wire = decodeCommit(encoded.encoded);
        const bad = { ...wire, entries: [{ ...wire.entries[0], signature: new Uint8Array(64).fill(5) }, wire.entries[1]] };
        assert.throws(() => checkedCommit(encodeCommit(bad), v.check));
    });
});
//# sourceMappingURL=commit-wire.test.js.map