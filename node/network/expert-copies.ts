/**
 * Verifying the copies of an expert record that a DHT query returns, at a bounded cost however
 * many copies hostile DHT peers serve (security review, finding 6b).
 *
 * - Copies are deduplicated by their bytes before anything is verified.
 * - A copy's entries whose signatures fail are dropped; a copy with more than `badPerCopy` of them
 *   counts for nothing (honest writers write back only entries that verified, so such a copy is
 *   a liar's), and its digest is remembered: served again, it costs one hash. A few are
 *   tolerated so that one forged entry appended to an honest copy does not hide its honest ones.
 * - Entry verdicts, failures included, are cached by SHA-256 of (signer, signature, signed bytes):
 *   a signature's validity over exact bytes never changes, so a cached failure is as sound as a
 *   cached success, and a bogus entry copied into another copy fails that copy at a lookup.
 * - Each read verifies at most `freshPerRead` signatures not cached yet, copies with the fewest
 *   signatures not seen verify before first (signed bytes and digests are made lazily, so a
 *   poisoned copy costs its decode and a few entries): copies that repeat what we already verified (honest ones, re-read every
 *   few seconds) are checked before copies full of fresh signatures, and a copy that runs out of
 *   budget is skipped for this read (not condemned: it may be honest; its verdicts so far stay
 *   cached, so a later read goes on where this one stopped).
 */
import { createHash } from "node:crypto";
import type { ExpertCopyCheck } from "../../protocol/experts.js";
import { EXPERT_TIME_BOUNDS } from "../../protocol/experts.js";
import { MAX_EXPERT_ENTRIES } from "../../protocol/limits.js";
import { expertEntrySignedBytes } from "../../protocol/signing.js";
import { decodeExpertRecord, type ExpertEntry } from "../../protocol/sync-codec.js";
import { SignatureVerifier } from "../chain/signatures.js";
import { BoundedLru } from "../ground/index.js";

export interface ExpertCopyOptions {
  /** Entry verdicts remembered (both outcomes, ~100 bytes each). */
  readonly entries: number;
  /** Digests of condemned copies remembered. */
  readonly failedCopies: number;
  /** Signatures not cached yet verified per read, at most (~170 µs each on a loaded core). */
  readonly freshPerRead: number;
  /** Failed entries tolerated in one copy before the whole copy is refused. */
  readonly badPerCopy: number;
}

export const defaultExpertCopyOptions: ExpertCopyOptions = {
  // Four full records' worth: the live keys of a run (`snap`, `snap.<it>` for two iterations).
  entries: 4 * MAX_EXPERT_ENTRIES,
  failedCopies: 1024,
  // One full record of fresh signatures per read (about 0.2 s at worst): every honest re-announce
  // of a large run fits, a poisoned read costs no more.
  freshPerRead: MAX_EXPERT_ENTRIES,
  // A poisoned copy costs at most 4 failed verifications, once.
  badPerCopy: 4,
};

const digest = (...parts: Uint8Array[]): string => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest("binary");
};

/** Length-prefixed, so (key, copy) splits one way only. */
const u32 = (n: number) => Uint8Array.of(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);

interface Pending {
  readonly at: number[];
  readonly copyDigest: string;
  /** Entries within the time bounds. */
  readonly entries: readonly ExpertEntry[];
  /** Entries whose signature we have not seen verify. */
  readonly misses: number;
}

/** A signature as a Map key (cheap: no hash), for ordering only, never for a verdict. */
const sigKey = (e: ExpertEntry) => Buffer.from(e.signature.buffer, e.signature.byteOffset, e.signature.byteLength).toString("latin1");

export class ExpertCopyVerifier {
  private readonly verdicts: BoundedLru<string, boolean>;
  private readonly failed: BoundedLru<string, true>;
  /** Signatures that verified (over some bytes): copies repeating them are checked first. */
  private readonly seen: BoundedLru<string, true>;
  /** The signature check itself (key import cached). */
  private readonly verifier = new SignatureVerifier({ verified: 1, keys: 1024 });
  /** Signatures verified, copies refused (bad signature or undecodable) and copies skipped over budget. */
  readonly counts = { verified: 0, refused: 0, skipped: 0 };

  constructor(private readonly opts: ExpertCopyOptions = defaultExpertCopyOptions) {
    this.verdicts = new BoundedLru(opts.entries);
    this.failed = new BoundedLru(opts.failedCopies);
    this.seen = new BoundedLru(opts.entries);
  }

  readonly check: ExpertCopyCheck = (key, copies, now) => {
    const out: (readonly ExpertEntry[] | null)[] = copies.map(() => null);
    const unique = new Map<string, number[]>();
    copies.forEach((c, i) => {
      const d = digest(u32(key.byteLength), key, c);
      const at = unique.get(d);
      if (at) at.push(i);
      else unique.set(d, [i]);
    });
    const pending: Pending[] = [];
    for (const [copyDigest, at] of unique) {
      if (this.failed.get(copyDigest)) continue;
      let entries: ExpertEntry[];
      try {
        entries = [...decodeExpertRecord(copies[at[0]]).entries];
      } catch {
        this.refuse(copyDigest);
        continue;
      }
      // Time bounds first (no signature needed): far-future or over-long entries do not count.
      const timely = entries.filter(
        (e) => e.timestamp <= now + EXPERT_TIME_BOUNDS.skewMs && e.expiresAt - e.timestamp <= EXPERT_TIME_BOUNDS.maxTtlMs,
      );
      // Only an order: how many signatures we have not seen verify (a verdict needs the digest).
      let misses = 0;
      for (const e of timely) if (this.seen.get(sigKey(e)) === undefined) misses++;
      pending.push({ at, copyDigest, entries: timely, misses });
    }
    let budget = this.opts.freshPerRead;
    for (const p of pending.sort((a, b) => a.misses - b.misses)) {
      let bad = 0;
      let over = false;
      const entries: ExpertEntry[] = [];
      for (const e of p.entries) {
        const bytes = expertEntrySignedBytes(key, e);
        const d = digest(e.peer, e.signature, bytes);
        let v = this.verdicts.get(d);
        if (v === undefined) {
          if (budget === 0) {
            over = true;
            break;
          }
          budget--;
          this.counts.verified++;
          v = this.verifier.check(e.peer, bytes, e.signature);
          this.verdicts.set(d, v);
          if (v) this.seen.set(sigKey(e), true);
        }
        if (v) entries.push(e);
        else if (++bad > this.opts.badPerCopy) break;
      }
      if (over) {
        // What was verified stays cached: the next read goes on from there.
        this.counts.skipped++;
        continue;
      }
      if (bad > this.opts.badPerCopy) {
        this.refuse(p.copyDigest);
        continue;
      }
      for (const i of p.at) out[i] = entries;
    }
    return out;
  };

  private refuse(copyDigest: string): void {
    this.counts.refused++;
    this.failed.set(copyDigest, true);
  }
}

/** The process's expert copy verifier: the DHT selector and the readers share its caches. */
export const expertCopies = new ExpertCopyVerifier();
