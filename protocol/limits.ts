/**
 * Size limits of the wire, in one table. The libraries' defaults are unlimited (protons) or far
 * too generous for our messages (4 MiB frames), so every decode here is bounded by these.
 *
 * Message limits are the worst case an honest node can produce from in-limit fields, computed
 * from the field limits below, so tightening a field limit tightens its messages.
 */
import type { TopicKind } from "./topics.js";

/** Largest contribution payload: an SPSA payload is one byte per perturbation (spec max 1024). */
export const MAX_PAYLOAD_BYTES = 4096;
/** An Ed25519 signature's length: contributions, commit entries and commits each carry one. */
export const SIGNATURE_BYTES = 64;
/** Most entries in one commit: bounds the swarm size a single round can include. */
export const MAX_COMMIT_ENTRIES = 1024;
/**
 * Most entries in one commit of an open run (no RunSpec `members`): the seats. A crowd of free
 * identities can hold at most this many, so what it costs a round is bounded whatever its size;
 * members that contributed to more of the recent commits keep their seats first
 * (node/chain/admission.ts). A member run's commits hold up to MAX_COMMIT_ENTRIES.
 */
export const OPEN_SEATS = 64;
/** Most exclusions one commit may record (audits' fraud proofs; see node/chain/audits.ts). */
export const MAX_COMMIT_EXCLUSIONS = 8;
/**
 * How many iterations after the disproved contribution an exclusion may be recorded: every node
 * must still be able to rebuild the state it was measured on (kept snapshots plus replay).
 */
export const EXCLUSION_WINDOW = 16;
/**
 * Pipelined rounds: the most iterations a contribution may be measured before its own (a RunSpec's
 * `staleness` is at most this). Each one more keeps one more weight state for audits.
 */
export const MAX_STALENESS = 2;
/**
 * How far past its head a node holds (and gossip forwards) contributions and commits. Honest
 * nodes differ by a few iterations, plus a pipelined run's staleness; a node further behind
 * learns of it from heartbeats (HINT_WINDOW) and pulls the verified commits it misses. Each
 * iteration more is one more iteration's worth that free identities can make every node hold.
 */
export const FUTURE_ITERATIONS = 8;
/** How far past its head a heartbeat, leave or fraud proof may claim to be (hints only, holding nothing). */
export const HINT_WINDOW = 1024;
/**
 * How far behind our head a heartbeat or leave may be and still be taken and forwarded: a slow
 * peer is a few iterations behind; one further behind is repaired by its own checks, and its
 * notices tell nobody anything (finding 11: a flood of old notices cost a verification each).
 */
export const NOTICE_BEHIND = 64;
/** Largest peer id multihash: identity inlines keys up to 42 bytes (+2 header), others are sha2-256. */
export const MAX_PEER_ID_BYTES = 44;
/** Snapshot chunk size a joiner asks for by default: a few round trips per MiB, small retries. */
export const DEFAULT_SNAPSHOT_CHUNK_BYTES = 256 * 1024;
/** Largest snapshot chunk a peer serves: bounds the memory one request makes a peer hold. */
export const MAX_SNAPSHOT_CHUNK_BYTES = 4 * 1024 * 1024;
/** Most commits per CommitsResponse: a joiner replays in pages, never one unbounded reply. */
export const MAX_COMMITS_PER_RESPONSE = 256;
/** Largest CommitsResponse: a server stops adding commits before this; one full commit always fits. */
export const MAX_COMMITS_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Largest request of any kind: requests carry a run id and a few integers. */
export const MAX_REQUEST_BYTES = 1024;
/** Entries in one DHT expert record: suffixes x peers under one prefix. */
export const MAX_EXPERT_ENTRIES = 1024;
/** Most members a member run may list (RunSpec `members`): bounds the spec and the membership set. */
export const MAX_MEMBERS = 4096;
/**
 * Largest RunSpec JSON served: 64 KiB leaves room for long dataset paths, plus 64 bytes per member
 * (a quoted Ed25519 peer id and its comma take 55).
 */
