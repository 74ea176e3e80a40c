/**
 * Public keys, x-only keys and MuSig2 key aggregation (BIP-327 KeySort and KeyAgg).
 *
 * Pubkeys are 33-byte compressed SEC1 encodings; x-only keys are the 32-byte BIP-340 form.
 * {@link aggregateXOnly} is BIP-327 KeySort + KeyAgg, returning the x-only of the untweaked
 * aggregate point, which the protocol uses as taproot internal key of every co-signed output.
 *
 * @example
 * ```ts
 * const agg = aggregateXOnly([userPubkey, serverPubkey]); // order does not matter
 * ```
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { ecc } from "./secp256k1-ops.js";
import { ProtocolDecodeError } from "./errors.js";
import { ByteReader, ByteWriter, bytesEqual, compareBytes, concatBytes, toHex } from "./encoding.js";
import { taggedHash } from "./hashes.js";
import { BytesMemo } from "./bytes-memo.js";
import { bigIntTo32, bytesToBigInt } from "./scalar-bytes.js";

/** The secp256k1 point class used throughout the protocol core. */
export const Point = secp256k1.Point;
/** A secp256k1 point. */
export type Point = InstanceType<typeof secp256k1.Point>;
/** Order of the secp256k1 group. */
export const CURVE_ORDER = Point.Fn.ORDER;

export { bigIntTo32, bytesToBigInt };

// Decompressing a key costs a modular square root; VTXOs repeat the same few keys, so valid
// points are memoised (bounded; points are immutable values).
const POINT_CACHE_MAX = 4096;
const pointCache = new BytesMemo<Point>(POINT_CACHE_MAX);
// Encodings already found valid (33-byte compressed or 32-byte x-only; bounded): a VTXO's chain
// repeats the same keys, and checking one needs no point object.
const validKeys = new BytesMemo<true>(POINT_CACHE_MAX);

/**
 * Whether `bytes` is a 33-byte compressed encoding of a curve point (libsecp256k1's check; no
 * point object is built). For keys and nonces seen once, where {@link pubkeyToPoint}'s memoised
 * decompression would cost a square root in JavaScript for nothing.
 */
export function isCompressedPoint(bytes: Uint8Array): boolean {
  return bytes.length === 33 && (bytes[0] === 2 || bytes[0] === 3) && ecc.isPoint(bytes);
}

/** `−P` of a compressed point: the same x with the other y parity (a new array). */
export function negateCompressed(p: Uint8Array): Uint8Array {
  const q = Uint8Array.from(p);
  q[0] = p[0] === 2 ? 3 : 2;
  return q;
}

/** Decodes a 33-byte compressed pubkey to a point; throws {@link ProtocolDecodeError} if invalid. */
export function pubkeyToPoint(pubkey: Uint8Array): Point {
  if (pubkey.length !== 33 || (pubkey[0] !== 2 && pubkey[0] !== 3)) {
    throw new ProtocolDecodeError("invalid public key encoding");
  }
  const cached = pointCache.get(pubkey);
  if (cached) return cached;
  let p: Point;
  try {
    p = Point.fromBytes(pubkey);
  } catch {
    throw new ProtocolDecodeError("invalid public key: not on the curve");
  }
  pointCache.set(pubkey, p);
  return p;
}

/**
 * Throws {@link ProtocolDecodeError} unless `pubkey` is a 33-byte compressed encoding of a curve
 * point, as {@link pubkeyToPoint} would, without building a point (libsecp256k1 parses it).
 */
function checkPubkey(pubkey: Uint8Array): void {
  if (pubkey.length !== 33 || (pubkey[0] !== 2 && pubkey[0] !== 3)) {
    throw new ProtocolDecodeError("invalid public key encoding");
  }
  checkRemembered(pubkey, (p) => ecc.isPoint(p), "invalid public key: not on the curve");
}

/** Throws {@link ProtocolDecodeError} `message` unless `bytes` were found valid before or `valid` says so now (then they are remembered). */
function checkRemembered(bytes: Uint8Array, valid: (b: Uint8Array) => boolean, message: string): void {
  if (validKeys.get(bytes) || pointCache.get(bytes)) return;
  if (!valid(bytes)) throw new ProtocolDecodeError(message);
  validKeys.set(bytes, true);
}

/** Validates a 33-byte compressed pubkey and returns it. */
export function parsePubkey(pubkey: Uint8Array): Uint8Array {
  checkPubkey(pubkey);
  return pubkey;
}

/** Validates a 32-byte x-only key (must be the x coordinate of a curve point) and returns it. */
export function parseXOnly(xonly: Uint8Array): Uint8Array {
  if (xonly.length !== 32) throw new ProtocolDecodeError("x-only key must be 32 bytes");
  checkRemembered(xonly, (x) => ecc.isXOnlyPoint(x), "invalid x-only key");
  return xonly;
}

/** x-only (32 bytes) form of a compressed pubkey. */
export function toXOnly(pubkey: Uint8Array): Uint8Array {
  if (pubkey.length !== 33) throw new ProtocolDecodeError("pubkey must be 33 bytes");
  return pubkey.slice(1);
}

