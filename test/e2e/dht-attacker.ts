/**
 * A hostile kad-dht peer's tools (security review, finding 6): raw PUT_VALUE requests to one
 * chosen peer (kad-dht's own put goes to whichever peers are closest, and stores locally first),
 * and the records a flooder and a poisoner send.
 */
import { randomBytes } from "node:crypto";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PeerId } from "@libp2p/interface";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { lpStream } from "@libp2p/utils";
import type { CompactMemoryDatastore } from "../../node/network/compact-datastore.js";
import type { SwarmNode } from "../../node/network/libp2p.js";
import { MAX_EXPERT_ENTRIES } from "../../protocol/limits.js";
import { encodeExpertRecord, type ExpertEntry } from "../../protocol/sync-codec.js";

/** A protobuf length-delimited field. */
function field(no: number, bytes: Uint8Array): Uint8Array {
  const len: number[] = [];
  for (let n = bytes.byteLength; ; n >>>= 7) {
    if (n < 0x80) {
      len.push(n);
      break;
    }
    len.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Uint8Array.from([(no << 3) | 2, ...len]), bytes]);
}

/**
 * A kad-dht Message of type PUT_VALUE (0, the proto3 default: not written) with its Record (key 1,
 * value 2, timeReceived 5), as kad-dht's dht.proto numbers them.
 */
export function putValueMessage(key: Uint8Array, value: Uint8Array): Uint8Array {
  const record = Buffer.concat([field(1, key), field(2, value), field(5, new TextEncoder().encode(new Date().toISOString()))]);
  return Buffer.concat([field(2, key), field(3, record)]);
}

/**
 * Sends PUT_VALUE requests to `peer` over `protocol` (the run's `${prefix}/kad/1.0.0`), one stream
 * reused while the peer accepts. Per request: "stored" (the peer echoed it: its validator let it
 * through) or "refused" (it reset the stream: kad-dht's verdict on a record its validator threw on).
 */
export async function rawPutValues(
  from: SwarmNode,
  peer: PeerId,
  protocol: string,
  puts: Iterable<{ key: Uint8Array; value: Uint8Array }>,
  timeoutMs = 5000,
): Promise<("stored" | "refused")[]> {
  const out: ("stored" | "refused")[] = [];
  let lp: ReturnType<typeof lpStream> | undefined;
  let stream: Awaited<ReturnType<SwarmNode["dialProtocol"]>> | undefined;
  for (const { key, value } of puts) {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      if (!lp) {
        stream = await from.dialProtocol(peer, protocol, { signal });
        lp = lpStream(stream, { maxDataLength: 4 * 1024 * 1024 });
      }
      await lp.write(putValueMessage(key, value), { signal });
      await lp.read({ signal });
      out.push("stored");
    } catch {
      stream?.abort(new Error("put refused"));
      lp = undefined;
      out.push("refused");
    }
  }
  await stream?.close().catch(() => {});
  return out;
}

/** `entries` entries of fresh Ed25519 ids with random signatures (free to make, costly to check). */
export async function bogusEntries(entries: number, now: number, suffix = (i: number) => i): Promise<ExpertEntry[]> {
  // A handful of ids, reused: each entry's signature is what fails, whoever it names.
  const ids = await Promise.all(Array.from({ length: 16 }, async () => peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toMultihash().bytes));
  return Array.from({ length: entries }, (_, i) => ({
    suffix: suffix(i),
    peer: ids[i % ids.length],
    timestamp: now,
    expiresAt: now + 60_000,
    signature: randomBytes(64),
  }));
}

/** A full poisoned record: MAX_EXPERT_ENTRIES live entries, every signature bogus (about 136 KB). */
export async function poisonRecord(now: number): Promise<Uint8Array> {
  return encodeExpertRecord({ entries: await bogusEntries(MAX_EXPERT_ENTRIES, now) });
}

/** A record of `entries` entries as a flooder sends (realistic size: ~130 bytes an entry). */
export async function floodRecord(entries: number, now: number): Promise<Uint8Array> {
  return encodeExpertRecord({ entries: await bogusEntries(entries, now) });
}

/** The datastore of an in-process node (libp2p keeps it in its components). */
export function datastoreOf(node: SwarmNode): CompactMemoryDatastore {
  return (node as unknown as { components: { datastore: CompactMemoryDatastore } }).components.datastore;
}
