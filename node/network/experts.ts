/**
 * Learning@home expert records in the kad-dht: declare the uids this node serves, list the active
 * suffixes under a prefix, and beam-search the grid. The record format and merge rules are in
 * protocol/experts.ts; this is the I/O.
 *
 * kad-dht keeps one value per key on each DHT peer (last write wins there), so a declare reads
 * every copy it can find, merges its own entries into the union and writes that back; a reader
 * merges every copy the query returns. Entries expire unless re-announced, so a node that dies
 * drops out within one TTL, and an entry another writer's race lost comes back at the next
 * re-announce.
 *
 * Every entry is signed by the peer it names (protocol/experts.ts): we sign ours, and keep only
 * copies whose entries all verify (expert-copies.ts: deduplicated, failures cached, a budget per
 * read), from what we read and so from what we write back. What we write back keeps our own
 * entry and the holders we have known longest before the newest (HolderPreference). A verified entry is
 * still only a claim that a peer serves something; snapshot holders are believed only through
 * the verified chain (node/sync/snapshot-fetch.ts).
 */
import type { PeerId } from "@libp2p/interface";
import { type ExpertEntry, encodeExpertRecord } from "../../protocol/sync-codec.js";
import { Membership } from "../../protocol/membership.js";
import { expertKey, mergeExpertRecords, parseExpertUid, prefixSuffixes } from "../../protocol/experts.js";
import { toHex } from "../../protocol/bytes.js";
import { expertEntrySignedBytes } from "../../protocol/signing.js";
import { BoundedLru, peerIdBytes, peerIdOfBytes, type Logger } from "../ground/index.js";
import { expertCopies, type ExpertCopyVerifier } from "./expert-copies.js";
import type { SwarmNode } from "./libp2p.js";

export interface ExpertOptions {
  /** Re-announce period of the declared uids. */
  readonly announceEveryMs: number;
  /** Lifetime of an entry that is not re-announced: a few periods, so one lost put is harmless. */
  readonly ttlMs: number;
  /** Time limit of one DHT query. */
  readonly queryTimeoutMs: number;
}

export const defaultExpertOptions: ExpertOptions = {
  // Snapshots change every few seconds on a fast run; joiners want a fresh one.
  announceEveryMs: 5_000,
  // Three missed re-announces: the node is gone.
  ttlMs: 15_000,
  queryTimeoutMs: 5_000,
};

/** A peer serving an expert, as its newest entry says. */
export interface ExpertHolder {
  readonly peer: PeerId;
  readonly timestamp: number;
  readonly expiresAt: number;
}

/** A uid (or uid prefix) found by a search, with the peers that serve it. */
export interface FoundExpert {
  readonly uid: string;
  readonly coords: readonly number[];
  readonly holders: readonly ExpertHolder[];
}

/** Signs with this node's identity key (the key of node.peerId). */
export type ExpertSigner = (message: Uint8Array) => Uint8Array;

/** One entry to write: `suffix` under `prefix`, live for ttlMs (1: a withdrawal). */
interface Claim {
  readonly prefix: string;
  readonly suffix: number;
  readonly ttlMs: number;
}

/** The claims that announce `uids` for ttlMs: one per prefix key each touches. */
function claimsOf(uids: readonly string[], ttlMs: number): Claim[] {
  return uids.flatMap((uid) => prefixSuffixes(uid).map((c) => ({ ...c, ttlMs })));
}

/**
 * The withdrawals that take `dropped` uids out of every beam search while `kept` stay found: each
 * at the shallowest (prefix, suffix) that no kept uid shares. A search reaches a key only
 * through its parent's suffix, so the deeper keys of a withdrawn branch need no write of their
 * own: their entries expire with their TTL (read directly, such a key names us until then). Every
 * re-announcement of snapshot chunks thus writes 2 keys (`snap`: new iteration and the withdrawn
 * one; `snap.<new>`), not 4.
 */
export function withdrawals(dropped: readonly string[], kept: readonly string[]): Claim[] {
  const slot = (c: { prefix: string; suffix: number }) => `${c.prefix}\0${c.suffix}`;
  const served = new Set(kept.flatMap((uid) => prefixSuffixes(uid).map(slot)));
  const out = new Map<string, Claim>();
  for (const uid of dropped) {
    const first = prefixSuffixes(uid).find((c) => !served.has(slot(c)));
    if (first) out.set(slot(first), { ...first, ttlMs: 1 });
  }
  return [...out.values()];
}

