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
 * MAX_EXPERT_ENTRIES entries, MAX_HOLDERS_PER_SUFFIX of them per suffix (newest kept). What an
 * entry says is still a claim: a snapshot holder is believed only through the verified chain
 * (node/sync/snapshot-fetch.ts).
 */
import { decodeExpertRecord } from "./sync-codec.js";
import { toHex } from "./bytes.js";
import { SeedswarmError } from "./errors.js";
import { MAX_EXPERT_ENTRIES } from "./limits.js";
import { checkSignature, expertEntrySignedBytes } from "./signing.js";
export class ExpertUidError extends SeedswarmError {
}
/** Holders kept per suffix (per uid) in one record: a flood of identities cannot grow it further. */
export const MAX_HOLDERS_PER_SUFFIX = 32;
/** How far in the future an announcement may be dated (clock skew), and the longest life an entry may claim. */
export const EXPERT_TIME_BOUNDS = { skewMs: 60_000, maxTtlMs: 10 * 60_000 };
/**
 * The entries of a record stored under `key` whose signature is the named peer's (an Ed25519
 * peer id; anything else fails), dated no later than now + skew and living at most maxTtlMs (a
 * far-future entry would win every merge and never expire). Readers and writers keep only these.
 */
export function verifiedExpertEntries(key, entries, now, check = checkSignature) {
    return entries.filter((e) => e.timestamp <= now + EXPERT_TIME_BOUNDS.skewMs &&
        e.expiresAt - e.timestamp <= EXPERT_TIME_BOUNDS.maxTtlMs &&
        check(e.peer, expertEntrySignedBytes(key, e), e.signature));
}
/** The DHT namespace of expert records: kad-dht routes a key's validator by its first segment. */
export const EXPERT_NAMESPACE = "seedswarm-expert";
const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const MAX_COORD = 0xffffffff;
const MAX_DIMS = 8;
/** Parses `name.c1.c2...` (zero or more coordinates); throws ExpertUidError naming the problem. */
export function parseExpertUid(uid) {
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
export function formatExpertUid(u) {
    return [u.name, ...u.coords].join(".");
}
/** The DHT key of a uid prefix within a run: `/seedswarm-expert/<runId>/<prefix>`. */
export function expertKey(runId, prefix) {
    parseExpertUid(prefix);
    return new TextEncoder().encode(`/${EXPERT_NAMESPACE}/${runId}/${prefix}`);
}
/** The (runId, prefix) a key names, or null when it is not an expert key. */
export function parseExpertKey(key) {
    const m = /^\/seedswarm-expert\/([0-9a-f]{64})\/([^/]+)$/.exec(new TextDecoder().decode(key));
    if (!m)
        return null;
    try {
        parseExpertUid(m[2]);
    }
    catch {
        return null;
    }
    return { runId: m[1], prefix: m[2] };
}
/**
 * For each prefix key a uid touches, the suffix to announce there: `snap.120.3` gives
 * `snap` -> 120 and `snap.120` -> 3.
 */
export function prefixSuffixes(uid) {
    const { name, coords } = parseExpertUid(uid);
    return coords.map((suffix, i) => ({
        prefix: formatExpertUid({ name, coords: coords.slice(0, i) }),
        suffix,
    }));
}
/**
 * The union of records: one entry per (suffix, peer), the newest announcement winning, expired
 * ones (expiresAt <= now) dropped, sorted by suffix then peer. Over MAX_HOLDERS_PER_SUFFIX for
 * one suffix, or MAX_EXPERT_ENTRIES in all, the newest entries are kept. Entries must have
 * verified first (verifiedExpertEntries): the merge trusts what it is given.
 */
export function mergeExpertRecords(records, now) {
    const byKey = new Map();
    for (const r of records) {
        for (const e of r.entries) {
            // Expired entries still take part: a newer one that expires at once is a withdrawal.
            const k = `${e.suffix}/${toHex(e.peer)}`;
            const prev = byKey.get(k);
            if (!prev || e.timestamp > prev.timestamp)
                byKey.set(k, e);
        }
    }
    let entries = [...byKey.values()].filter((e) => e.expiresAt > now);
    const bySuffix = new Map();
    for (const e of entries)
        bySuffix.set(e.suffix, [...(bySuffix.get(e.suffix) ?? []), e]);
    if ([...bySuffix.values()].some((l) => l.length > MAX_HOLDERS_PER_SUFFIX))
        entries = [...bySuffix.values()].flatMap((l) => l.sort((a, b) => b.timestamp - a.timestamp).slice(0, MAX_HOLDERS_PER_SUFFIX));
    if (entries.length > MAX_EXPERT_ENTRIES) {
        entries = entries.sort((a, b) => b.timestamp - a.timestamp).slice(0, MAX_EXPERT_ENTRIES);
    }
    entries.sort((a, b) => a.suffix - b.suffix || (toHex(a.peer) < toHex(b.peer) ? -1 : 1));
    return { entries };
}
/**
 * The kad-dht selector's choice among copies of one key: the copy with the most live entries,
 * then the newest announcement. (Readers merge all copies anyway; this only decides which copy
 * the DHT spreads as a correction.)
 */
export function bestExpertRecord(records, now) {
    let best = 0;
    let bestLive = -1;
    let bestNewest = -1;
    records.forEach((r, i) => {
        const live = r.entries.filter((e) => e.expiresAt > now);
        const newest = Math.max(-1, ...live.map((e) => e.timestamp));
        if (live.length > bestLive || (live.length === bestLive && newest > bestNewest)) {
            best = i;
            bestLive = live.length;
            bestNewest = newest;
        }
    });
    return best;
}
/**
 * kad-dht validator for our namespace: the key must be an expert key, the value a record. Entry
 * signatures are checked by readers, not here: a DHT peer would otherwise verify up to
 * MAX_EXPERT_ENTRIES signatures for every put anyone sends it.
 */
export async function validateExpertRecord(key, value) {
    if (!parseExpertKey(key))
        throw new ExpertUidError("EXPERT_BAD_KEY", "not a seedswarm expert key");
    decodeExpertRecord(value);
}
/** kad-dht selector for our namespace; an undecodable copy never wins. */
export function selectExpertRecord(_key, values) {
    const records = values.map((v) => {
        try {
            return decodeExpertRecord(v);
        }
        catch {
            return { entries: [] };
        }
    });
    return bestExpertRecord(records, Date.now());
}
//# sourceMappingURL=experts.js.map