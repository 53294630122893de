/**
 * Real Ed25519 identities for chain tests: authors that sign contributions and commits exactly
 * as a node does (node/chain/signatures.ts), so the tests exercise the real checks.
 */
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { type Commit, type EncodedCommit, type Exclusion, type SignedContribution, ZERO_HASH } from "../../node/chain/commit.js";
import { signCommit } from "../../node/chain/commit-wire.js";
import { type Signer, signerOf } from "../../node/chain/signatures.js";
import { peerIdBytes } from "../../node/ground/index.js";
import { type ContributionMessage, encodeHeartbeat, encodeLeave, encodeProof, heartbeatBody, leaveBody, proofBody } from "../../protocol/codec.js";
import { contributionSignedBytes, noticeSignedBytes } from "../../protocol/signing.js";
import { compareAuthors } from "../../training/algorithms/contribution.js";
import type { Author } from "../../training/rng/seeds.js";

export interface TestKey {
  readonly author: Author;
  readonly sign: Signer;
  /** The peer id's multihash bytes. */
  readonly bytes: Uint8Array;
}

/** A join time inside the bounds gossip checks (after 2024, not ahead of the clock). */
export const TEST_JOINED_AT = Date.UTC(2025, 0, 1);

/** `n` fresh identities; join times TEST_JOINED_AT + i unless given. */
export async function testKeys(n: number, joinedAt: (i: number) => number = (i) => TEST_JOINED_AT + i): Promise<TestKey[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const key = await generateKeyPair("Ed25519");
      const id = peerIdFromPrivateKey(key).toString();
      return { author: { id, joinedAt: joinedAt(i) }, sign: signerOf(key), bytes: peerIdBytes(id) };
    }),
  );
}

/** A contribution signed by `k` for (runId, iteration, parentHash). */
export function signedContribution(
  k: TestKey,
  runId: string,
  iteration: number,
  payload: Uint8Array,
  parentHash: Uint8Array = ZERO_HASH,
  staleness = 0,
): { c: SignedContribution; m: ContributionMessage } {
  const m = { runId, iteration, author: k.bytes, joinedAt: k.author.joinedAt, payload, parentHash, signature: new Uint8Array(0), ...(staleness ? { staleness } : {}) };
  const signature = k.sign(contributionSignedBytes(m));
  return { c: { author: k.author, payload, signature, ...(staleness ? { staleness } : {}) }, m: { ...m, signature } };
}

/** A commit signed by `proposer` over entries signed by their authors (sorted into timestamp order). */
export function signedCommit(
  proposer: TestKey,
  fields: { runId: string; iteration: number; prevHash?: Uint8Array; checksum: Uint8Array; rank: number; exclusions?: readonly Exclusion[]; olderParents?: readonly Uint8Array[] },
  entries: readonly { key: TestKey; payload: Uint8Array; staleness?: number }[],
): EncodedCommit {
  const prevHash = fields.prevHash ?? ZERO_HASH;
  const parentOf = (k = 0) => (k === 0 ? prevHash : (fields.olderParents?.[k - 1] ?? ZERO_HASH));
  const signed = entries
    .map((e) => signedContribution(e.key, fields.runId, fields.iteration, e.payload, parentOf(e.staleness), e.staleness).c)
    .sort((a, b) => compareAuthors(a.author, b.author));
  const commit: Commit = { ...fields, prevHash, entries: signed, proposer: proposer.author.id };
  return signCommit(commit, proposer.sign);
}

/** A leave notice signed by `k` (encoded as gossiped). */
export function signedLeave(k: Pick<TestKey, "bytes" | "sign">, runId: string, iteration: number): Uint8Array {
  const body = { runId, iteration, author: k.bytes };
  return encodeLeave({ ...body, signature: k.sign(noticeSignedBytes("leave", leaveBody(body))) });
}

/** A heartbeat signed by `k` (encoded as gossiped). */
/** A fraud proof signed by `k`: `accused`'s entry in the commit `commitHash` at `iteration` does not recompute. */
export function signedProof(k: Pick<TestKey, "bytes" | "sign">, fields: { runId: string; iteration: number; commitHash: Uint8Array; accused: Uint8Array }): Uint8Array {
  const body = { ...fields, author: k.bytes };
  return encodeProof({ ...body, signature: k.sign(noticeSignedBytes("proof", proofBody(body))) });
}

export function signedHeartbeat(k: Pick<TestKey, "bytes" | "sign">, fields: { runId: string; iteration: number; checksum: Uint8Array; joinedAt: number }): Uint8Array {
  const body = { ...fields, author: k.bytes };
  return encodeHeartbeat({ ...body, signature: k.sign(noticeSignedBytes("heartbeat", heartbeatBody(body))) });
}
