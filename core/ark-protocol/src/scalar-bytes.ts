/** Scalars and coordinates as 32-byte big-endian integers (a leaf module: the point operations and the keys both use it). */

/** Big-endian integer of `bytes`. 32 bytes (every scalar and coordinate) are read as four 64-bit words. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 32) {
    const d = new DataView(bytes.buffer, bytes.byteOffset, 32);
    return (d.getBigUint64(0) << 192n) | (d.getBigUint64(8) << 128n) | (d.getBigUint64(16) << 64n) | d.getBigUint64(24);
  }
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/** 32-byte big-endian encoding of `v` (0 ≤ v < 2^256; otherwise its low 256 bits, two's complement). */
export function bigIntTo32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  const d = new DataView(out.buffer);
  d.setBigUint64(0, BigInt.asUintN(64, v >> 192n));
  d.setBigUint64(8, BigInt.asUintN(64, v >> 128n));
  d.setBigUint64(16, BigInt.asUintN(64, v >> 64n));
  d.setBigUint64(24, BigInt.asUintN(64, v));
  return out;
}

/** The order n of the secp256k1 group, 32 bytes big-endian. */
const CURVE_ORDER_BYTES = Uint8Array.from([
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
  0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
]);

/**
 * Whether 32 big-endian bytes are an integer below the secp256k1 group order (a scalar a tweak,
 * a secret key or a signature's `s` may be; 0 included), compared byte by byte: the range checks of
 * decoding no longer build a bigint for each tweak of a chain. False for any other length.
 */
export function belowCurveOrder(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  for (let i = 0; i < 32; i++) {
    const a = bytes[i]!;
    const b = CURVE_ORDER_BYTES[i]!;
    if (a !== b) return a < b;
  }
  return false;
}
