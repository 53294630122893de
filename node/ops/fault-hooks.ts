/**
 * Test hooks that make a real node misbehave on purpose, set by the environment variable
 * SEEDSWARM_FAULT (the e2e tests use them; unset, they do nothing):
 * - `corrupt@N`: flip one weight bit after iteration N (divergence detection and repair);
 * - `partition@N-M`: drop every gossip message received while the head is in [N, M) (forks);
 * - `cut@N-M`: cut this node off from when its head first reaches N until it first reaches M
 *   (once: a rewind does not cut again): every connection closed, none dialled or accepted,
 *   gossip dropped (a network partition, as deep as it runs).
 */
import type { Weights } from "../../training/params.js";

export interface FaultHooks {
  /** True once, after iteration `corruptAt`: the caller flips a bit. */
  corruptNow(iteration: number): boolean;
  /** True while gossip must be dropped. */
  partitioned(head: number): boolean;
  /** True while the node must have no connection at all (`cut@`). */
  isolated(head: number): boolean;
}

export function faultHooks(spec = process.env.SEEDSWARM_FAULT ?? ""): FaultHooks {
  const corrupt = /^corrupt@(\d+)$/.exec(spec);
  const partition = /^(?:partition|cut)@(\d+)-(\d+)$/.exec(spec);
  const cut = spec.startsWith("cut@") ? { from: Number(partition?.[1]), to: Number(partition?.[2]), state: "before" } : null;
  let corrupted = false;
  return {
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
