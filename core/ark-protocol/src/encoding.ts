/**
 * Primitive encodings of the Ark protocol (bark's `ark::encode`): little-endian integers, Bitcoin
 * CompactSize, outpoints, transaction outputs, and the height/delta bounds.
 *
 * Decoding goes through {@link ByteReader}, which checks every read against the remaining
 * input and throws {@link ProtocolDecodeError}; it never allocates more than the input holds.
 *
 * @example
 * ```ts
 * const w = new ByteWriter();
 * w.compactSize(253);
 * toHex(w.finish()); // "fdfd00"
 * new ByteReader(fromHex("fdfd00")).compactSize(); // 253n
 * ```
 */
import { equalBytes as bytesEqual } from "@noble/curves/utils.js";
import { concatBytes } from "@noble/hashes/utils.js";
import { bytesKey, parseHex, toHex } from "./hex.js";
import { ProtocolDecodeError } from "./errors.js";

/** An amount of satoshis (u64 on the wire). */
export type Sats = bigint;

/** Largest relative block delta a decoder accepts (bark's `MAX_BLOCK_DELTA`: four sum to a u16). */
export const MAX_BLOCK_DELTA = 16383;
/** Largest block height a decoder accepts (bark's `MAX_BLOCK_HEIGHT`; plus four deltas, a locktime). */
export const MAX_BLOCK_HEIGHT = 499_934_467;
/** Largest scriptPubKey accepted inside protocol encodings (longer is a decode error). */
export const MAX_TXOUT_SCRIPT_LEN = 100;
/** bark's cap on decoded vector/field lengths in bytes (counts must also fit the remaining input). */
export const MAX_DECODED_VECTOR_BYTES = 4_000_000;

const U64_MAX = (1n << 64n) - 1n;

// Hex (`hex.ts`, native where Node has it), concatenation, equality and UTF-8 (noble): import
// them from here under these names rather than writing them again.
export { bytesKey, toHex };
export { concatBytes, utf8ToBytes as utf8 } from "@noble/hashes/utils.js";
export { equalBytes as bytesEqual } from "@noble/curves/utils.js";

/** Bytes of a hex string (either case); throws {@link ProtocolDecodeError} on bad hex. */
export function fromHex(hex: string): Uint8Array {
  const bytes = parseHex(hex);
  if (!bytes) throw new ProtocolDecodeError("invalid hex string");
  return bytes;
}

/** Lexicographic comparison of two byte strings (-1, 0, 1). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Copy of `bytes` in reverse order (internal ↔ display txid order). */
export function reverseBytes(bytes: Uint8Array): Uint8Array {
  return Uint8Array.from(bytes).reverse();
}

/** Display hex of a hash in internal byte order (txids and block hashes are shown reversed). */
export function displayHex(hash: Uint8Array): string {
  return toHex(reverseBytes(hash));
}

