import { decodeExpertRecord, encodeExpertRecord } from "../../protocol/sync-codec.js";
import { Membership } from "../../protocol/membership.js";
import { expertKey, mergeExpertRecords, parseExpertUid, prefixSuffixes, verifiedExpertEntries, } from "../../protocol/experts.js";
import { expertEntrySignedBytes } from "../../protocol/signing.js";
import { SignatureVerifier } from "../chain/signatures.js";
import { peerIdBytes, peerIdOfBytes } from "./peer-bytes.js";
export const defaultExpertOptions = {
    // Snapshots change every few seconds on a fast run; joiners want a fresh one.
    announceEveryMs: 5_000,
    // Three missed re-announces: the node is gone.
    ttlMs: 15_000,
    queryTimeoutMs: 5_000,
};
/**
 * Signature checks of expert entries, with their own bounded cache: records re-read every query
 * cost one verification per new entry, and cannot evict the chain's cached signatures.
 */
const expertVerifier = new SignatureVerifier({ verified: 4096, keys: 1024 });
export class ExpertDirectory {
    node;
    runId;
    sign;
    opts;
    membership;
    log;
    declared = [];
    timer;
    announcing = Promise.resolve();
    constructor(node, runId, sign, log, opts = defaultExpertOptions, 
    /** A member run reads only entries that name its members (protocol/membership.ts). */
    membership = Membership.OPEN) {
        this.node = node;
        this.runId = runId;
        this.sign = sign;
        this.opts = opts;
        this.membership = membership;
        this.log = log.child({ module: "experts" });
    }
    /**
     * Every live entry under `prefix` signed by the peer it names, merged over all copies the DHT
     * returns (an entry that fails its signature is dropped, never written back); in a member run,
     * entries naming a non-member (or no peer id at all) are dropped, so they are neither believed
     * nor written back by our next announcement.
     */
    async entries(prefix) {
        const key = expertKey(this.runId, prefix);
        const copies = [];
        try {
            for await (const e of this.node.services.dht.get(key, {
                signal: AbortSignal.timeout(this.opts.queryTimeoutMs),
            })) {
                if (e.name === "VALUE")
                    copies.push(e.value);
                else if (e.name === "PEER_RESPONSE" && e.record)
                    copies.push(e.record.value);
            }
        }
        catch (err) {
            // Not found, or the query ran out of time: what we collected so far still counts.
            this.log.debug({ prefix, err: err.message }, "expert query ended");
        }
        const now = Date.now();
        const records = copies.flatMap((c) => {
            try {
                return [{ entries: verifiedExpertEntries(key, decodeExpertRecord(c).entries, now, expertVerifier.check) }];
            }
            catch {
                return [];
            }
        });
        const merged = mergeExpertRecords(records, now).entries;
        return this.membership.open ? [...merged] : merged.filter((e) => this.namesMember(e.peer));
    }
    namesMember(peer) {
        try {
            return this.membership.admits(peerIdOfBytes(peer).toString());
        }
        catch {
            return false;
        }
    }
    /** The active suffixes under `prefix`, each with its holders, newest announcement first. */
    async suffixes(prefix) {
        const out = new Map();
        for (const e of await this.entries(prefix)) {
            const list = out.get(e.suffix) ?? [];
            list.push({ peer: peerIdOfBytes(e.peer), timestamp: e.timestamp, expiresAt: e.expiresAt });
            out.set(e.suffix, list);
        }
        for (const list of out.values())
            list.sort((a, b) => b.timestamp - a.timestamp);
        return out;
    }
    /**
     * Announces that this node serves `uids` until `ttl` from now: per prefix key, merge our
     * entries into the union of the copies found and put it back.
     */
    async declare(uids, ttlMs = this.opts.ttlMs) {
        const now = Date.now();
        const self = peerIdBytes(this.node.peerId);
        const byPrefix = new Map();
        for (const uid of uids) {
            for (const { prefix, suffix } of prefixSuffixes(uid)) {
                const list = byPrefix.get(prefix) ?? [];
                const claim = { suffix, timestamp: now, expiresAt: now + ttlMs };
                const signature = this.sign(expertEntrySignedBytes(expertKey(this.runId, prefix), claim));
                list.push({ ...claim, peer: self, signature });
                byPrefix.set(prefix, list);
            }
        }
        await Promise.all([...byPrefix].map(async ([prefix, mine]) => {
            const merged = mergeExpertRecords([{ entries: await this.entries(prefix) }, { entries: mine }], now);
            const key = expertKey(this.runId, prefix);
            try {
                for await (const _ of this.node.services.dht.put(key, encodeExpertRecord(merged), {
                    signal: AbortSignal.timeout(this.opts.queryTimeoutMs),
                })) {
                    // Drain the query's events: the put runs as they are consumed.
                }
            }
            catch (err) {
                this.log.debug({ prefix, err: err.message }, "expert put ended");
            }
        }));
    }
    /**
     * Serves `uids` from now on, replacing what was declared before: announced at once and then
     * every announceEveryMs. Uids no longer served are withdrawn (announced as expiring now).
     */
    serve(uids) {
        const dropped = this.declared.filter((u) => !uids.includes(u));
        this.declared = [...uids];
        // The re-announce timer restarts: it fires only after a full period without a serve call.
        if (this.timer)
            clearInterval(this.timer);
        this.timer = setInterval(() => void this.reannounce(), this.opts.announceEveryMs);
        this.timer.unref();
        return this.reannounce(dropped);
    }
    reannounce(dropped = []) {
        // One announcement at a time: a slow DHT must not pile queries up.
        this.announcing = this.announcing
            .then(async () => {
            if (dropped.length > 0)
                await this.declare(dropped, 1);
            if (this.declared.length > 0)
                await this.declare(this.declared);
        })
            .catch((err) => this.log.debug({ err: err.message }, "expert announce failed"));
        return this.announcing;
    }
    /** Stops re-announcing and withdraws what this node declared (best effort). */
    async stop() {
        if (this.timer)
            clearInterval(this.timer);
        this.timer = undefined;
        const last = this.declared;
        this.declared = [];
        await this.announcing;
        if (last.length > 0)
            await this.declare(last, 1).catch(() => { });
    }
    /**
     * Learning@home beam search: from the grid name, extend each prefix in the beam by its active
     * suffixes, score the extensions, keep the best `widths[d]` at depth d. Returns the survivors
     * of the last depth (full uids when widths has one entry per grid dimension), best first.
     *
     * @param score higher is better; gets the coordinates so far.
     */
    async beamSearch(name, widths, score) {
        parseExpertUid(name);
        let beam = [{ uid: name, coords: [], holders: [] }];
        for (const width of widths) {
            const next = await Promise.all(beam.map(async (b) => [...(await this.suffixes(b.uid))].map(([suffix, holders]) => ({
                uid: `${b.uid}.${suffix}`,
                coords: [...b.coords, suffix],
                holders,
            }))));
            beam = next
                .flat()
                .map((f) => ({ f, s: score(f.coords) }))
                .sort((a, b) => b.s - a.s || (a.f.uid < b.f.uid ? -1 : 1))
                .slice(0, width)
                .map((x) => x.f);
            if (beam.length === 0)
                break;
        }
        return beam;
    }
}
//# sourceMappingURL=experts.js.map