export const MAX_SPEC_JSON_BYTES = 64 * 1024 + MAX_MEMBERS * 64;

/** Bytes of a varint encoding n (n < 2^35 here). */
function varintBytes(n: number): number {
  let bytes = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    bytes++;
  }
  return bytes;
}

/** A length-delimited field holding n bytes: tag, length, data. */
function lenField(n: number): number {
  return 1 + varintBytes(n) + n;
}

/** A uint64 field at its widest: tag and a 10-byte varint. */
const U64_FIELD = 11;
/** A uint32 field at its widest: tag and a 5-byte varint. */
const U32_FIELD = 6;
const BOOL_FIELD = 2;
/** A 32-byte hash (run id, checksum, commit hash). */
const HASH_FIELD = lenField(32);

/** An Ed25519 signature. */
const SIGNATURE_FIELD = lenField(SIGNATURE_BYTES);

const COMMIT_ENTRY_BYTES =
  lenField(MAX_PEER_ID_BYTES) + U64_FIELD + lenField(MAX_PAYLOAD_BYTES) + SIGNATURE_FIELD + U32_FIELD;

/**
 * Largest encoded message of each kind, checked before any parsing. Gossip kinds are named as
 * their topics, so `MAX_MESSAGE_BYTES[topic.kind]` is the guard for a topic.
 */
export const MAX_MESSAGE_BYTES = {
  contribution: 2 * HASH_FIELD + 2 * U64_FIELD + lenField(MAX_PAYLOAD_BYTES) + SIGNATURE_FIELD + U32_FIELD + lenField(MAX_PEER_ID_BYTES),
  /** ~4.15 MiB at the limits: gossipsub's inbound frame limit must sit above it. */
  commit:
    (3 + MAX_STALENESS) * HASH_FIELD +
    U64_FIELD +
    U32_FIELD +
    lenField(MAX_PEER_ID_BYTES) +
    SIGNATURE_FIELD +
    MAX_COMMIT_ENTRIES * lenField(COMMIT_ENTRY_BYTES) +
    MAX_COMMIT_EXCLUSIONS * lenField(lenField(MAX_PEER_ID_BYTES) + U64_FIELD),
  leave: HASH_FIELD + U64_FIELD + lenField(MAX_PEER_ID_BYTES) + SIGNATURE_FIELD,
  heartbeat: 2 * HASH_FIELD + 2 * U64_FIELD + lenField(MAX_PEER_ID_BYTES) + SIGNATURE_FIELD,
  proof: 2 * HASH_FIELD + U64_FIELD + 2 * lenField(MAX_PEER_ID_BYTES) + SIGNATURE_FIELD,
  runSpecRequest: MAX_REQUEST_BYTES,
  runSpecResponse: lenField(MAX_SPEC_JSON_BYTES),
  snapshotRequest: MAX_REQUEST_BYTES,
  snapshotResponse: U64_FIELD + 2 * HASH_FIELD + U32_FIELD + lenField(MAX_SNAPSHOT_CHUNK_BYTES),
  commitsRequest: MAX_REQUEST_BYTES,
  commitsResponse: MAX_COMMITS_RESPONSE_BYTES,
  checksumRequest: MAX_REQUEST_BYTES,
  checksumResponse: U64_FIELD + HASH_FIELD + BOOL_FIELD,
  expertRecord:
    MAX_EXPERT_ENTRIES * lenField(U32_FIELD + lenField(MAX_PEER_ID_BYTES) + 2 * U64_FIELD + SIGNATURE_FIELD),
} as const satisfies Record<TopicKind, number> & Record<string, number>;

/** Every message of the wire, by the name its limit is filed under. */
export type MessageName = keyof typeof MAX_MESSAGE_BYTES;
