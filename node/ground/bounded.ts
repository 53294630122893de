/**
 * Bounded collections: what every cache, ban list and dedupe of node/ is, so that no input from
 * the network grows memory past a cap, written once. Insertion order is age: past `max` the
 * oldest entry is forgotten; `refresh` makes an entry the newest (an LRU's touch).
 */

/** A Map of at most `max` entries; `set` of a present key keeps its age. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    if (this.size > this.max) this.delete(this.keys().next().value as K);
    return this;
  }

  /** Sets `key` as the newest entry. */
  refresh(key: K, value: V): this {
    this.delete(key);
    return this.set(key, value);
  }
}

/** A Set of at most `max` keys; `add` of a present key keeps its age. */
export class BoundedSet<K> extends Set<K> {
  constructor(readonly max: number) {
    super();
  }

  override add(key: K): this {
    super.add(key);
    if (this.size > this.max) this.delete(this.values().next().value as K);
    return this;
  }
}

/** A BoundedMap that forgets its least recently used entry: `get` and `set` make an entry the newest. */
export class BoundedLru<K, V> {
  private readonly map: BoundedMap<K, V>;

  constructor(readonly max: number) {
    this.map = new BoundedMap(max);
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) this.map.refresh(key, v);
    return v;
  }

  set(key: K, value: V): void {
    this.map.refresh(key, value);
  }

  get size(): number {
    return this.map.size;
  }
}
