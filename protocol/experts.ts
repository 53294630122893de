/**
 * Learning@home expert records, the pure part: uid grammar, DHT keys, and how records merge.
 *
 * An expert uid is a name and integer grid coordinates, `snap.120.3`. The DHT holds, under the
 * key of each prefix (`snap`, `snap.120`), the active next coordinates with the peers serving
 * them, a timestamp and an expiry. Announcing `snap.120.3` touches both prefix keys; a beam search
 * walks the grid one coordinate at a time from the name. Records merge as a union keyed by
 * (suffix, peer), newest announcement wins, expired entries drop: any two copies of a record
 * merge to the same result in any order, so concurrent writers and DHT peers holding different
 * copies converge once each writer has re-announced.
 *
 * Records are anyone's to write (issue 11, attack 5), so each entry carries the signature of the
 * peer it names over the key, suffix and times (signing.ts expertEntrySignedBytes): a reader keeps
 * only entries that verify (verifiedExpertEntries), so nobody can announce another peer, nor
 * withdraw an honest holder with a forged newer entry. Bounded per prefix key: at most
 * MAX_EXPERT_ENTRIES entries, MAX_HOLDERS_PER_SUFFIX of them per suffix (HolderPreference says
 * which). DHT peers store only records of their own runs, within a byte bound
 * (expertRecordValidator), and spread only a copy whose entries verify (bestExpertRecord). What an
 * entry says is still a claim: a snapshot holder is believed only through the verified chain
 * (node/sync/snapshot-fetch.ts).
 */
import { decodeExpertRecord, type ExpertEntry, type ExpertRecord } from "./sync-codec.js";
import { toHex } from "./bytes.js";
import { SeedswarmError } from "./errors.js";
import { MAX_EXPERT_ENTRIES, MAX_MESSAGE_BYTES } from "./limits.js";
import { checkSignature, expertEntrySignedBytes, type SignatureCheck } from "./signing.js";

export class ExpertUidError extends SeedswarmError<"EXPERT_BAD_UID" | "EXPERT_BAD_KEY"> {}

/** Holders kept per suffix (per uid) in one record: a flood of identities cannot grow it further. */
export const MAX_HOLDERS_PER_SUFFIX = 32;

/** How far in the future an announcement may be dated (clock skew), and the longest life an entry may claim. */
export const EXPERT_TIME_BOUNDS = { skewMs: 60_000, maxTtlMs: 10 * 60_000 } as const;

/**
 * The entries of a record stored under `key` whose signature is the named peer's (an Ed25519
 * peer id; anything else fails), dated no later than now + skew and living at most maxTtlMs (a
 * far-future entry would win every merge and never expire). Readers and writers keep only these.
 */
export function verifiedExpertEntries(
  key: Uint8Array,
  entries: readonly ExpertEntry[],
  now: number,
  check: SignatureCheck = checkSignature,
): ExpertEntry[] {
  return entries.filter(
    (e) =>
      e.timestamp <= now + EXPERT_TIME_BOUNDS.skewMs &&
      e.expiresAt - e.timestamp <= EXPERT_TIME_BOUNDS.maxTtlMs &&
      check(e.peer, expertEntrySignedBytes(key, e), e.signature),
  );
}

/** The DHT namespace of expert records: kad-dht routes a key's validator by its first segment. */
export const EXPERT_NAMESPACE = "seedswarm-expert";

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const MAX_COORD = 0xffffffff;
const MAX_DIMS = 8;

/** A parsed uid or uid prefix: the grid name and its coordinates so far. */
export interface ExpertUid {
  readonly name: string;
  readonly coords: readonly number[];
}

/** Parses `name.c1.c2...` (zero or more coordinates); throws ExpertUidError naming the problem. */
export function parseExpertUid(uid: string): ExpertUid {
  const [name, ...rest] = uid.split(".");
  if (!NAME.test(name))
    throw new ExpertUidError("EXPERT_BAD_UID", `expert uid "${uid}": bad grid name`, { uid });
  if (rest.length > MAX_DIMS)
    throw new ExpertUidError("EXPERT_BAD_UID", `expert uid "${uid}": over ${MAX_DIMS} coordinates`, {
      uid,
    });
  const coords = rest.map((c) => {
    const n = /^(0|[1-9][0-9]{0,9})$/.test(c) ? Number(c) : -1;
    if (n < 0 || n > MAX_COORD)
      throw new ExpertUidError("EXPERT_BAD_UID", `expert uid "${uid}": bad coordinate "${c}"`, {
        uid,
      });
    return n;
  });
  return { name, coords };
}

export function formatExpertUid(u: ExpertUid): string {
  return [u.name, ...u.coords].join(".");
}

