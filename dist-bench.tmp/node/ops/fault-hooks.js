/**
 * Test hooks that make a real node misbehave on purpose, set by the environment variable
 * SEEDSWARM_FAULT (the e2e tests use them; unset, they do nothing):
 * - `corrupt@N`: flip one weight bit after iteration N (divergence detection and repair);
 * - `partition@N-M`: drop every gossip message received while the head is in [N, M) (forks);
 * - `cut@N-M`: cut this node off from when its head first reaches N until it first reaches M
 *   (once: a rewind does not cut again): every connection closed, none dialled or accepted,
 *   gossip dropped (a network partition, as deep as it runs);
 * - `byzantine:<mode>`: send a dishonest SPSA payload every round (issue 15's modes): `max-flip`
 *   (+/-127 against the sign of the honest byte), `flip` (the honest bytes negated), `other-batch`
 *   (an honest measurement of another batch and direction), `random` (uniform bytes), `loss-liar`
 *   (a Marketplace V1 payload claiming loss 0: the lowest loss wins V1);
 * - `audit-liar`: every audit this node runs reports fraud (a false accuser).
 */
import { randomInt } from "node:crypto";
/** The payload transforms of `byzantine:<mode>`, on signed bytes. */
export const BYZANTINE_MODES = {
    "max-flip": (h) => h.map((b) => (b > 0 ? -127 : 127)),
    flip: (h) => h.map((b) => -b),
    "other-batch": (_h, other) => other(),
    random: (h) => h.map(() => randomInt(-127, 128)),
    // Float32 0 in the first four bytes, V1's claimed loss; the claimed path is kept.
    "loss-liar": (h) => h.map((b, i) => (i < 4 ? 0 : b)),
};
function tamperOf(spec) {
    const mode = /^byzantine:(.+)$/.exec(spec)?.[1];
    if (mode === undefined)
        return undefined;
    if (!(mode in BYZANTINE_MODES))
        throw new RangeError(`SEEDSWARM_FAULT: no byzantine mode "${mode}" (${Object.keys(BYZANTINE_MODES).join(", ")})`);
    const f = BYZANTINE_MODES[mode];
    const signed = (b) => new Int8Array(b.buffer, b.byteOffset, b.byteLength);
    return (honest, other) => {
        const out = f(signed(honest), () => signed(other()));
        return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    };
}
export function faultHooks(spec = process.env.SEEDSWARM_FAULT ?? "") {
    const corrupt = /^corrupt@(\d+)$/.exec(spec);
    const partition = /^(?:partition|cut)@(\d+)-(\d+)$/.exec(spec);
    const cut = spec.startsWith("cut@") ? { from: Number(partition?.[1]), to: Number(partition?.[2]), state: "before" } : null;
    let corrupted = false;
    return {
        tamper: tamperOf(spec),
        auditLiar: spec === "audit-liar",
        corruptNow(iteration) {
            if (!corrupt || corrupted || Number(corrupt[1]) !== iteration)
                return false;
            corrupted = true;
            return true;
        },
        partitioned(head) {
            if (cut)
                return this.isolated(head);
            return partition !== null && head >= Number(partition[1]) && head < Number(partition[2]);
        },
        isolated(head) {
            if (!cut)
                return false;
            if (cut.state === "before" && head >= cut.from)
                cut.state = "cut";
            if (cut.state === "cut" && head >= cut.to)
                cut.state = "healed";
            return cut.state === "cut";
        },
    };
}
/** Flips bit 20 of the 8th weight, in place. */
export function flipOneBit(weights) {
    new Uint32Array(weights.buffer, weights.byteOffset, weights.length)[7] ^= 1 << 20;
}
//# sourceMappingURL=fault-hooks.js.map