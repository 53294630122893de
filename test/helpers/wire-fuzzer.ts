/**
 * A wire fuzzer for hostile-peer tests and the `fuzz` benchmark: hostile messages for every gossip
 * topic kind (protocol/topics.ts) and hostile request and reply frames for every request/response
 * protocol (node/sync/protocols.ts). Each case is built from a valid message (learned from what
 * honest nodes publish, or made and signed by the attacker's key) and then broken one way: random
 * bytes, truncation, bit flips, huge or oversized length prefixes, far-future and far-past
 * iterations, another run's id, out-of-range join times (0, 2^53-1), replays, a wrong parent, a bad
 * payload or signature, a rank the signer does not hold. None of them may change an honest node's
 * state: a case that would be a fully valid message (one an honest node could include) is never
 * made.
 *
 * Deterministic for a seed: `new WireFuzzer({ seed })` makes the same sequence of cases for the
 * same learned corpus, so a failing run prints its seed and can be replayed.
 */
import type { Signer } from "../../node/chain/signatures.js";
import {
  encodeCommit,
  encodeCommitBody,
  encodeContribution,
  encodeHeartbeat,
  encodeLeave,
  encodeProof,
  proofBody,
  heartbeatBody,
  leaveBody,
  commitHash,
  type CommitMessage,
  type ContributionMessage,
  decodeCommit,
  decodeContribution,
} from "../../protocol/codec.js";
import {
  encodeChecksumRequest,
  encodeCommitsRequest,
  encodeCommitsResponse,
  encodeRunSpecRequest,
  encodeSnapshotRequest,
} from "../../protocol/sync-codec.js";
import { MAX_COMMITS_RESPONSE_BYTES, MAX_MESSAGE_BYTES, MAX_REQUEST_BYTES } from "../../protocol/limits.js";
import { commitSignedBytes, contributionSignedBytes, noticeSignedBytes } from "../../protocol/signing.js";
import * as pb from "../../protocol/messages.js";
import { runIdBytes } from "../../protocol/run-id.js";
import type { ProtocolName, TopicKind } from "../../protocol/topics.js";

/** mulberry32: a small seeded PRNG, enough to replay a case sequence exactly. */
export class Prng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A uint32. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.next() / 2 ** 32) * n);
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.next() & 0xff;
    return out;
  }
}

/** How a gossip case is broken. */
export const GOSSIP_STRATEGIES = [
  "random",
  "truncated",
  "bitflip",
  "hugeLength",
  "oversized",
  "farFuture",
  "farPast",
  "wrongRun",
  "joinedAt0",
  "joinedAtMax",
  "replay",
  "wrongParent",
  "badPayload",
  "badSignature",
  "usurp",
  "ahead",
] as const;
export type GossipStrategy = (typeof GOSSIP_STRATEGIES)[number];

/** How a request (or reply) frame is broken. */
export const FRAME_STRATEGIES = [
  "random",
  "truncated",
  "bitflip",
  "hugeLength",
  "oversized",
  "wrongRun",
  "farFuture",
  "farPast",
  "fieldMax",
  "valid",
] as const;
export type FrameStrategy = (typeof FRAME_STRATEGIES)[number];

export interface FuzzCase<S extends string> {
  readonly strategy: S;
  /** For gossip: the message to publish. For a request or reply: the raw bytes to write, length prefix included. */
  readonly data: Uint8Array;
}

/** Who signs: the attacker identity publishing the case (the author its messages name). */
export interface FuzzIdentity {
  readonly sign: Signer;
  /** Its peer id multihash bytes. */
  readonly bytes: Uint8Array;
}

/** An unsigned varint (up to 2^53). */
export function varint(n: number): Uint8Array {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Uint8Array.from(out);
}

const concat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

/** A length-prefixed frame, as the sync protocols write one. */
export const frame = (body: Uint8Array): Uint8Array => concat(varint(body.byteLength), body);

const CORPUS_KEEP = 32;

export interface WireFuzzerOptions {
  readonly seed: number;
  readonly runId: string;
  /** The honest nodes' head as the attacker last heard it (iterations relative to it). */
  readonly head: () => number;
  /** Gossip's acceptance window past the head (node/network/gossip.ts). */
  readonly window?: number;
}