/** The DHT key of a uid prefix within a run: `/seedswarm-expert/<runId>/<prefix>`. */
export function expertKey(runId: string, prefix: string): Uint8Array {
  parseExpertUid(prefix);
  return new TextEncoder().encode(`/${EXPERT_NAMESPACE}/${runId}/${prefix}`);
}

/** The (runId, prefix) a key names, or null when it is not an expert key. */
export function parseExpertKey(key: Uint8Array): { runId: string; prefix: string } | null {
  const m = /^\/seedswarm-expert\/([0-9a-f]{64})\/([^/]+)$/.exec(new TextDecoder().decode(key));
  if (!m) return null;
  try {
    parseExpertUid(m[2]);
  } catch {
    return null;
  }
  return { runId: m[1], prefix: m[2] };
}

/**
 * For each prefix key a uid touches, the suffix to announce there: `snap.120.3` gives
 * `snap` -> 120 and `snap.120` -> 3.
 */
export function prefixSuffixes(uid: string): { prefix: string; suffix: number }[] {
  const { name, coords } = parseExpertUid(uid);
  return coords.map((suffix, i) => ({
    prefix: formatExpertUid({ name, coords: coords.slice(0, i) }),
    suffix,
  }));
}

/**
 * How a merge chooses among holders when a suffix has more than MAX_HOLDERS_PER_SUFFIX (security
 * review, finding 6c): the merge itself is stateless, and free identities can mimic anything an entry
 * says (its peer id, a time up to now + skew), so the choice is the caller's, from what it
 * observed. `mine` entries (the writer's own) are always kept; then up to SENIOR_HOLDER_SLOTS
 * holders with the earliest `firstSeen` (when this node first saw that holder live there), so
 * holders seen before a crowd arrived cannot be pushed out by it; then the newest, with times
 * past `now` counted as `now` (a future date wins nothing).
 */
export interface HolderPreference {
  readonly mine?: (e: ExpertEntry) => boolean;
  /** When the caller first saw (suffix, peer) live; undefined when never. */
  readonly firstSeen?: (e: ExpertEntry) => number | undefined;
}

/** Of a suffix's MAX_HOLDERS_PER_SUFFIX slots, those kept for the longest-known holders: half, so newcomers still get in. */
export const SENIOR_HOLDER_SLOTS = MAX_HOLDERS_PER_SUFFIX / 2;

export interface MergeOptions {
  /** Holders kept per suffix; readers that only look pass Infinity (the cap bounds what is written). */
  readonly holdersPerSuffix?: number;
  /** Entries kept in all. */
  readonly maxEntries?: number;
  readonly prefer?: HolderPreference;
}

/**
 * The union of records: one entry per (suffix, peer), the newest announcement winning, expired
 * ones (expiresAt <= now) dropped, sorted by suffix then peer. Over `holdersPerSuffix` for one
 * suffix, or `maxEntries` in all, entries are kept in the order HolderPreference says (default:
 * newest first). Entries must have verified first (verifiedExpertEntries): the merge trusts what
 * it is given.
 */
export function mergeExpertRecords(records: readonly ExpertRecord[], now: number, opts: MergeOptions = {}): ExpertRecord {
  const perSuffix = opts.holdersPerSuffix ?? MAX_HOLDERS_PER_SUFFIX;
  const maxEntries = opts.maxEntries ?? MAX_EXPERT_ENTRIES;
  const byKey = new Map<string, ExpertEntry>();
  for (const r of records) {
    for (const e of r.entries) {
      // Expired entries still take part: a newer one that expires at once is a withdrawal.
      const k = `${e.suffix}/${toHex(e.peer)}`;
      const prev = byKey.get(k);
      if (!prev || e.timestamp > prev.timestamp) byKey.set(k, e);
    }
  }
  const live = [...byKey.values()].filter((e) => e.expiresAt > now);
  // Tier 0: ours; 1: senior; 2: the rest. Within a tier the newest (capped at now) first.
  const tier = new Map<ExpertEntry, number>();
  const mine = opts.prefer?.mine ?? (() => false);
  const firstSeen = opts.prefer?.firstSeen ?? (() => undefined);
  const order = (a: ExpertEntry, b: ExpertEntry) =>
    (tier.get(a) ?? 2) - (tier.get(b) ?? 2) ||
    Math.min(b.timestamp, now) - Math.min(a.timestamp, now) ||
    (toHex(a.peer) < toHex(b.peer) ? -1 : 1);
  const bySuffix = new Map<number, ExpertEntry[]>();
  for (const e of live) {
    const l = bySuffix.get(e.suffix);
    if (l) l.push(e);
    else bySuffix.set(e.suffix, [e]);
  }
  let entries: ExpertEntry[] = [];
  for (const l of bySuffix.values()) {
    for (const e of l) if (mine(e)) tier.set(e, 0);
    const senior = l
      .filter((e) => !tier.has(e) && firstSeen(e) !== undefined)
      .sort((a, b) => (firstSeen(a) as number) - (firstSeen(b) as number) || order(a, b))
      .slice(0, SENIOR_HOLDER_SLOTS);
    for (const e of senior) tier.set(e, 1);
    entries.push(...(l.length > perSuffix ? l.sort(order).slice(0, perSuffix) : l));
  }
  if (entries.length > maxEntries) entries = entries.sort(order).slice(0, maxEntries);
  entries.sort((a, b) => a.suffix - b.suffix || (toHex(a.peer) < toHex(b.peer) ? -1 : 1));
  return { entries };
}

