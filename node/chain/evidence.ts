/**
 * Equivocation evidence: two messages one signer signed for the same slot that no honest node
 * signs twice. For an author, two valid contributions for one (iteration, parentHash) with
 * different joinedAt or payload; for a proposer, two valid commits for one (iteration, prevHash).
 * Either pair proves the fault to anyone holding the signer's public key, so it is kept (bounded)
 * and the signer, never the relayer, is charged. An honest author that re-contributes after a
 * one-step fork switch signs a different parentHash, which is no equivocation.
 */
import { toHex } from "../../protocol/bytes.js";
import type { Commit } from "./commit.js";
import { BoundedMap } from "../ground/index.js";

/** One signed message of a pair: what the signer signed and its signature. */
export interface SignedPart {
  /** A contribution: its joinedAt and payload; a commit: its encoded bytes (signature inside). */
  readonly joinedAt?: number;
  readonly payload?: Uint8Array;
  readonly encoded?: Uint8Array;
  readonly signature?: Uint8Array;
}

export interface Equivocation {
  readonly kind: "contribution" | "commit";
  readonly signer: string;
  readonly iteration: number;
  /** The parent (contribution) or prevHash (commit) both were signed over. */
  readonly parentHash: Uint8Array;
  readonly first: SignedPart;
  readonly second: SignedPart;
}

/** The evidence that one proposer signed both commits `a` and `b` for one (iteration, prevHash). */
export function commitEquivocation(a: { readonly commit: Commit; readonly encoded: Uint8Array }, b: { readonly encoded: Uint8Array }): Equivocation {
  return {
    kind: "commit",
    signer: a.commit.proposer,
    iteration: a.commit.iteration,
    parentHash: a.commit.prevHash,
    first: { encoded: a.encoded },
    second: { encoded: b.encoded },
  };
}

/** Pairs kept: enough to show a few faults per signer; an equivocator cannot grow it past this. */
export const EVIDENCE_KEEP = 256;

/** The evidence held, oldest dropped first; one pair per (kind, signer, iteration, parent). */
export class EvidenceStore {
  private readonly byKey: BoundedMap<string, Equivocation>;

  constructor(readonly max = EVIDENCE_KEEP) {
    this.byKey = new BoundedMap(max);
  }

  /** Keeps the pair; false when a pair for the same slot is already held. */
  add(e: Equivocation): boolean {
    const key = `${e.kind}/${e.signer}/${e.iteration}/${toHex(e.parentHash)}`;
    if (this.byKey.has(key)) return false;
    this.byKey.set(key, e);
    return true;
  }

  /** Every pair held, oldest first. */
  all(): readonly Equivocation[] {
    return [...this.byKey.values()];
  }

  /** Pairs held against `signer`. */
  against(signer: string): readonly Equivocation[] {
    return this.all().filter((e) => e.signer === signer);
  }
}