export class WireFuzzer {
  readonly rng: Prng;
  private readonly corpus: Record<TopicKind, Uint8Array[]> = { contribution: [], commit: [], leave: [], heartbeat: [], proof: [] };
  private readonly window: number;
  private readonly otherRun: string;

  constructor(private readonly opts: WireFuzzerOptions) {
    this.rng = new Prng(opts.seed);
    this.window = opts.window ?? 1024;
    this.otherRun = opts.runId.split("").reverse().join("");
  }

  /** Keeps an honest message heard on gossip as a base for mutations and replays (the last 32 per kind). */
  learn(kind: TopicKind, data: Uint8Array): void {
    const list = this.corpus[kind];
    list.push(data.slice());
    if (list.length > CORPUS_KEEP) list.shift();
  }

  /** How many honest messages of a kind it holds. */
  learned(kind: TopicKind): number {
    return this.corpus[kind].length;
  }

  /** A hostile gossip message of `kind`, signed (where it is signed at all) by `who`. */
  gossip(kind: TopicKind, who: FuzzIdentity, strategy: GossipStrategy = this.rng.pick(GOSSIP_STRATEGIES)): FuzzCase<GossipStrategy> {
    const rng = this.rng;
    const valid = () => this.validForm(kind, who, {});
    switch (strategy) {
      case "random":
        return { strategy, data: rng.bytes(rng.int(512)) };
      case "truncated": {
        const v = valid();
        return { strategy, data: v.subarray(0, rng.int(Math.max(1, v.byteLength))) };
      }
      case "bitflip":
        return { strategy, data: this.flip(this.base(kind) ?? valid()) };
      case "hugeLength":
        // Field 1 (length-delimited) claiming 2^35 bytes, then a few.
        return { strategy, data: concat(Uint8Array.of(0x0a), varint(2 ** 35 + rng.int(1000)), rng.bytes(8)) };
      case "oversized": {
        // One byte over the kind's limit (commits: their limit is 4 MiB, so only a few of those).
        const size = kind === "commit" ? MAX_MESSAGE_BYTES.commit + 1 : MAX_MESSAGE_BYTES[kind] + 1 + rng.int(64);
        return { strategy, data: new Uint8Array(size).fill(rng.int(256)) };
      }
      case "replay":
        return { strategy, data: this.base(kind) ?? valid() };
      default:
        return { strategy, data: this.validForm(kind, who, { [strategy]: true }) };
    }
  }

  /** A hostile request frame for `protocol` (length prefix included). */
  request(protocol: ProtocolName, strategy: FrameStrategy = this.rng.pick(FRAME_STRATEGIES)): FuzzCase<FrameStrategy> {
    const rng = this.rng;
    const head = this.opts.head();
    const runId = strategy === "wrongRun" ? this.otherRun : this.opts.runId;
    const iteration =
      strategy === "farFuture" ? head + 10_000 + rng.int(1e6) : strategy === "farPast" ? 0 : strategy === "fieldMax" ? Number.MAX_SAFE_INTEGER : head;
    const u32 = strategy === "fieldMax" ? 2 ** 32 - 1 : undefined;
    const body = (): Uint8Array => {
      switch (protocol) {
        case "runspec":
          return encodeRunSpecRequest({ runId });
        case "checksum":
          return encodeChecksumRequest({ runId, iteration });
        case "commits":
          if (u32 !== undefined)
            return pb.CommitsRequest.encode({ runId: runIdBytes(runId) as Uint8Array<ArrayBuffer>, fromIteration: BigInt(iteration), max: u32 });
          return encodeCommitsRequest({ runId, fromIteration: iteration, max: 1 + rng.int(256) });
        case "snapshot":
          // Raw protobuf at the field's maximum: chunk and chunk size past what an honest encoder allows.
          if (u32 !== undefined)
            return pb.SnapshotRequest.encode({
              runId: runIdBytes(runId) as Uint8Array<ArrayBuffer>,
              chunk: u32,
              chunkSize: u32,
              iteration: BigInt(iteration),
              exact: true,
            });
          return encodeSnapshotRequest({
            runId,
            chunk: rng.int(4),
            chunkSize: 1024 * (1 + rng.int(256)),
            ...(rng.int(2) === 0 ? {} : { iteration }),
          });
      }
    };
    return { strategy, data: this.breakFrame(strategy, body, MAX_REQUEST_BYTES) };
  }