/** (prefix, suffix, holder) first-seen times remembered: a few full records' holders (~100 bytes each). */
const FIRST_SEEN_ENTRIES = 16_384;

export class ExpertDirectory {
  private readonly log: Logger;
  private declared: string[] = [];
  private timer?: NodeJS.Timeout;
  private announcing: Promise<void> = Promise.resolve();
  /**
   * When this node first saw each (prefix, suffix, holder) live: a holder known before a crowd of
   * fresh identities arrived keeps its slot in what we write back (HolderPreference).
   */
  private readonly firstSeen = new BoundedLru<string, number>(FIRST_SEEN_ENTRIES);

  constructor(
    private readonly node: SwarmNode,
    private readonly runId: string,
    private readonly sign: ExpertSigner,
    log: Logger,
    private readonly opts: ExpertOptions = defaultExpertOptions,
    /** A member run reads only entries that name its members (protocol/membership.ts). */
    private readonly membership: Membership = Membership.OPEN,
    /** Verifies the copies read (the process's shared one: the DHT selector fills the same caches). */
    private readonly copies: ExpertCopyVerifier = expertCopies,
  ) {
    this.log = log.child({ module: "experts" });
  }

  /**
   * Every live entry under `prefix` signed by the peer it names, merged over all copies the DHT
   * returns (an entry that fails its signature is dropped, never written back); in a member run,
   * entries naming a non-member (or no peer id at all) are dropped, so they are neither believed
   * nor written back by our next announcement.
   */
  async entries(prefix: string): Promise<ExpertEntry[]> {
    const key = expertKey(this.runId, prefix);
    const copies: Uint8Array[] = [];
    try {
      for await (const e of this.node.services.dht.get(key, {
        signal: AbortSignal.timeout(this.opts.queryTimeoutMs),
      })) {
        if (e.name === "VALUE") copies.push(e.value);
        else if (e.name === "PEER_RESPONSE" && e.record) copies.push(e.record.value);
      }
    } catch (err) {
      // Not found, or the query ran out of time: what we collected so far still counts.
      this.log.debug({ prefix, err: (err as Error).message }, "expert query ended");
    }
    const now = Date.now();
    const records = this.copies
      .check(key, copies, now)
      .flatMap((entries) => (entries ? [{ entries }] : []));
    // Read uncapped: a reader sees every verified holder; the caps bound what is written back.
    const merged = mergeExpertRecords(records, now, { holdersPerSuffix: Infinity, maxEntries: Infinity }).entries;
    const kept = this.membership.open ? [...merged] : merged.filter((e) => this.namesMember(e.peer));
    for (const e of kept) {
      const k = this.seenKey(prefix, e);
      if (this.firstSeen.get(k) === undefined) this.firstSeen.set(k, now);
    }
    return kept;
  }

  private seenKey(prefix: string, e: ExpertEntry): string {
    return `${prefix}/${e.suffix}/${toHex(e.peer)}`;
  }

  private namesMember(peer: Uint8Array): boolean {
    try {
      return this.membership.admits(peerIdOfBytes(peer).toString());
    } catch {
      return false;
    }
  }

  /** The active suffixes under `prefix`, each with its holders, newest announcement first. */
  async suffixes(prefix: string): Promise<Map<number, ExpertHolder[]>> {
    const out = new Map<number, ExpertHolder[]>();
    for (const e of await this.entries(prefix)) {
      const list = out.get(e.suffix) ?? [];
      list.push({ peer: peerIdOfBytes(e.peer), timestamp: e.timestamp, expiresAt: e.expiresAt });
      out.set(e.suffix, list);
    }
    for (const list of out.values()) list.sort((a, b) => b.timestamp - a.timestamp);
    return out;
  }

  /**
   * Announces that this node serves `uids` until `ttl` from now: per prefix key, merge our
   * entries into the union of the copies found and put it back.
   */
  declare(uids: readonly string[], ttlMs = this.opts.ttlMs): Promise<void> {
    return this.write(claimsOf(uids, ttlMs));
  }

