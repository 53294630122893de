/**
 * What authors and proposers sign, and the stateless checks of a contribution's and a commit's
 * signatures (issue 11: the verified chain). Gossip validation and the commits protocol call the
 * same two functions here, so a commit served over /commits is checked exactly like a gossiped one.
 *
 *   contribution: "seedswarm/contribution/v1" || runId (32 B) || iteration (u64 BE)
 *                 || parentHash (32 B) || joinedAt (u64 BE) || payload
 *   commit:       "seedswarm/commit/v1" || the commit encoded without its signature field
 *   leave, heartbeat, proof: "seedswarm/<kind>/v1" || the notice encoded without its signature field
 *
 * Gossip has no envelope signature (StrictNoSign): these are the only signatures on the wire, and
 * each message names its signer as a field that the signature must verify under.
 *
 * Every field before the payload has a fixed length, so the byte string parses one way only;
 * the domain tags keep a signature over one kind from ever passing as the other. Only Ed25519
 * peer ids (the identity multihash of an Ed25519 public key) can sign: any other peer id names a
 * key we cannot check from the id alone, and is refused.
 *
 * What needs the chain (the proposer's rank, the entries' parent, the checksum) is checked by the
 * rounds (node/chain/rounds.ts), which hold it.
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { base58btc } from "multiformats/bases/base58";
import { equalBytes } from "./bytes.js";
import { type CommitMessage, commitBodyOf, type ContributionMessage, encodeCommit, entryParent } from "./codec.js";
import { SeedswarmError } from "./errors.js";
import { EXCLUSION_WINDOW, SIGNATURE_BYTES } from "./limits.js";
import { runIdBytes } from "./run-id.js";

const CONTRIBUTION_DOMAIN = new TextEncoder().encode("seedswarm/contribution/v1");
const COMMIT_DOMAIN = new TextEncoder().encode("seedswarm/commit/v1");
const EXPERT_DOMAIN = new TextEncoder().encode("seedswarm/expert/v1");

/** What an author signs for one contribution. */
export interface ContributionClaim {
  readonly runId: string;
  readonly iteration: number;
  /** Hash of the commit the work was measured on (ZERO_HASH at the start of the chain). */
  readonly parentHash: Uint8Array;
  readonly joinedAt: number;
  readonly payload: Uint8Array;
}

function u64be(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

/** Length of the fixed part of a contribution's signed bytes: domain, runId, iteration, parent, joinedAt. */
const CONTRIBUTION_FIXED_BYTES = CONTRIBUTION_DOMAIN.byteLength + 32 + 8 + 32 + 8;

/**
 * The bytes an author signs for a contribution, written into one buffer (a commit's check
 * rebuilds them for every entry, so no intermediate arrays).
 */
export function contributionSignedBytes(c: ContributionClaim): Uint8Array {
  if (c.parentHash.byteLength !== 32) throw new RangeError("parentHash must be 32 bytes");
  const out = Buffer.allocUnsafe(CONTRIBUTION_FIXED_BYTES + c.payload.byteLength);
  let at = 0;
  out.set(CONTRIBUTION_DOMAIN, at);
  at += CONTRIBUTION_DOMAIN.byteLength;
  out.set(runIdBytes(c.runId), at);
  at += 32;
  out.writeBigUInt64BE(BigInt(c.iteration), at);
  at += 8;
  out.set(c.parentHash, at);
  at += 32;
  out.writeBigUInt64BE(BigInt(c.joinedAt), at);
  at += 8;
  out.set(c.payload, at);
  return out;
}

/** What a peer signs to announce (or, expiring at once, withdraw) itself in an expert record. */
export interface ExpertClaim {
  readonly suffix: number;
  readonly timestamp: number;
  readonly expiresAt: number;
}

/**
 * The bytes the peer an expert entry names signs: the domain tag, the DHT key (runId and prefix,
 * length-prefixed), the suffix and both times. Bound to the key, so an entry cannot be moved to
 * another prefix or run.
 */
export function expertEntrySignedBytes(key: Uint8Array, e: ExpertClaim): Uint8Array {
  return concat([EXPERT_DOMAIN, u64be(key.byteLength), key, u64be(e.suffix), u64be(e.timestamp), u64be(e.expiresAt)]);
}

/** The notices a node signs: leaving, its head, and an audit's fraud proof. */
export type NoticeKind = "leave" | "heartbeat" | "proof";

const NOTICE_DOMAINS: Record<NoticeKind, Uint8Array> = {
  leave: new TextEncoder().encode("seedswarm/leave/v1"),
  heartbeat: new TextEncoder().encode("seedswarm/heartbeat/v1"),
  proof: new TextEncoder().encode("seedswarm/proof/v1"),
};

/** The bytes a node signs for a notice: the kind's domain tag, then the notice encoded without its signature. */
export function noticeSignedBytes(kind: NoticeKind, body: Uint8Array): Uint8Array {
  return concat([NOTICE_DOMAINS[kind], body]);
}

/**
 * Checks a notice's signature by the author it names (`body`: the notice encoded without its
 * signature, codec.ts leaveBody/heartbeatBody). Throws ChainCheckError.
 */
export function checkNotice(kind: NoticeKind, author: Uint8Array, body: Uint8Array, sig: Uint8Array, check: SignatureCheck, context: Record<string, unknown> = {}): void {
  ed25519Signer(author, `${kind} author`, context);
  if (!check(author, noticeSignedBytes(kind, body), sig))
    throw new ChainCheckError("BAD_SIGNATURE", `${kind} signature does not verify`, { ...context, author: peerIdString(author) });
}

/** The bytes a proposer signs: the domain tag, then the commit encoded without its signature. */
export function commitSignedBytes(body: Uint8Array): Uint8Array {
  return concat([COMMIT_DOMAIN, body]);
}

/**
 * The identity-multihash header of an Ed25519 peer id: code 0x00, length 36, then the libp2p
 * PublicKey protobuf (Type = 1 Ed25519, Data = 32 bytes).
 */
const ED25519_PEER_ID_PREFIX = Uint8Array.of(0x00, 0x24, 0x08, 0x01, 0x12, 0x20);
/** SPKI DER header of an Ed25519 public key, so node:crypto can import the raw 32 bytes. */
const ED25519_SPKI_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);

