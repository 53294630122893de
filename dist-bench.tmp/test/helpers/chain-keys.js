/**
 * Real Ed25519 identities for chain tests: authors that sign contributions and commits exactly
 * as a node does (node/chain/signatures.ts), so the tests exercise the real checks.
 */
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { ZERO_HASH } from "../../node/chain/commit.js";
import { signCommit } from "../../node/chain/commit-wire.js";
import { signerOf } from "../../node/chain/signatures.js";
import { peerIdBytes } from "../../node/network/peer-bytes.js";
import { contributionSignedBytes } from "../../protocol/signing.js";
import { compareAuthors } from "../../training/algorithms/contribution.js";
/** A join time inside the bounds gossip checks (after 2024, not ahead of the clock). */
export const TEST_JOINED_AT = Date.UTC(2025, 0, 1);
/** `n` fresh identities; join times TEST_JOINED_AT + i unless given. */
export async function testKeys(n, joinedAt = (i) => TEST_JOINED_AT + i) {
    return Promise.all(Array.from({ length: n }, async (_, i) => {
        const key = await generateKeyPair("Ed25519");
        const id = peerIdFromPrivateKey(key).toString();
        return { author: { id, joinedAt: joinedAt(i) }, sign: signerOf(key), bytes: peerIdBytes(id) };
    }));
}
/** A contribution signed by `k` for (runId, iteration, parentHash). */
export function signedContribution(k, runId, iteration, payload, parentHash = ZERO_HASH, staleness = 0) {
    const m = { runId, iteration, joinedAt: k.author.joinedAt, payload, parentHash, signature: new Uint8Array(0), ...(staleness ? { staleness } : {}) };
    const signature = k.sign(contributionSignedBytes(m));
    return { c: { author: k.author, payload, signature, ...(staleness ? { staleness } : {}) }, m: { ...m, signature } };
}
/** A commit signed by `proposer` over entries signed by their authors (sorted into timestamp order). */
export function signedCommit(proposer, fields, entries) {
    const prevHash = fields.prevHash ?? ZERO_HASH;
    const parentOf = (k = 0) => (k === 0 ? prevHash : (fields.olderParents?.[k - 1] ?? ZERO_HASH));
    const signed = entries
        .map((e) => signedContribution(e.key, fields.runId, fields.iteration, e.payload, parentOf(e.staleness), e.staleness).c)
        .sort((a, b) => compareAuthors(a.author, b.author));
    const commit = { ...fields, prevHash, entries: signed, proposer: proposer.author.id };
    return signCommit(commit, proposer.sign);
}
//# sourceMappingURL=chain-keys.js.map