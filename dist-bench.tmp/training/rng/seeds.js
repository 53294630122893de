/**
 * Seeds are derived, never sent: every replica recomputes them from public facts.
 * seed = SHA-256("seedswarm/seed/1", runId, iteration, author, authorTimestamp, index).
 */
import { createHash } from "node:crypto";
/** What a stream of a seed is for; part of the counter so purposes never share words. */
export var Purpose;
(function (Purpose) {
    Purpose[Purpose["Noise"] = 1] = "Noise";
    Purpose[Purpose["Batch"] = 2] = "Batch";
    Purpose[Purpose["Init"] = 3] = "Init";
    Purpose[Purpose["Vendor"] = 4] = "Vendor";
    /** Marketplace upstream sampling: which upstream products a vendor takes. */
    Purpose[Purpose["Upstream"] = 5] = "Upstream";
    /** Low-rank SPSA: the sign factors A and B of a weight matrix's direction. */
    Purpose[Purpose["LowRank"] = 6] = "LowRank";
})(Purpose || (Purpose = {}));
function u64(n) {
    if (!Number.isSafeInteger(n) || n < 0)
        throw new RangeError(`seed field must be a uint, got ${n}`);
    const b = Buffer.alloc(8);
    b.writeUInt32BE(Math.floor(n / 0x100000000), 0);
    b.writeUInt32BE(n >>> 0, 4);
    return b;
}
function str(s) {
    const body = Buffer.from(s, "utf8");
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length);
    return Buffer.concat([len, body]);
}
/** Hash arbitrary tagged fields to a Seed. Fields are length-prefixed so no two inputs collide. */
export function seedFrom(tag, fields) {
    const h = createHash("sha256").update(str(tag));
    for (const f of fields)
        h.update(typeof f === "string" ? str(f) : u64(f));
    const d = h.digest();
    return { k0: d.readUInt32LE(0), k1: d.readUInt32LE(4), k2: d.readUInt32LE(8) };
}
/**
 * The seeds of elements 0 .. count - 1 of one contribution, as `contributionSeed` gives them: the
 * hash of the common fields is computed once and copied per index (apply needs every byte's seed).
 */
export function contributionSeeds(runId, iteration, author, count) {
    const prefix = createHash("sha256").update(str("seedswarm/seed/1"));
    for (const f of [runId, iteration, author.id, author.joinedAt])
        prefix.update(typeof f === "string" ? str(f) : u64(f));
    return Array.from({ length: count }, (_, j) => {
        const d = prefix.copy().update(u64(j)).digest();
        return { k0: d.readUInt32LE(0), k1: d.readUInt32LE(4), k2: d.readUInt32LE(8) };
    });
}
/** The seed of one contribution element: (run, iteration, author, author timestamp, index). */
export function contributionSeed(runId, iteration, author, index) {
    return seedFrom("seedswarm/seed/1", [runId, iteration, author.id, author.joinedAt, index]);
}
/**
 * The Philox stream of a seed for a purpose and a sub-stream (tensor index). Each tensor gets its
 * own stream: reusing one stream for every tensor would give correlated noise across tensors.
 */
export function streamOf(seed, purpose, sub = 0) {
    if (sub < 0 || sub >= 1 << 24)
        throw new RangeError(`sub-stream out of range: ${sub}`);
    return { k0: seed.k0, k1: seed.k1, c2: ((purpose << 24) | sub) >>> 0, c3: seed.k2 };
}
/**
 * The seed of one Marketplace vendor: (run, iteration, author, author timestamp, spec, vendor).
 * Vendor 0 is the current weights and has no delta; its seed is never used.
 */
export function vendorSeed(runId, iteration, author, spec, vendor) {
    return seedFrom("seedswarm/vendor/1", [
        runId,
        iteration,
        author.id,
        author.joinedAt,
        spec,
        vendor,
    ]);
}
/**
 * The seed of an iteration's shared batch: (run, iteration) only, so every node measures its
 * vendors on the same examples and their losses compare across nodes (Marketplace).
 */
export function sharedBatchSeed(runId, iteration) {
    return seedFrom("seedswarm/shared-batch/1", [runId, iteration]);
}
/** The seed of an author's upstream sampling for an iteration (Marketplace). */
export function upstreamSeed(runId, iteration, author) {
    return seedFrom("seedswarm/upstream/1", [runId, iteration, author.id, author.joinedAt]);
}
//# sourceMappingURL=seeds.js.map