/** Compressed (33-byte) encoding of a point. */
export function pointToPubkey(p: Point): Uint8Array {
  return p.toBytes(true);
}

/** x-only encoding of a point. */
export function pointToXOnly(p: Point): Uint8Array {
  return p.toBytes(true).slice(1);
}

/** Compressed pubkey of a 32-byte secret key. */
export function pubkeyFromSecret(secretKey: Uint8Array): Uint8Array {
  // libsecp256k1's constant-time generator multiplication; throws for a scalar that is 0 or ≥ n
  const pk = ecc.pointFromScalar(secretKey, true);
  if (!pk) throw new RangeError("secret key is not a valid scalar");
  return pk;
}

/** Reads a 33-byte pubkey and checks it is a valid point. */
export function readPubkey(r: ByteReader): Uint8Array {
  return parsePubkey(r.bytes(33));
}

/** Writes a 33-byte pubkey. */
export function writePubkey(w: ByteWriter, pubkey: Uint8Array): ByteWriter {
  if (pubkey.length !== 33) throw new RangeError("pubkey must be 33 bytes");
  return w.bytes(pubkey);
}

/** Reads an optional pubkey: `0x00` for none, else the 33 key bytes (first byte doubles as tag). */
export function readOptionalPubkey(r: ByteReader): Uint8Array | null {
  if (r.peekU8() === 0) {
    r.u8();
    return null;
  }
  return readPubkey(r);
}

/** Writes an optional pubkey (`0x00` when absent). */
export function writeOptionalPubkey(w: ByteWriter, pubkey: Uint8Array | null): ByteWriter {
  return pubkey ? writePubkey(w, pubkey) : w.u8(0);
}

/** Reads a 32-byte x-only key and checks it is a valid x coordinate. */
export function readXOnly(r: ByteReader): Uint8Array {
  return parseXOnly(r.bytes(32));
}

/** BIP-327 KeySort: pubkeys sorted by their 33-byte encoding (returns a new array). */
export function sortPubkeys(pubkeys: readonly Uint8Array[]): Uint8Array[] {
  return [...pubkeys].sort(compareBytes);
}

/**
 * BIP-327 KeyAgg of `pubkeys` in the given order (no sorting); returns the compressed
 * untweaked aggregate key. Throws {@link ProtocolDecodeError} for an empty list, an invalid key
 * or an infinite sum. The protocol always sorts first: use {@link aggregatePubkey}.
 */
export function keyAggUnsorted(pubkeys: readonly Uint8Array[]): Uint8Array {
  if (pubkeys.length === 0) throw new ProtocolDecodeError("cannot aggregate an empty key list");
  for (const pk of pubkeys) checkPubkey(pk);
  const cacheKey = pubkeys.map(toHex).join("");
  const cached = keyAggCache.get(cacheKey);
  if (cached) return Uint8Array.from(cached);
  const agg = Uint8Array.from(computeKeyAgg(pubkeys));
  if (keyAggCache.size >= KEY_AGG_CACHE_MAX) keyAggCache.clear();
  keyAggCache.set(cacheKey, agg);
  return Uint8Array.from(agg);
}

// The same few key lists (a user key with the server key, a tree node's cosigners) are
// aggregated again for every output and every rebuilt exit chain: results are memoised
// (bounded; public data, keyed by the ordered list).
const KEY_AGG_CACHE_MAX = 4096;
const keyAggCache = new Map<string, Uint8Array>();

function computeKeyAgg(pubkeys: readonly Uint8Array[]): Uint8Array {
  const list = taggedHash("KeyAgg list", concatBytes(...pubkeys));
  const second = pubkeys.find((k) => !bytesEqual(k, pubkeys[0]!));
  let acc: Uint8Array | null = null;
  for (const pk of pubkeys) {
    let term: Uint8Array | null = pk;
    if (!(second && bytesEqual(pk, second))) {
      const coef = bytesToBigInt(taggedHash("KeyAgg coefficient", list, pk)) % CURVE_ORDER;
      term = coef === 0n ? null : ecc.pointMultiply(pk, bigIntTo32(coef), true);
    }
    if (!term) continue;
    // pointAdd returns null for the point at infinity; an infinite partial sum restarts from the next term.
    acc = acc ? ecc.pointAdd(acc, term, true) : term;
  }
  if (!acc) throw new ProtocolDecodeError("aggregate key is the point at infinity");
  return acc;
}

/** BIP-327 KeySort + KeyAgg: the compressed untweaked aggregate of `pubkeys` (order irrelevant). */
export function aggregatePubkey(pubkeys: readonly Uint8Array[]): Uint8Array {
  return keyAggUnsorted(sortPubkeys(pubkeys));
}

/** KeySort + KeyAgg as a point. */
export function aggregatePoint(pubkeys: readonly Uint8Array[]): Point {
  return pubkeyToPoint(aggregatePubkey(pubkeys));
}

/** x-only of the untweaked BIP-327 aggregate of `pubkeys` (sorted first: key order never matters). */
export function aggregateXOnly(pubkeys: readonly Uint8Array[]): Uint8Array {
  return aggregatePubkey(pubkeys).slice(1);
}
