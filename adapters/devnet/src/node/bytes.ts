/** Small byte helpers of the node: hex in display order, double SHA-256, little-endian integers. */
import { sha256 } from "@noble/hashes/sha2.js";
import { InvalidInputError } from "./node-errors.js";

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Lowercase hex of `bytes`. */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Bytes of a hex string; throws {@link InvalidInputError} on anything but even-length hex. */
export function unhex(text: string): Uint8Array {
  if (!HEX.test(text)) throw new InvalidInputError(`invalid hex string (${text.length} chars)`);
  return new Uint8Array(Buffer.from(text, "hex"));
}

/** Raw bytes from bytes or hex. */
export function asBytes(raw: Uint8Array | string): Uint8Array {
  return typeof raw === "string" ? unhex(raw) : raw;
}

/** Display hex (byte-reversed) of an internal-order hash. */
export function displayHex(hash: Uint8Array): string {
  return hex(Uint8Array.from(hash).reverse());
}

/** Internal-order bytes of a display-order 32-byte hash; throws {@link InvalidInputError} when malformed. */
export function internalFromDisplay(text: string): Uint8Array {
  if (text.length !== 64) throw new InvalidInputError(`expected a 32-byte hash in hex, got ${text.length} chars`);
  return unhex(text).reverse();
}

/** Double SHA-256. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

/** Single SHA-256. */
export function sha256once(data: Uint8Array): Uint8Array {
  return sha256(data);
}

/** Concatenation of all parts. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Byte-wise equality. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** 4-byte little-endian encoding of an unsigned 32-bit number. */
export function u32le(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, true);
  return b;
}

/** 8-byte little-endian encoding of an unsigned 64-bit number. */
export function u64le(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, n), true);
  return b;
}

/** CompactSize encoding of `n`. */
export function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return concat(Uint8Array.of(0xfe), u32le(n));
}

/** Minimal script push of `data` (direct push or OP_PUSHDATA1/2). */
export function pushData(data: Uint8Array): Uint8Array {
  if (data.length < 0x4c) return concat(Uint8Array.of(data.length), data);
  if (data.length <= 0xff) return concat(Uint8Array.of(0x4c, data.length), data);
  return concat(Uint8Array.of(0x4d, data.length & 0xff, data.length >> 8), data);
}

/** Script-number push of a non-negative integer, as Core's `CScript() << n` (OP_0, OP_1..OP_16, or minimal bytes). */
export function pushNumber(n: number): Uint8Array {
  if (n === 0) return Uint8Array.of(0x00);
  if (n >= 1 && n <= 16) return Uint8Array.of(0x50 + n);
  const bytes: number[] = [];
  let v = n;
  while (v > 0) {
    bytes.push(v & 0xff);
    v = Math.floor(v / 256);
  }
  if ((bytes[bytes.length - 1]! & 0x80) !== 0) bytes.push(0);
  return pushData(Uint8Array.from(bytes));
}
