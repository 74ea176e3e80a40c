/**
 * A bounded memo keyed by the content of short byte strings (public keys, x-only keys), without
 * building a string key for each lookup.
 *
 * Decoding a VTXO checks every public key of its chain (≈ 60 for a chain of 19 steps); keyed by
 * hex, making the key took a third of the decoding (≈ 0.4 µs a key, to find a key checked
 * before). Here a lookup hashes the key's last eight bytes into a number and compares the bytes
 * of the few entries in that bucket. The keys it holds are curve points that passed a check: their
 * last bytes are uniformly distributed x coordinates, and making many valid keys that share them
 * costs about 2^32 point generations each.
 */
export class BytesMemo<V> {
  private readonly buckets = new Map<number, { key: Uint8Array; value: V }[]>();
  private count = 0;

  /** `capacity`: once that many entries are held, the next insertion forgets them all. */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /** The value kept for a key with these exact bytes, `undefined` when none is. */
  get(key: Uint8Array): V | undefined {
    const bucket = this.buckets.get(hashTail(key));
    if (bucket === undefined) return undefined;
    for (const e of bucket) if (sameBytes(e.key, key)) return e.value;
    return undefined;
  }

  /** Keeps `value` for a copy of `key` (replacing the value of an equal key). */
  set(key: Uint8Array, value: V): void {
    const h = hashTail(key);
    const bucket = this.buckets.get(h);
    if (bucket !== undefined) {
      for (const e of bucket) {
        if (sameBytes(e.key, key)) {
          e.value = value;
          return;
        }
      }
    }
    if (this.count >= this.capacity) this.clear();
    const entry = { key: Uint8Array.from(key), value };
    const current = this.buckets.get(h);
    if (current === undefined) this.buckets.set(h, [entry]);
    else current.push(entry);
    this.count++;
  }

  clear(): void {
    this.buckets.clear();
    this.count = 0;
  }

  /** How many entries are kept. */
  get size(): number {
    return this.count;
  }
}

/** A 32-bit number from the last (up to) eight bytes of `b` and its length. */
function hashTail(b: Uint8Array): number {
  const n = b.length;
  let h = n * 0x9e3779b1;
  for (let i = Math.max(0, n - 8); i < n; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h | 0;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
