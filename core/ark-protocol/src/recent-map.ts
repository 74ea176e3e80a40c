/**
 * A bounded map that forgets its least recently used entry first: the protocol core's memos of
 * exit-chain steps, and a wallet's VTXO keys in the daemon (the ones it needs again are nearly
 * always the recent ones; the rest are recomputed, derived or read again).
 */
export class RecentMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /** The value of `key`, now the most recently used; `undefined` when not kept. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  /** Keeps `value` for `key` as the most recently used, forgetting the least recently used one when full. */
  set(key: K, value: V): V {
    this.map.delete(key);
    if (this.map.size >= this.capacity) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
    return value;
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
