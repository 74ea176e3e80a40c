/** Byte helpers of the devnet: hex, reversed (display) hex, concatenation, equality, little-endian reading and writing. */
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { ConsensusError } from "./errors.js";

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

// Hex, concatenation and equality come from noble: every part of the devnet imports them from
// here under these names rather than writing them again.
export { bytesToHex as toHex, concatBytes } from "@noble/hashes/utils.js";
export { equalBytes as bytesEqual } from "@noble/curves/utils.js";

/** Bytes of an even-length hex string (either case), or undefined when `text` is not one. */
export function parseHex(text: string): Uint8Array | undefined {
  return HEX.test(text) ? hexToBytes(text) : undefined;
}

/** Bytes of an even-length hex string; throws `Error` on bad hex. */
export function fromHex(hex: string): Uint8Array {
  const bytes = parseHex(hex);
  if (bytes === undefined) throw new Error(`invalid hex: ${hex.slice(0, 20)}`);
  return bytes;
}

/** A reversed copy (internal byte order ↔ display order of hashes). */
export function reversed(bytes: Uint8Array): Uint8Array {
  return Uint8Array.from(bytes).reverse();
}

/** Display hex (byte-reversed) of an internal-order hash: how txids and block hashes are shown. */
export function displayHex(hash: Uint8Array): string {
  return bytesToHex(reversed(hash));
}

/** Size in bytes of a CompactSize encoding of `n`. */
export function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/** Growable little-endian writer. */
export class ByteWriter {
  private buf: Uint8Array;
  private len = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + extra));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.len++] = v & 0xff;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    const x = v >>> 0;
    this.buf[this.len++] = x & 0xff;
    this.buf[this.len++] = (x >>> 8) & 0xff;
    this.buf[this.len++] = (x >>> 16) & 0xff;
    this.buf[this.len++] = (x >>> 24) & 0xff;
    return this;
  }

  /** Signed or unsigned 64-bit value, written as two's complement. */
  u64(v: bigint): this {
    const x = BigInt.asUintN(64, v);
    this.u32(Number(x & 0xffffffffn));
    return this.u32(Number(x >> 32n));
  }

  compactSize(n: number): this {
    if (n < 0xfd) return this.u8(n);
    if (n <= 0xffff) return this.u8(0xfd).u8(n).u8(n >>> 8);
    if (n <= 0xffffffff) return this.u8(0xfe).u32(n);
    return this.u8(0xff).u64(BigInt(n));
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  /** CompactSize length prefix followed by the bytes. */
  varBytes(b: Uint8Array): this {
    return this.compactSize(b.length).bytes(b);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** Little-endian reader that throws `ConsensusError(TX_DECODE_TRUNCATED)` past the end. */
export class ByteReader {
  offset = 0;

  constructor(readonly data: Uint8Array) {}

  get remaining(): number {
    return this.data.length - this.offset;
  }

  private need(n: number): void {
    if (this.offset + n > this.data.length) throw new ConsensusError("TX_DECODE_TRUNCATED", "unexpected end of data");
  }

  u8(): number {
    this.need(1);
    return this.data[this.offset++]!;
  }

  u32(): number {
    this.need(4);
    const d = this.data;
    const o = this.offset;
    this.offset += 4;
    return (d[o]! | (d[o + 1]! << 8) | (d[o + 2]! << 16) | (d[o + 3]! << 24)) >>> 0;
  }

  u64(): bigint {
    const lo = BigInt(this.u32());
    const hi = BigInt(this.u32());
    return (hi << 32n) | lo;
  }

  /** CompactSize, canonical encoding enforced and capped at Core's MAX_SIZE (0x02000000). */
  compactSize(): number {
    const first = this.u8();
    let n: number;
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      n = this.u8() | (this.u8() << 8);
      if (n < 0xfd) throw new ConsensusError("TX_DECODE_NONCANONICAL", "non-canonical compact size");
    } else if (first === 0xfe) {
      n = this.u32();
      if (n < 0x10000) throw new ConsensusError("TX_DECODE_NONCANONICAL", "non-canonical compact size");
    } else {
      const big = this.u64();
      if (big < 0x100000000n) throw new ConsensusError("TX_DECODE_NONCANONICAL", "non-canonical compact size");
      throw new ConsensusError("TX_DECODE_OVERSIZE", "compact size too large");
    }
    if (n > 0x02000000) throw new ConsensusError("TX_DECODE_OVERSIZE", "compact size too large");
    return n;
  }

  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.data.slice(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  varBytes(): Uint8Array {
    return this.bytes(this.compactSize());
  }
}