  /**
   * A hostile reply to an honest node's request. Only framing faults and undecodable bytes, and for
   * /commits also commits that decode but fail verification: a reply that decodes into a plausible
   * checksum or snapshot would test the repair vote (issue 11, item 6), not the wire.
   */
  reply(protocol: ProtocolName, who: FuzzIdentity): FuzzCase<FrameStrategy | "badCommits"> {
    const rng = this.rng;
    const strategy = rng.pick(["random", "truncated", "hugeLength", "oversized", "bitflip", "badCommits"] as const);
    if (strategy === "badCommits" && protocol === "commits") {
      const commits = Array.from({ length: 1 + rng.int(4) }, () =>
        rng.int(2) === 0 && this.base("commit") ? this.flip(this.base("commit") as Uint8Array) : this.validForm("commit", who, { usurp: true }),
      );
      return { strategy, data: frame(encodeCommitsResponse({ commits })) };
    }
    // Random or bit-flipped bytes can decode into a plausible answer (a checksum saying "known",
    // a snapshot head), which drives the repair vote: the first 2,000-case run made honest nodes
    // repair and diverge that way (issue 11 item 6, owned by the repair work). Here only frames
    // that cannot decode: a huge or over-limit prefix, or a prefix promising more than is sent.
    const s = rng.pick(["hugeLength", "oversized", "truncated"] as const);
    const max = protocol === "commits" ? MAX_COMMITS_RESPONSE_BYTES : 256;
    if (s === "truncated") {
      const body = rng.bytes(1 + rng.int(200));
      return { strategy: s, data: concat(varint(body.byteLength + 1 + rng.int(100)), body) };
    }
    return { strategy: s, data: this.breakFrame(s, () => rng.bytes(1 + rng.int(200)), max, false) };
  }

  /** A frame for `strategy` around `body()`; `limit` is what the reader accepts. */
  private breakFrame(strategy: FrameStrategy, body: () => Uint8Array, limit: number, big = true): Uint8Array {
    const rng = this.rng;
    switch (strategy) {
      case "random":
        return rng.bytes(rng.int(64));
      case "truncated": {
        const f = frame(body());
        return f.subarray(0, rng.int(f.byteLength));
      }
      case "bitflip":
        return this.flip(frame(body()));
      case "hugeLength":
        return concat(varint(2 ** 40 + rng.int(1e6)), rng.bytes(16));
      case "oversized":
        // A prefix one byte over the limit, with the bytes (requests) or only a few (replies).
        return big ? frame(rng.bytes(limit + 1)) : concat(varint(limit + 1), rng.bytes(32));
      default:
        return frame(body());
    }
  }

  /** A learned honest message, if any. */
  private base(kind: TopicKind): Uint8Array | undefined {
    const list = this.corpus[kind];
    return list.length === 0 ? undefined : this.rng.pick(list);
  }

  /** `data` with 1 to 8 bits flipped. */
  private flip(data: Uint8Array): Uint8Array {
    const out = data.slice();
    if (out.byteLength === 0) return out;
    const n = 1 + this.rng.int(8);
    for (let i = 0; i < n; i++) out[this.rng.int(out.byteLength)] ^= 1 << this.rng.int(8);
    return out;
  }

  /** An honest contribution's fields (payload, parent) to build on; a made-up one before any is heard. */
  private honestContribution(): ContributionMessage | null {
    const b = this.base("contribution");
    if (!b) return null;
    try {
      return decodeContribution(b);
    } catch {
      return null;
    }
  }

