/** What the gossip validation tests share: keys, a context with a real dedupe store, and signed messages of each kind. */
import assert from "node:assert/strict";
import { type CommitMessage, type ContributionMessage, decodeCommit, encodeCommit, encodeContribution } from "../../../protocol/codec.js";
import { gradientPayloadProblem } from "../../../protocol/gradient-byte.js";
import { checkSignature } from "../../../protocol/signing.js";
import { TOPIC_KINDS } from "../../../protocol/topics.js";
import { type GossipContext, toVerdict, type Validated, validateCommit, validateContribution } from "../../../protocol/validation.js";
import { signedCommit, signedContribution, signedHeartbeat, signedLeave, signedProof, TEST_JOINED_AT, testKeys } from "../../helpers/chain-keys.js";
import { filled, RUN } from "./fixtures.js";

export const [KEY_A, KEY_B] = await testKeys(2);
/** Authors whose join times are out of bounds: the epoch, and 2^53-1 (both once accepted into commits). */
export const [KEY_EPOCH] = await testKeys(1, () => 0);
export const [KEY_FAR] = await testKeys(1, () => Number.MAX_SAFE_INTEGER);

/** The metric label of a verdict (null when accepted). */
/** A fixed clock for the join-time bounds. */
export const NOW = Date.UTC(2026, 5, 1);

export const codeOf = (v: Validated<unknown>) => (v.verdict === "accept" ? null : v.code);

export const HEAD = 10;
export const SIZE = 4;
export const AUTHOR = KEY_A.author.id;

/** A context whose dedupe store is a real map, so "same" and "different" come from data. */
export function context(over: Partial<GossipContext> = {}): GossipContext {
  const store = new Map<string, string[]>();
  return {
    runId: RUN,
    head: HEAD,
    window: 2,
    maxPayloadBytes: SIZE,
    payloadProblem: (p) => gradientPayloadProblem(p, SIZE),
    checkSignature,
    seen: (kind, signer, iteration, data) => {
      const key = `${kind}/${signer}/${iteration}`;
      const hex = Buffer.from(data).toString("hex");
      const prev = store.get(key);
      if (prev === undefined) {
        store.set(key, [hex]);
        return "new";
      }
      if (prev.includes(hex)) return "same";
      if (prev.length >= 3) return "again";
      prev.push(hex);
      return "different";
    },
    ...over,
  };
}

/** A contribution signed by KEY_A (or `key`) over its own fields. */
export const contribution = (over: Partial<ContributionMessage> = {}, key = KEY_A) => {
  const m = { runId: RUN, iteration: HEAD, joinedAt: TEST_JOINED_AT, payload: Uint8Array.of(1, 0xff, 0, 127), parentHash: filled(32, 0), ...over };
  const signed = signedContribution({ ...key, author: { ...key.author, joinedAt: m.joinedAt } }, m.runId, m.iteration, m.payload, m.parentHash, m.staleness ?? 0).m;
  return encodeContribution({ ...signed, ...(over.signature ? { signature: over.signature } : {}), ...(over.author ? { author: over.author } : {}) });
};

/** KEY_B's valid message of each kind (what the membership and exclusion cases send). */
export function messageOfB(kind: (typeof TOPIC_KINDS)[number]): Uint8Array {
  return {
    contribution: () => contribution({}, KEY_B),
    commit: () => signedCommit(KEY_B, { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0 }, [{ key: KEY_B, payload: filled(SIZE, 2) }]).encoded,
    leave: () => signedLeave(KEY_B, RUN, HEAD),
    heartbeat: () => signedHeartbeat(KEY_B, { runId: RUN, iteration: HEAD, checksum: filled(32, 1), joinedAt: TEST_JOINED_AT }),
    proof: () => signedProof(KEY_B, { runId: RUN, iteration: HEAD - 1, commitHash: filled(32, 4), accused: KEY_A.bytes }),
  }[kind]();
}

/** A commit by KEY_A with entries signed by KEY_A and KEY_B (or the given payloads). */
export const commit = (over: { runId?: string; iteration?: number; rank?: number } = {}, payloads = [filled(SIZE, 1), filled(SIZE, 2)]) =>
  signedCommit(
    KEY_A,
    { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0, ...over },
    payloads.map((payload, i) => ({ key: i === 0 ? KEY_A : KEY_B, payload })),
  ).encoded;

/** A commit whose KEY_B entry was measured one iteration early, on the commit before prevHash. */
export const staleCommit = () =>
  signedCommit(KEY_A, { runId: RUN, iteration: HEAD, prevHash: filled(32, 0), checksum: filled(32, 3), rank: 0, olderParents: [filled(32, 4)] }, [
    { key: KEY_A, payload: filled(SIZE, 1) },
    { key: KEY_B, payload: filled(SIZE, 2), staleness: 1 },
  ]).encoded;

/** A commit re-encoded with one change (signatures kept as they were). */
export const tampered = (change: (m: CommitMessage) => CommitMessage) => encodeCommit(change(decodeCommit(commit())));

/** Validates each of `first` (which must be accepted) then `data`, in one context. */
export function after(first: Uint8Array[], data: Uint8Array, kind: "contribution" | "commit") {
  const ctx = context();
  const validate = kind === "contribution" ? validateContribution : validateCommit;
  for (const f of first) assert.equal(toVerdict(() => validate(f, ctx)).verdict, "accept");
  return toVerdict(() => validate(data, ctx));
}
export const twice = (first: Uint8Array, data: Uint8Array, kind: "contribution" | "commit") => after([first], data, kind);