/** Bounds-checked little-endian reader over a byte array. */
export class ByteReader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  /** Bytes not read yet. */
  get remaining(): number {
    return this.buf.length - this.pos;
  }

  /** Current read offset. */
  get offset(): number {
    return this.pos;
  }

  /** Reads `n` bytes (a copy). */
  bytes(n: number): Uint8Array {
    if (!Number.isSafeInteger(n) || n < 0 || n > this.remaining) {
      throw new ProtocolDecodeError(`unexpected end of input: need ${n} bytes, ${this.remaining} left`);
    }
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Next byte without consuming it. */
  peekU8(): number {
    if (this.remaining < 1) throw new ProtocolDecodeError("unexpected end of input");
    return this.buf[this.pos]!;
  }

  /** Position of the next `n` bytes (consumed), read in place by the fixed-size integers: no copy. */
  private take(n: number): number {
    if (n > this.remaining) throw new ProtocolDecodeError(`unexpected end of input: need ${n} bytes, ${this.remaining} left`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u8(): number {
    return this.buf[this.take(1)]!;
  }

  u16(): number {
    const at = this.take(2);
    const b = this.buf;
    return b[at]! | (b[at + 1]! << 8);
  }

  u32(): number {
    const at = this.take(4);
    const b = this.buf;
    return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 0x1000000;
  }

  u64(): bigint {
    const lo = this.u32();
    const hi = this.u32();
    // below 2^53 (every amount) the sum is exact: one bigint made instead of three
    return hi < 0x200000 ? BigInt(hi * 0x100000000 + lo) : (BigInt(hi) << 32n) | BigInt(lo);
  }

  i64(): bigint {
    return BigInt.asIntN(64, this.u64());
  }

  /** Bitcoin CompactSize; rejects non-minimal forms. */
  compactSize(): bigint {
    const tag = this.u8();
    if (tag < 0xfd) return BigInt(tag);
    if (tag === 0xfd) {
      const v = this.u16();
      if (v < 0xfd) throw new ProtocolDecodeError("non-minimal compact size");
      return BigInt(v);
    }
    if (tag === 0xfe) {
      const v = this.u32();
      if (v <= 0xffff) throw new ProtocolDecodeError("non-minimal compact size");
      return BigInt(v);
    }
    const v = this.u64();
    if (v <= 0xffffffffn) throw new ProtocolDecodeError("non-minimal compact size");
    return v;
  }

  /** A one-byte CompactSize (below 0xfd), consumed; `undefined` (nothing consumed) for a longer form. */
  private smallCompactSize(): number | undefined {
    if (this.remaining < 1) throw new ProtocolDecodeError("unexpected end of input: need 1 bytes, 0 left");
    const tag = this.buf[this.pos]!;
    if (tag >= 0xfd) return undefined;
    this.pos++;
    return tag;
  }

  /**
   * A CompactSize item count whose items take at least `minItemBytes` each; rejects counts that
   * cannot fit in the remaining input, so no decoder ever allocates for bytes it has not got.
   */
  count(minItemBytes: number, what = "vector"): number {
    const small = this.smallCompactSize();
    if (small !== undefined) {
      if (small * Math.max(1, minItemBytes) > this.remaining) throw new ProtocolDecodeError(`${what} length ${small} exceeds remaining input`);
      return small;
    }
    const n = this.compactSize();
    if (n * BigInt(Math.max(1, minItemBytes)) > BigInt(this.remaining)) {
      throw new ProtocolDecodeError(`${what} length ${n} exceeds remaining input`);
    }
    return Number(n);
  }

  /** A CompactSize-length-prefixed byte string, at most `max` bytes long. */
  varBytes(max: number = MAX_DECODED_VECTOR_BYTES, what = "field"): Uint8Array {
    const small = this.smallCompactSize();
    if (small !== undefined) {
      if (small > max) throw new ProtocolDecodeError(`${what} exceeds maximum length`);
      return this.bytes(small);
    }
    const n = this.compactSize();
    if (n > BigInt(max)) throw new ProtocolDecodeError(`${what} exceeds maximum length`);
    return this.bytes(Number(n));
  }

  /** Absolute block height, bounded by {@link MAX_BLOCK_HEIGHT}. */
  height(): number {
    const h = this.u32();
    if (h > MAX_BLOCK_HEIGHT) throw new ProtocolDecodeError(`block height ${h} above maximum`);
    return h;
  }

  /** Relative block delta, bounded by {@link MAX_BLOCK_DELTA}. */
  delta(): number {
    const d = this.u16();
    if (d > MAX_BLOCK_DELTA) throw new ProtocolDecodeError(`block delta ${d} above maximum`);
    return d;
  }

  /** Throws unless every byte was consumed. */
  finish(): void {
    if (this.remaining !== 0) throw new ProtocolDecodeError("trailing bytes");
  }
}

/** Whether `haystack` holds `bytes` from `offset` on (public data: not constant time). */
export function bytesEqualAt(haystack: Uint8Array, offset: number, bytes: Uint8Array): boolean {
  // past the end a typed array answers undefined, equal to no byte
  for (let i = 0; i < bytes.length; i++) if (haystack[offset + i] !== bytes[i]) return false;
  return true;
}

/** A writer's working buffer; finished writers hand theirs back for the next one. */
interface Scratch {
  buf: Uint8Array;
  view: DataView;
}

const SCRATCH_BYTES = 4096;
const SCRATCH_POOL_MAX = 16;
const scratchPool: Scratch[] = [];

function takeScratch(min: number): Scratch {
  const pooled = min <= SCRATCH_BYTES ? scratchPool.pop() : undefined;
  if (pooled) return pooled;
  const buf = new Uint8Array(Math.max(SCRATCH_BYTES, min));
  return { buf, view: new DataView(buf.buffer) };
}

function giveBackScratch(s: Scratch): void {
  if (s.buf.length === SCRATCH_BYTES && scratchPool.length < SCRATCH_POOL_MAX) scratchPool.push(s);
}

/**
 * Growable little-endian writer. It writes into a working buffer taken from a small pool (a
 * buffer above 64 bytes costs V8 an allocation outside its heap, more than writing a whole
 * transaction), and {@link finish} copies out exactly the bytes written and hands the buffer
 * back; a finished writer takes no more bytes. {@link bytes} copies its argument at once: a later change to the caller's array does
 * not reach the output.
 */
export class ByteWriter {
  private s: Scratch | null = null;
  private len = 0;
  private finished = false;

  /** Room for `n` more bytes. */
  private room(n: number): Scratch {
    const need = this.len + n;
    let s = this.s;
    if (!s) {
      if (this.finished) throw new Error("ByteWriter: written to after finish()");
      s = this.s = takeScratch(need);
    }
    if (need <= s.buf.length) return s;
    let cap = s.buf.length * 2;
    while (cap < need) cap *= 2;
    const buf = new Uint8Array(cap);
    buf.set(s.buf.subarray(0, this.len));
    giveBackScratch(s);
    this.s = { buf, view: new DataView(buf.buffer) };
    return this.s;
  }

  bytes(b: Uint8Array): this {
    this.room(b.length).buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  u8(v: number): this {
    this.room(1).buf[this.len++] = v & 0xff;
    return this;
  }

  u16(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new RangeError(`u16 out of range: ${v}`);
    this.room(2).view.setUint16(this.len, v, true);
    this.len += 2;
    return this;
  }

  u32(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`u32 out of range: ${v}`);
    this.room(4).view.setUint32(this.len, v, true);
    this.len += 4;
    return this;
  }

  u64(v: bigint): this {
    if (v < 0n || v > U64_MAX) throw new RangeError(`u64 out of range: ${v}`);
    this.room(8).view.setBigUint64(this.len, v, true);
    this.len += 8;
    return this;
  }

  i64(v: bigint): this {
    return this.u64(BigInt.asUintN(64, v));
  }

  compactSize(v: number | bigint): this {
    if (typeof v === "number") {
      if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`compact size out of range: ${v}`);
      if (v < 0xfd) return this.u8(v);
      if (v <= 0xffff) return this.u8(0xfd).u16(v);
      if (v <= 0xffffffff) return this.u8(0xfe).u32(v);
      return this.u8(0xff).u64(BigInt(v));
    }
    if (v < 0n || v > U64_MAX) throw new RangeError(`compact size out of range: ${v}`);
    if (v < 0xfdn) return this.u8(Number(v));
    if (v <= 0xffffn) return this.u8(0xfd).u16(Number(v));
    if (v <= 0xffffffffn) return this.u8(0xfe).u32(Number(v));
    return this.u8(0xff).u64(v);
  }

  varBytes(b: Uint8Array): this {
    return this.compactSize(b.length).bytes(b);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.len;
  }

  /**
   * Everything written as a string of one character per byte (a compact, exact map key; no
   * copy of the bytes). The working buffer goes back to the pool: the writer is done.
   */
  finishKey(): string {
    return this.end(bytesKey);
  }

  /** A copy of everything written. The working buffer goes back to the pool: the writer is done. */
  finish(): Uint8Array {
    return this.end((bytes) => bytes.slice());
  }

  /** Ends the writer: `take` reads what was written (a view into the working buffer), which then goes back to the pool. */
  private end<T>(take: (bytes: Uint8Array) => T): T {
    if (this.finished) throw new Error("ByteWriter: finish() called twice");
    this.finished = true;
    const s = this.s;
    this.s = null;
    const out = take(s ? s.buf.subarray(0, this.len) : new Uint8Array(0));
    if (s) giveBackScratch(s);
    return out;
  }
}

/** A transaction outpoint; `txid` is in internal (hashing) byte order. */
export interface OutPoint {
  readonly txid: Uint8Array;
  readonly vout: number;
}

/** A transaction output. */
export interface TxOut {
  readonly value: Sats;
  readonly script: Uint8Array;
}

/** Writes an outpoint in consensus form (txid ‖ vout u32 LE, 36 bytes). */
export function writeOutPoint(w: ByteWriter, p: OutPoint): ByteWriter {
  if (p.txid.length !== 32) throw new RangeError("txid must be 32 bytes");
  return w.bytes(p.txid).u32(p.vout);
}

/** Reads a 36-byte consensus outpoint. */
export function readOutPoint(r: ByteReader): OutPoint {
  const txid = r.bytes(32);
  return { txid, vout: r.u32() };
}

/** 36-byte consensus encoding of an outpoint. */
export function encodeOutPoint(p: OutPoint): Uint8Array {
  return writeOutPoint(new ByteWriter(), p).finish();
}

/** `<txid display hex>:<vout>` form of an outpoint. */
export function formatOutPoint(p: OutPoint): string {
  return `${displayHex(p.txid)}:${p.vout}`;
}

/** Parses `<txid display hex>:<vout>`. */
export function parseOutPoint(s: string): OutPoint {
  const m = /^([0-9a-fA-F]{64}):(\d{1,10})$/.exec(s);
  if (!m) throw new ProtocolDecodeError(`invalid outpoint string: ${s}`);
  const vout = Number(m[2]);
  if (vout > 0xffffffff) throw new ProtocolDecodeError("outpoint vout out of range");
  return { txid: reverseBytes(fromHex(m[1]!)), vout };
}

/** Equality of outpoints. */
export function outPointEquals(a: OutPoint, b: OutPoint): boolean {
  return a.vout === b.vout && bytesEqual(a.txid, b.txid);
}

/** Reads an optional SHA-256 hash: `0x00`, or `0x01` followed by 32 bytes. */
export function readOptionalSha256(r: ByteReader): Uint8Array | null {
  const tag = r.u8();
  if (tag === 0) return null;
  if (tag !== 1) throw new ProtocolDecodeError(`invalid option tag ${tag}`);
  return r.bytes(32);
}

/** Writes an optional SHA-256 hash. */
export function writeOptionalSha256(w: ByteWriter, hash: Uint8Array | null): ByteWriter {
  if (!hash) return w.u8(0);
  if (hash.length !== 32) throw new RangeError("sha256 hash must be 32 bytes");
  return w.u8(1).bytes(hash);
}

/** Writes a TxOut (value u64 LE ‖ compact-size script length ‖ script). */
export function writeTxOut(w: ByteWriter, o: TxOut): ByteWriter {
  return w.u64(o.value).varBytes(o.script);
}

/** Reads a TxOut, rejecting scripts longer than {@link MAX_TXOUT_SCRIPT_LEN}. */
export function readTxOut(r: ByteReader): TxOut {
  const value = r.u64();
  const script = r.varBytes(MAX_TXOUT_SCRIPT_LEN, "txout script");
  return { value, script };
}

/**
 * Decodes a whole object with `read` and requires that every byte is consumed. Any
 * non-protocol exception escaping `read` is converted to {@link ProtocolDecodeError}.
 */
export function decodeExact<T>(bytes: Uint8Array, read: (r: ByteReader) => T): T {
  const r = new ByteReader(bytes);
  let value: T;
  try {
    value = read(r);
  } catch (e) {
    if (e instanceof ProtocolDecodeError) throw e;
    throw new ProtocolDecodeError(`malformed encoding: ${(e as Error)?.message ?? String(e)}`);
  }
  r.finish();
  return value;
}
