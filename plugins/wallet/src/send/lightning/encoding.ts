/**
 * Small encodings shared by the Lightning decoders: bech32 5-bit groups to bytes, feature bit
 * vectors, strict UTF-8 and secp256k1 point checks. Pure functions; errors are plain `Error`s
 * that the decoders turn into their typed error.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";

/** The bech32 alphabet: the character at index v stands for the 5-bit value v. */
export const BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

const CHAR_VALUE = new Map<string, number>([...BECH32_CHARSET].map((c, i) => [c, i]));

/** The 5-bit value of a lowercase bech32 character, `undefined` for any other character. */
export function bech32CharValue(c: string): number | undefined {
  return CHAR_VALUE.get(c);
}

/**
 * Packs 5-bit groups into bytes, big-endian. Strict (the bech32 rule for data that was bytes): the
 * bits left over after the last whole byte must be fewer than 5 and all zero, otherwise throws.
 * With `pad`, a final partial byte is completed with zero bits instead (how BOLT 11 builds the
 * data it signs).
 */
export function wordsToBytes(words: ArrayLike<number>, pad = false): Uint8Array {
  const out = new Uint8Array(pad ? Math.ceil((words.length * 5) / 8) : Math.floor((words.length * 5) / 8));
  let acc = 0;
  let bits = 0;
  let n = 0;
  for (let i = 0; i < words.length; i++) {
    acc = ((acc << 5) | words[i]!) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  if (pad) {
    if (bits > 0) out[n++] = (acc << (8 - bits)) & 0xff;
  } else {
    if (bits >= 5) throw new Error("excess padding bits");
    if ((acc & ((1 << bits) - 1)) !== 0) throw new Error("non-zero padding bits");
  }
  return out;
}

/** A big-endian unsigned integer written as 5-bit groups. */
export function wordsToBigInt(words: ArrayLike<number>): bigint {
  let v = 0n;
  for (let i = 0; i < words.length; i++) v = (v << 5n) | BigInt(words[i]!);
  return v;
}

/** The numbers of the bits set in a feature vector given as 5-bit groups (bit 0 is the lowest bit of the last group). */
export function featureBitsFromWords(words: ArrayLike<number>): number[] {
  const bits: number[] = [];
  for (let i = words.length - 1, base = 0; i >= 0; i--, base += 5) {
    for (let b = 0; b < 5; b++) if ((words[i]! >> b) & 1) bits.push(base + b);
  }
  return bits;
}

/** The numbers of the bits set in a feature vector given as bytes (bit 0 is the lowest bit of the last byte). */
export function featureBitsFromBytes(bytes: Uint8Array): number[] {
  const bits: number[] = [];
  for (let i = bytes.length - 1, base = 0; i >= 0; i--, base += 8) {
    for (let b = 0; b < 8; b++) if ((bytes[i]! >> b) & 1) bits.push(base + b);
  }
  return bits;
}

/**
 * The feature bits a reader must refuse ("it's OK to be odd"): a set even bit whose feature the
 * reader does not know. Each feature has the bit pair 2k (required) / 2k+1 (optional); `known`
 * lists either bit of the pairs understood.
 */
export function unknownRequiredBits(bits: readonly number[], known: ReadonlySet<number>): number[] {
  return bits.filter((b) => b % 2 === 0 && !known.has(b) && !known.has(b + 1));
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes UTF-8, throwing on any invalid or truncated sequence. */
export function utf8Strict(bytes: Uint8Array): string {
  return UTF8.decode(bytes);
}

/** Whether `bytes` is a compressed secp256k1 public key of a point on the curve. */
export function isCompressedPoint(bytes: Uint8Array): boolean {
  if (bytes.length !== 33 || (bytes[0] !== 2 && bytes[0] !== 3)) return false;
  try {
    secp256k1.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}