/** The raw 32-byte Ed25519 key inside a peer id multihash, or null when it is no Ed25519 id. */
export function ed25519KeyOfPeerId(peerIdBytes: Uint8Array): Uint8Array | null {
  if (peerIdBytes.byteLength !== ED25519_PEER_ID_PREFIX.byteLength + 32) return null;
  for (let i = 0; i < ED25519_PEER_ID_PREFIX.byteLength; i++)
    if (peerIdBytes[i] !== ED25519_PEER_ID_PREFIX[i]) return null;
  return peerIdBytes.subarray(ED25519_PEER_ID_PREFIX.byteLength);
}

/** Peer id strings memoised by their bytes' hex: base58 costs tens of microseconds, hex one. */
const ID_STRINGS = new Map<string, string>();
const ID_STRINGS_KEEP = 4096;

/** The peer id string ("12D3KooW...") of peer id bytes: base58btc of the multihash. */
export function peerIdString(peerIdBytes: Uint8Array): string {
  const hex = Buffer.from(peerIdBytes.buffer, peerIdBytes.byteOffset, peerIdBytes.byteLength).toString("hex");
  let id = ID_STRINGS.get(hex);
  if (id === undefined) {
    id = base58btc.baseEncode(peerIdBytes);
    ID_STRINGS.set(hex, id);
    if (ID_STRINGS.size > ID_STRINGS_KEEP) ID_STRINGS.delete(ID_STRINGS.keys().next().value as string);
  }
  return id;
}

/** Peer id bytes memoised by their string (gossip names every author by string, per message). */
const ID_BYTES = new Map<string, Uint8Array>();

/**
 * The multihash bytes of a peer id string (any key type); throws on text that is no base58btc.
 * The bytes returned may be shared: callers must not write into them.
 */
export function peerIdStringBytes(id: string): Uint8Array {
  let bytes = ID_BYTES.get(id);
  if (bytes === undefined) {
    bytes = base58btc.baseDecode(id);
    ID_BYTES.set(id, bytes);
    if (ID_BYTES.size > ID_STRINGS_KEEP) ID_BYTES.delete(ID_BYTES.keys().next().value as string);
  }
  return bytes;
}

/** An Ed25519 public key for node:crypto (OpenSSL) from its raw 32 bytes. */
export function ed25519PublicKey(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.from(concat([ED25519_SPKI_PREFIX, raw])), format: "der", type: "spki" });
}