  /**
   * A message of `kind` in valid form and signed by `who`, with one field broken as `broken` says.
   * Nothing it makes is acceptable as a whole: without a break it is at a far-past iteration, or (a
   * contribution) carries a wrong parent, which gossip accepts and the rounds never include.
   */
  private validForm(kind: TopicKind, who: FuzzIdentity, broken: Partial<Record<GossipStrategy, true>>): Uint8Array {
    const rng = this.rng;
    const head = this.opts.head();
    const runId = broken.wrongRun ? this.otherRun : this.opts.runId;
    const iteration = broken.farFuture
      ? head + this.window + 2 + rng.int(1e6)
      : broken.ahead
        ? head + 2
        : broken.farPast || Object.keys(broken).length === 0
          ? rng.int(Math.max(1, head - 2))
          : head;
    const joinedAt = broken.joinedAt0 ? 0 : broken.joinedAtMax ? Number.MAX_SAFE_INTEGER : Date.now() - 60_000;
    const honest = this.honestContribution();
    const payload = broken.badPayload ? new Uint8Array(1 + rng.int(4096)).fill(0x80) : (honest?.payload ?? new Uint8Array(8).fill(1));
    switch (kind) {
      case "contribution": {
        // The honest parent only under a break that refuses the message by itself: otherwise (no
        // field broken for a contribution: "usurp", "ahead", "wrongParent") a contribution at the
        // nodes' head on their parent is valid (in an open run, any identity may contribute, and
        // the honest proposer includes it), which is not a hostile case at all.
        const refused = broken.badPayload || broken.badSignature || broken.wrongRun || broken.joinedAt0 || broken.joinedAtMax || broken.farFuture || broken.farPast;
        const parentHash = !refused || !honest ? rng.bytes(32) : honest.parentHash;
        const m = { runId, iteration, author: who.bytes, joinedAt, payload, parentHash, signature: new Uint8Array(0) };
        const signature = broken.badSignature ? rng.bytes(64) : who.sign(contributionSignedBytes(m));
        return encodeContribution({ ...m, signature });
      }
      case "commit": {
        // Usurp: the next commit after the latest honest one heard, so the rounds get as far as the rank.
        const last = this.corpus.commit.at(-1);
        let prevHash = rng.bytes(32);
        let next = head;
        if (last && broken.usurp) {
          try {
            next = decodeCommit(last).iteration + 1;
            prevHash = commitHash(last);
          } catch {
            // not a commit after all (the corpus takes what honest nodes relay): a random parent
          }
        }
        const own = { runId, iteration: broken.usurp ? next : iteration, author: who.bytes, joinedAt, payload, parentHash: prevHash, signature: new Uint8Array(0) };
        const entry = { author: who.bytes, joinedAt, payload, signature: who.sign(contributionSignedBytes(own)) };
        // Rank 0 by a signer that holds no rank (never the fallback rank n + 1 with its own entry,
        // which a slow honest proposer could let win): the rounds reject it and charge the signer.
        const body: Omit<CommitMessage, "signature"> = {
          runId,
          iteration: broken.usurp ? next : iteration,
          prevHash,
          entries: [entry],
          checksum: rng.bytes(32),
          rank: 0,
          proposer: who.bytes,
        };
        const signature = broken.badSignature ? rng.bytes(64) : who.sign(commitSignedBytes(encodeCommitBody(body)));
        return encodeCommit({ ...body, signature });
      }
      case "heartbeat": {
        const body = { runId, iteration, checksum: rng.bytes(32), joinedAt, author: who.bytes };
        const signature = broken.badSignature ? rng.bytes(64) : who.sign(noticeSignedBytes("heartbeat", heartbeatBody(body)));
        return encodeHeartbeat({ ...body, signature });
      }
      case "leave": {
        const body = { runId, iteration, author: who.bytes };
        const signature = broken.badSignature ? rng.bytes(64) : who.sign(noticeSignedBytes("leave", leaveBody(body)));
        return encodeLeave({ ...body, signature });
      }
      case "proof": {
        // Under "usurp", a false proof against the first author of the last honest commit heard
        // (a signer that is no author of the chain: the audits ignore it without recomputing);
        // otherwise one about a commit nobody holds, or accusing its own signer (malformed).
        let target = { iteration, commitHash: rng.bytes(32), accused: who.bytes };
        const last = this.corpus.commit.at(-1);
        if (last && broken.usurp) {
          try {
            const c = decodeCommit(last);
            if (c.entries.length > 0) target = { iteration: c.iteration, commitHash: commitHash(last), accused: c.entries[0].author };
          } catch {
            // not a commit after all: the random target
          }
        }
        const body = { runId, ...target, author: who.bytes };
        const signature = broken.badSignature ? rng.bytes(64) : who.sign(noticeSignedBytes("proof", proofBody(body)));
        return encodeProof({ ...body, signature });
      }
    }
  }
}
