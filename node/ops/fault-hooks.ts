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
 * - `audit-liar`: every audit this node runs reports fraud (a false accuser);
 * - `censor`: whenever this node may propose, it commits at once with its own entry only.
 */
import { randomInt } from "node:crypto";
import type { Weights } from "../../training/params.js";

export interface FaultHooks {
  /** True once, after iteration `corruptAt`: the caller flips a bit. */
  corruptNow(iteration: number): boolean;
  /** True while gossip must be dropped. */
  partitioned(head: number): boolean;
  /** True while the node must have no connection at all (`cut@`). */
  isolated(head: number): boolean;
  /** What a `byzantine:` node sends instead of its honest payload (undefined: honest). */
  readonly tamper?: (honest: Uint8Array, other: () => Uint8Array) => Uint8Array;
  /** True for `audit-liar`. */
  readonly auditLiar: boolean;
  /** True for `censor`. */
  readonly censor: boolean;
}

/** The payload transforms of `byzantine:<mode>`, on signed bytes. */
export const BYZANTINE_MODES = {
  "max-flip": (h: Int8Array) => h.map((b) => (b > 0 ? -127 : 127)),
  flip: (h: Int8Array) => h.map((b) => -b),
  "other-batch": (_h: Int8Array, other: () => Int8Array) => other(),
  random: (h: Int8Array) => h.map(() => randomInt(-127, 128)),
  // Float32 0 in the first four bytes, V1's claimed loss; the claimed path is kept.
  "loss-liar": (h: Int8Array) => h.map((b, i) => (i < 4 ? 0 : b)),
} as const satisfies Record<string, (h: Int8Array, other: () => Int8Array) => Int8Array>;

function tamperOf(spec: string): FaultHooks["tamper"] {
  const mode = /^byzantine:(.+)$/.exec(spec)?.[1];
  if (mode === undefined) return undefined;
  if (!(mode in BYZANTINE_MODES)) throw new RangeError(`SEEDSWARM_FAULT: no byzantine mode "${mode}" (${Object.keys(BYZANTINE_MODES).join(", ")})`);
  const f = BYZANTINE_MODES[mode as keyof typeof BYZANTINE_MODES];
  const signed = (b: Uint8Array) => new Int8Array(b.buffer, b.byteOffset, b.byteLength);
  return (honest, other) => {
    const out = f(signed(honest), () => signed(other()));
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  };
}

export function faultHooks(spec = process.env.SEEDSWARM_FAULT ?? ""): FaultHooks {
  const corrupt = /^corrupt@(\d+)$/.exec(spec);
  const partition = /^(?:partition|cut)@(\d+)-(\d+)$/.exec(spec);
  const cut = spec.startsWith("cut@") ? { from: Number(partition?.[1]), to: Number(partition?.[2]), state: "before" } : null;
  let corrupted = false;
  return {
    tamper: tamperOf(spec),
    auditLiar: spec === "audit-liar",
    censor: spec === "censor",
    corruptNow(iteration) {
      if (!corrupt || corrupted || Number(corrupt[1]) !== iteration) return false;
      corrupted = true;
      return true;
    },
    partitioned(head) {
      if (cut) return this.isolated(head);
      return partition !== null && head >= Number(partition[1]) && head < Number(partition[2]);
    },
    isolated(head) {
      if (!cut) return false;
      if (cut.state === "before" && head >= cut.from) cut.state = "cut";
      if (cut.state === "cut" && head >= cut.to) cut.state = "healed";
      return cut.state === "cut";
    },
  };
}

/** Flips bit 20 of the 8th weight, in place. */
export function flipOneBit(weights: Weights): void {
  new Uint32Array(weights.buffer, weights.byteOffset, weights.length)[7] ^= 1 << 20;
}