/** True when `signature` is the key's Ed25519 signature of `message`. */
export function verifyEd25519(key: KeyObject, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.byteLength !== SIGNATURE_BYTES) return false;
  return verify(null, message, key, signature);
}

/**
 * A signature check: true when `signature` by the Ed25519 peer id `signer` (multihash bytes, a
 * key already known to be Ed25519) signs `message`. The node passes a cached one.
 */
export type SignatureCheck = (signer: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;

/** The uncached check: imports the key and verifies. */
export const checkSignature: SignatureCheck = (signer, message, signature) => {
  const raw = ed25519KeyOfPeerId(signer);
  return raw !== null && verifyEd25519(ed25519PublicKey(raw), message, signature);
};

export type ChainCheckCode =
  | "NOT_ED25519"
  | "BAD_SIGNATURE"
  | "NOT_CANONICAL"
  | "DUPLICATE_AUTHOR"
  | "ENTRY_ORDER"
  | "BAD_JOINED_AT"
  | "BAD_EXCLUSION"
  /** Stale entries and the older parents the commit carries do not match (pipelined rounds). */
  | "BAD_PARENTS";

/** A contribution or commit whose signatures or form fail the stateless checks. */
export class ChainCheckError extends SeedswarmError<ChainCheckCode> {}

function ed25519Signer(signer: Uint8Array, at: string, context: Record<string, unknown>): void {
  if (!ed25519KeyOfPeerId(signer))
    throw new ChainCheckError("NOT_ED25519", `${at} is no Ed25519 peer id`, { ...context, length: signer.byteLength });
}

/** No join time before this (2024-01-01T00:00:00Z): seedswarm did not exist, no honest node joined. */
export const MIN_JOINED_AT = Date.UTC(2024, 0, 1);
/** How far a join time may run ahead of our clock: clock skew between honest hosts, not more. */
export const MAX_JOINED_AT_AHEAD_MS = 3_600_000;

function joinedAtInBounds(joinedAt: number, now: number): boolean {
  return joinedAt >= MIN_JOINED_AT && joinedAt <= now + MAX_JOINED_AT_AHEAD_MS;
}

/**
 * Checks a join time against our clock (`now`, ms since the epoch). The apply order and the
 * 1,024-entry cut of a commit go by join time (earliest first), so an unbounded one (0, or 2^53-1)
 * would let a fresh key claim to be the oldest author, or sort last forever. Throws ChainCheckError.
 */
export function checkJoinedAt(joinedAt: number, now: number, at: string, context: Record<string, unknown> = {}): void {
  if (!joinedAtInBounds(joinedAt, now))
    throw new ChainCheckError("BAD_JOINED_AT", `${at}: joinedAt ${joinedAt} is before 2024 or more than 1 h ahead of our clock`, {
      ...context,
      joinedAt,
      now,
    });
}

/** Checks a contribution's join time and its signature by its author (m.author); throws ChainCheckError. */
export function checkContribution(m: ContributionMessage, check: SignatureCheck, now = Date.now()): void {
  const author = m.author;
  ed25519Signer(author, "contribution author", { iteration: m.iteration });
  checkJoinedAt(m.joinedAt, now, "contribution", { iteration: m.iteration });
  if (!check(author, contributionSignedBytes(m), m.signature))
    throw new ChainCheckError("BAD_SIGNATURE", "contribution signature does not verify", {
      iteration: m.iteration,
      author: peerIdString(author),
    });
}

/**
 * Checks a commit against the bytes it came as, with no chain state: the bytes are its one
 * canonical encoding (so nobody can re-encode a commit into another hash under the same
 * signature), the proposer is Ed25519 and signed it, every entry's author is Ed25519 and signed
 * (runId, iteration, its parent, joinedAt, payload) (its parent: prevHash, or for a pipelined
 * entry the older parent its staleness names; the commit carries exactly those), authors are distinct and in timestamp order,
 * every join time within checkJoinedAt's bounds against `now`. `beforeEntries` runs once the
 * proposer's signature verified, before any entry's (it may throw). Throws ChainCheckError.
 */
export function checkCommit(m: CommitMessage, encoded: Uint8Array, check: SignatureCheck, now = Date.now(), beforeEntries?: () => void): void {
  const ctx = { iteration: m.iteration };
  if (!equalBytes(encodeCommit(m), encoded))
    throw new ChainCheckError("NOT_CANONICAL", "commit is not in its canonical encoding", ctx);
  // Key types first (cheap), then the signatures.
  ed25519Signer(m.proposer, "commit proposer", ctx);
  // (Labels and contexts are built only for the entry that fails.)
  m.entries.forEach((e, entry) => {
    if (!ed25519KeyOfPeerId(e.author)) ed25519Signer(e.author, `commit.entries[${entry}].author`, { ...ctx, entry });
  });
  m.entries.forEach((e, entry) => {
    if (!joinedAtInBounds(e.joinedAt, now)) checkJoinedAt(e.joinedAt, now, `commit.entries[${entry}]`, { ...ctx, entry });
  });
  // The signed body is the canonical bytes minus their signature field: no second encoding.
  const body = commitBodyOf(m, encoded);
  if (!body) throw new ChainCheckError("NOT_CANONICAL", "commit does not end in its signature field", ctx);
  if (!check(m.proposer, commitSignedBytes(body), m.signature))
    throw new ChainCheckError("BAD_SIGNATURE", "commit signature does not verify", { ...ctx, proposer: peerIdString(m.proposer) });
  // The proposer is proven: the caller may refuse it before its entries cost their verifications.
  beforeEntries?.();
  // Exactly the parents stale entries name: nothing for a proposer to pad or vary.
  const stalest = Math.max(0, ...m.entries.map((e) => e.staleness ?? 0));
  if ((m.olderParents?.length ?? 0) !== stalest)
    throw new ChainCheckError("BAD_PARENTS", `${m.olderParents?.length ?? 0} older parents for entries of staleness up to ${stalest}`, ctx);
  const ids = new Set<string>();
  let prev: { joinedAt: number; id: string } | undefined;
  m.entries.forEach((e, entry) => {
    const id = peerIdString(e.author);
    if (ids.has(id)) throw new ChainCheckError("DUPLICATE_AUTHOR", "commit lists an author twice", { ...ctx, entry, author: id });
    ids.add(id);
    if (prev && (prev.joinedAt > e.joinedAt || (prev.joinedAt === e.joinedAt && prev.id > id)))
      throw new ChainCheckError("ENTRY_ORDER", "commit entries are not in timestamp order", { ...ctx, entry });
    prev = { joinedAt: e.joinedAt, id };
    const parentHash = entryParent(m, e.staleness);
    if (!parentHash) throw new ChainCheckError("BAD_PARENTS", `entry of staleness ${e.staleness} but ${m.olderParents?.length ?? 0} older parents`, { ...ctx, entry });
    const signed = contributionSignedBytes({
      runId: m.runId,
      iteration: m.iteration,
      parentHash,
      joinedAt: e.joinedAt,
      payload: e.payload,
    });
    if (!check(e.author, signed, e.signature))
      throw new ChainCheckError("BAD_SIGNATURE", "commit entry signature does not verify", { ...ctx, entry, author: id });
  });
  checkExclusions(m, ids, ctx);
}

/**
 * An exclusion's form: an Ed25519 author named once, for an earlier iteration within
 * EXCLUSION_WINDOW, who has no entry in the excluding commit. Whether its contribution really
 * fails to recompute needs the chain and the weights: node/chain/audits.ts.
 */
function checkExclusions(m: CommitMessage, entryAuthors: ReadonlySet<string>, ctx: { iteration: number }): void {
  const seen = new Set<string>();
  (m.exclusions ?? []).forEach((x, exclusion) => {
    ed25519Signer(x.author, `commit.exclusions[${exclusion}].author`, { ...ctx, exclusion });
    const id = peerIdString(x.author);
    const fail = (why: string) => {
      throw new ChainCheckError("BAD_EXCLUSION", `commit.exclusions[${exclusion}]: ${why}`, { ...ctx, exclusion, author: id, offence: x.iteration });
    };
    if (seen.has(id)) fail("author excluded twice");
    seen.add(id);
    if (x.iteration >= m.iteration || m.iteration - x.iteration > EXCLUSION_WINDOW)
      fail(`iteration ${x.iteration} is not within the ${EXCLUSION_WINDOW} before ${m.iteration}`);
    if (entryAuthors.has(id)) fail("the excluded author has an entry in the excluding commit");
  });
}