  /**
   * One read-merge-put per prefix key for all `claims` (a claim with ttl 1 is a withdrawal). The
   * same (prefix, suffix) is signed and written once, however many uids share it.
   */
  private async write(claims: readonly Claim[]): Promise<void> {
    const now = Date.now();
    const self = peerIdBytes(this.node.peerId);
    const byPrefix = new Map<string, Map<number, ExpertEntry>>();
    for (const { prefix, suffix, ttlMs } of claims) {
      const mine = byPrefix.get(prefix) ?? new Map<number, ExpertEntry>();
      byPrefix.set(prefix, mine);
      if (mine.has(suffix)) continue;
      const claim = { suffix, timestamp: now, expiresAt: now + ttlMs };
      const signature = this.sign(expertEntrySignedBytes(expertKey(this.runId, prefix), claim));
      mine.set(suffix, { ...claim, peer: self, signature });
    }
    await Promise.all(
      [...byPrefix].map(async ([prefix, mine]) => {
        const selfHex = toHex(self);
        const merged = mergeExpertRecords([{ entries: await this.entries(prefix) }, { entries: [...mine.values()] }], now, {
          prefer: {
            mine: (e) => toHex(e.peer) === selfHex,
            firstSeen: (e) => this.firstSeen.get(this.seenKey(prefix, e)),
          },
        });
        const key = expertKey(this.runId, prefix);
        try {
          for await (const _ of this.node.services.dht.put(key, encodeExpertRecord(merged), {
            signal: AbortSignal.timeout(this.opts.queryTimeoutMs),
          })) {
            // Drain the query's events: the put runs as they are consumed.
          }
        } catch (err) {
          this.log.debug({ prefix, err: (err as Error).message }, "expert put ended");
        }
      }),
    );
  }

  /**
   * Serves `uids` from now on, replacing what was declared before: announced at once and then
   * every announceEveryMs. Uids no longer served are withdrawn in the same writes
   * (`withdrawals`: at the shallowest key where they leave what is still served).
   */
  serve(uids: readonly string[]): Promise<void> {
    const dropped = this.declared.filter((u) => !uids.includes(u));
    this.declared = [...uids];
    // The re-announce timer restarts: it fires only after a full period without a serve call.
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => void this.reannounce(), this.opts.announceEveryMs);
    this.timer.unref();
    return this.reannounce(dropped);
  }

  private reannounce(dropped: readonly string[] = []): Promise<void> {
    // One announcement at a time: a slow DHT must not pile queries up.
    this.announcing = this.announcing
      .then(async () => {
        const all = [...withdrawals(dropped, this.declared), ...claimsOf(this.declared, this.opts.ttlMs)];
        if (all.length > 0) await this.write(all);
      })
      .catch((err: Error) => this.log.debug({ err: err.message }, "expert announce failed"));
    return this.announcing;
  }

  /** Stops re-announcing and withdraws what this node declared (best effort). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const last = this.declared;
    this.declared = [];
    await this.announcing;
    if (last.length > 0) await this.write(withdrawals(last, [])).catch(() => {});
  }

  /**
   * Learning@home beam search: from the grid name, extend each prefix in the beam by its active
   * suffixes, score the extensions, keep the best `widths[d]` at depth d. Returns the survivors
   * of the last depth (full uids when widths has one entry per grid dimension), best first.
   *
   * @param score higher is better; gets the coordinates so far.
   */
  async beamSearch(
    name: string,
    widths: readonly number[],
    score: (coords: readonly number[]) => number,
  ): Promise<FoundExpert[]> {
    parseExpertUid(name);
    let beam: FoundExpert[] = [{ uid: name, coords: [], holders: [] }];
    for (const width of widths) {
      const next = await Promise.all(
        beam.map(async (b) =>
          [...(await this.suffixes(b.uid))].map(([suffix, holders]) => ({
            uid: `${b.uid}.${suffix}`,
            coords: [...b.coords, suffix],
            holders,
          })),
        ),
      );
      beam = next
        .flat()
        .map((f) => ({ f, s: score(f.coords) }))
        .sort((a, b) => b.s - a.s || (a.f.uid < b.f.uid ? -1 : 1))
        .slice(0, width)
        .map((x) => x.f);
      if (beam.length === 0) break;
    }
    return beam;
  }
}