/**
 * Verifies the copies of one record, in order: for each, the entries that count
 * (verifiedExpertEntries' rules), or null when the copy must not count at all (undecodable; more
 * than a few entries whose signatures fail: an honest writer writes back only entries that
 * verified, so such a copy is a liar's; or over the reader's verification budget).
 */
export type ExpertCopyCheck = (key: Uint8Array, copies: readonly Uint8Array[], now: number) => (readonly ExpertEntry[] | null)[];

export class ExpertRecordError extends SeedswarmError<"EXPERT_NO_VERIFIED_COPY" | "EXPERT_FOREIGN_RUN" | "EXPERT_RECORD_TOO_LARGE"> {}

/**
 * The kad-dht selector's choice among copies of one key: the copy with the most live entries
 * that verify, then the newest of those. Throws when no copy has one: kad-dht then spreads no
 * copy as a correction (a poisoned copy full of bogus signatures must never win, nor be sent to
 * the peers that hold honest ones). Readers merge all verified copies anyway; this only decides
 * which copy the DHT spreads.
 */
export function bestExpertRecord(key: Uint8Array, copies: readonly Uint8Array[], now: number, check: ExpertCopyCheck): number {
  let best = -1;
  let bestLive = 0;
  let bestNewest = -1;
  check(key, copies, now).forEach((entries, i) => {
    const live = (entries ?? []).filter((e) => e.expiresAt > now);
    const newest = Math.max(-1, ...live.map((e) => e.timestamp));
    if (live.length > bestLive || (live.length === bestLive && live.length > 0 && newest > bestNewest)) {
      best = i;
      bestLive = live.length;
      bestNewest = newest;
    }
  });
  if (best < 0)
    throw new ExpertRecordError("EXPERT_NO_VERIFIED_COPY", "no copy of the expert record has a live verified entry", { copies: copies.length });
  return best;
}

/** Largest expert record a DHT peer stores: MAX_EXPERT_ENTRIES full entries (about 136 KB). */
export const MAX_EXPERT_RECORD_BYTES = MAX_MESSAGE_BYTES.expertRecord;

/**
 * kad-dht validator for our namespace: the key must be an expert key of one of `runIds` (the runs
 * this node takes part in: a DHT peer need not store strangers' records, and a flood under
 * random runIds is refused unread), the value at most MAX_EXPERT_RECORD_BYTES and a record of at
 * most MAX_EXPERT_ENTRIES entries. Entry signatures are checked by readers, not here: a DHT peer
 * would otherwise verify up to MAX_EXPERT_ENTRIES signatures for every put anyone sends it. What
 * passes is still bounded in memory by the datastore (node/network/compact-datastore.ts).
 */
export function expertRecordValidator(runIds: readonly string[]): (key: Uint8Array, value: Uint8Array) => Promise<void> {
  const ours = new Set(runIds);
  return async (key, value) => {
    const parsed = parseExpertKey(key);
    if (!parsed) throw new ExpertUidError("EXPERT_BAD_KEY", "not a seedswarm expert key");
    if (!ours.has(parsed.runId))
      throw new ExpertRecordError("EXPERT_FOREIGN_RUN", "expert record of a run this node is not in", { runId: parsed.runId });
    if (value.byteLength > MAX_EXPERT_RECORD_BYTES)
      throw new ExpertRecordError("EXPERT_RECORD_TOO_LARGE", `expert record over ${MAX_EXPERT_RECORD_BYTES} bytes`, {
        bytes: value.byteLength,
      });
    decodeExpertRecord(value);
  };
}

/** kad-dht selector for our namespace over `check` (the node's cached copy verifier). */
export function expertRecordSelector(check: ExpertCopyCheck): (key: Uint8Array, values: Uint8Array[]) => number {
  return (key, values) => bestExpertRecord(key, values, Date.now(), check);
}
