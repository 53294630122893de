/**
 * Test hooks that make a real node misbehave on purpose, set by the environment variable
 * SEEDSWARM_FAULT (the e2e tests use them; unset, they do nothing):
 * - `corrupt@N`: flip one weight bit after iteration N (divergence detection and repair);
 * - `partition@N-M`: drop every gossip message received while the head is in [N, M) (forks).
 */
import type { Weights } from "../../training/params.js";

export interface FaultHooks {
  /** True once, after iteration `corruptAt`: the caller flips a bit. */
  corruptNow(iteration: number): boolean;
  /** True while gossip must be dropped. */
  partitioned(head: number): boolean;
}

export function faultHooks(spec = process.env.SEEDSWARM_FAULT ?? ""): FaultHooks {
  const corrupt = /^corrupt@(\d+)$/.exec(spec);
  const partition = /^partition@(\d+)-(\d+)$/.exec(spec);
  let corrupted = false;
  return {
    corruptNow(iteration) {
      if (!corrupt || corrupted || Number(corrupt[1]) !== iteration) return false;
      corrupted = true;
      return true;
    },
    partitioned(head) {
      return partition !== null && head >= Number(partition[1]) && head < Number(partition[2]);
    },
  };
}

/** Flips bit 20 of the 8th weight, in place. */
export function flipOneBit(weights: Weights): void {
  new Uint32Array(weights.buffer, weights.byteOffset, weights.length)[7] ^= 1 << 20;
}
