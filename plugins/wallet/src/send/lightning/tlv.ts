/**
 * The type-length-value stream of the Lightning protocol (BOLT 1), as BOLT 12 offers, invoice
 * requests and invoices use it: a sequence of records `BigSize type`, `BigSize length`, `length`
 * bytes of value, with strictly increasing types. Pure functions that throw `Error` on malformed
 * input.
 */

/** One record of a TLV stream. */
export interface TlvRecord {
  readonly type: bigint;
  readonly value: Uint8Array;
}

/** A cursor over bytes that throws when a read goes past the end. */
export class ByteReader {
  private pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** `n` bytes, or throws `what … truncated`. */
  read(n: number, what: string): Uint8Array {
    if (n > this.remaining) throw new Error(`${what} truncated`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** The next byte without consuming it. */
  peek(what: string): number {
    if (this.remaining < 1) throw new Error(`${what} truncated`);
    return this.bytes[this.pos]!;
  }

  u8(what: string): number {
    return this.read(1, what)[0]!;
  }

  u16(what: string): number {
    const b = this.read(2, what);
    return (b[0]! << 8) | b[1]!;
  }

  u32(what: string): number {
    const b = this.read(4, what);
    return ((b[0]! << 24) >>> 0) + ((b[1]! << 16) | (b[2]! << 8) | b[3]!);
  }

  u64(what: string): bigint {
    return bigEndian(this.read(8, what));
  }

  /**
   * A BigSize: one byte below 0xfd is the value; 0xfd, 0xfe, 0xff announce a 2-, 4- or 8-byte
   * big-endian value. The shortest form is required (a value that fits a shorter form is refused).
   */
  bigSize(what: string): bigint {
    const first = this.u8(what);
    if (first < 0xfd) return BigInt(first);
    const [len, min] = first === 0xfd ? [2, 0xfdn] : first === 0xfe ? [4, 0x1_0000n] : [8, 0x1_0000_0000n];
    const v = bigEndian(this.read(len, what));
    if (v < min) throw new Error(`${what}: non-minimal BigSize`);
    return v;
  }
}

function bigEndian(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/**
 * Splits `bytes` into TLV records. Each length must fit in the bytes left, and types must be
 * strictly increasing (a repeated or out-of-order type is malformed).
 */
export function readTlvStream(bytes: Uint8Array): TlvRecord[] {
  const r = new ByteReader(bytes);
  const records: TlvRecord[] = [];
  let last = -1n;
  while (r.remaining > 0) {
    const type = r.bigSize("TLV type");
    if (type <= last) throw new Error(`TLV type ${type} not strictly increasing (after ${last})`);
    const length = r.bigSize(`TLV ${type} length`);
    if (length > BigInt(r.remaining)) throw new Error(`TLV ${type} value truncated`);
    records.push({ type, value: r.read(Number(length), `TLV ${type} value`) });
    last = type;
  }
  return records;
}

/**
 * A `tu64`: a big-endian u64 with its leading zero bytes left out (0 to 8 bytes; zero is the empty
 * value). A leading zero byte is a non-minimal encoding and is refused.
 */
export function readTu64(value: Uint8Array, what: string): bigint {
  if (value.length > 8) throw new Error(`${what}: tu64 longer than 8 bytes`);
  if (value.length > 0 && value[0] === 0) throw new Error(`${what}: non-minimal tu64`);
  return bigEndian(value);
}
