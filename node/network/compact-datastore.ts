/**
 * The in-memory datastore behind libp2p's peer store and kad-dht records, storing every value in
 * an array of its own size, with a count and byte cap per key space that strangers can write.
 *
 * libp2p's values often arrive as views into a larger buffer (Node's 8 KiB allocation pool, a
 * stream's read chunk); kept as they are, each view keeps its whole backing buffer alive. Measured
 * on a node that 1,000 fresh identities connected to and left: 17 KiB of array buffers per
 * peer-store entry whose encoding is about 1 KiB. Copying a view on the way in keeps only its bytes.
 *
 * Any DHT peer may PUT a record or ADD_PROVIDER under any key (security review, finding 6a): the
 * validator refuses other runs' records, but keys within our run are still free to choose. Each
 * capped key space evicts its least recently written or read key once over its count or bytes,
 * so a flood holds bounded memory. Honest keys are few and re-written every few seconds (expert
 * records every 5 s, node/network/experts.ts), so a flood must outpace them on every DHT peer
 * near the key to evict one, and a reader that finds no holders falls back to asking its
 * connected peers (node/sync/snapshot-plan.ts).
 */
import type { AbortOptions } from "@libp2p/interface";
import { MemoryDatastore } from "datastore-core";
import { Key } from "interface-datastore";

/** A key space (every key that starts with `prefix`) and what it may hold. */
export interface KeySpaceCap {
  readonly prefix: string;
  readonly maxKeys: number;
  readonly maxBytes: number;
}

export const defaultKeySpaceCaps: readonly KeySpaceCap[] = [
  // kad-dht values (put-value.ts: `${datastorePrefix}/record/...`): a run's live expert keys are a
  // handful (`snap`, `snap.<it>` for the last iterations) times the share of keys this node is near;
  // 8 MiB holds 60 full 136 KB records, 1,024 keys many more small ones.
  { prefix: "/dht/record/", maxKeys: 1024, maxBytes: 8 * 1024 * 1024 },
  // Provider records (one ~100-byte key per (cid, provider)): a run has one cid, so 8,192 holds
  // the providers of a large swarm and a few other runs.
  { prefix: "/dht/provider/", maxKeys: 8192, maxBytes: 4 * 1024 * 1024 },
];

/** What a key space holds now (for tests, metrics and the benchmark). */
export interface KeySpaceUse {
  readonly prefix: string;
  readonly keys: number;
  readonly bytes: number;
  readonly evicted: number;
}

class KeySpace {
  /** Key -> value bytes, least recently used first. */
  readonly sizes = new Map<string, number>();
  bytes = 0;
  evicted = 0;
  constructor(readonly cap: KeySpaceCap) {}
}

export class CompactMemoryDatastore extends MemoryDatastore {
  private readonly spaces: KeySpace[];

  constructor(caps: readonly KeySpaceCap[] = defaultKeySpaceCaps) {
    super();
    this.spaces = caps.map((c) => new KeySpace(c));
  }

  override put(key: Key, val: Uint8Array, options?: AbortOptions): Key | Promise<Key> {
    const own = val.byteOffset === 0 && val.byteLength === val.buffer.byteLength;
    const k = key.toString();
    const space = this.spaceOf(k);
    if (space) {
      this.forget(space, k);
      space.sizes.set(k, val.byteLength);
      space.bytes += val.byteLength;
      // The newest key is never evicted by its own put (its size is bounded by the validator).
      while (space.sizes.size > 1 && (space.sizes.size > space.cap.maxKeys || space.bytes > space.cap.maxBytes)) {
        const oldest = space.sizes.keys().next().value as string;
        this.forget(space, oldest);
        super.delete(new Key(oldest));
        space.evicted++;
      }
    }
    return super.put(key, own ? val : val.slice(), options);
  }

  override get(key: Key, options?: AbortOptions): Uint8Array | Promise<Uint8Array> {
    const k = key.toString();
    const space = this.spaceOf(k);
    const size = space?.sizes.get(k);
    if (space && size !== undefined) {
      // Read: most recently used.
      space.sizes.delete(k);
      space.sizes.set(k, size);
    }
    return super.get(key, options);
  }

  override delete(key: Key, options?: AbortOptions): void | Promise<void> {
    const k = key.toString();
    const space = this.spaceOf(k);
    if (space) this.forget(space, k);
    return super.delete(key, options);
  }

  /** Keys, bytes and evictions of each capped key space. */
  use(): KeySpaceUse[] {
    return this.spaces.map((s) => ({ prefix: s.cap.prefix, keys: s.sizes.size, bytes: s.bytes, evicted: s.evicted }));
  }

  private spaceOf(key: string): KeySpace | undefined {
    return this.spaces.find((s) => key.startsWith(s.cap.prefix));
  }

  private forget(space: KeySpace, key: string): void {
    const size = space.sizes.get(key);
    if (size === undefined) return;
    space.sizes.delete(key);
    space.bytes -= size;
  }
}
