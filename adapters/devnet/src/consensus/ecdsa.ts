/** Signature verification as Core does it: lax DER ECDSA (libsecp256k1 via tiny-secp256k1) and BIP-340 Schnorr. */
import * as secp from "tiny-secp256k1";

/**
 * Core's `ecdsa_signature_parse_der_lax`: accepts BER-ish encodings seen in old transactions.
 * Returns the 64-byte compact r‖s (all zero when r or s overflow, so verification fails), or
 * `undefined` when the structure cannot be parsed at all.
 */
export function parseDerLax(input: Uint8Array): Uint8Array | undefined {
  const len = input.length;
  let pos = 0;
  if (pos === len || input[pos] !== 0x30) return undefined;
  pos++;
  if (pos === len) return undefined;
  let lenbyte = input[pos++]!;
  if ((lenbyte & 0x80) !== 0) {
    lenbyte -= 0x80;
    if (lenbyte > len - pos) return undefined;
    pos += lenbyte;
  }
  const readInt = (): { at: number; size: number } | undefined => {
    if (pos === len || input[pos] !== 0x02) return undefined;
    pos++;
    if (pos === len) return undefined;
    let lb = input[pos++]!;
    let size: number;
    if ((lb & 0x80) !== 0) {
      lb -= 0x80;
      if (lb > len - pos) return undefined;
      while (lb > 0 && input[pos] === 0) {
        pos++;
        lb--;
      }
      if (lb >= 4) return undefined;
      size = 0;
      while (lb > 0) {
        size = size * 256 + input[pos]!;
        pos++;
        lb--;
      }
    } else {
      size = lb;
    }
    if (size > len - pos) return undefined;
    const at = pos;
    pos += size;
    return { at, size };
  };
  const r = readInt();
  if (r === undefined) return undefined;
  const s = readInt();
  if (s === undefined) return undefined;
  const out = new Uint8Array(64);
  let overflow = false;
  const place = (v: { at: number; size: number }, offset: number): void => {
    let { at, size } = v;
    while (size > 0 && input[at] === 0) {
      at++;
      size--;
    }
    if (size > 32) overflow = true;
    else out.set(input.subarray(at, at + size), offset + 32 - size);
  };
  place(r, 0);
  place(s, 32);
  if (!overflow && (!belowOrder(out.subarray(0, 32)) || !belowOrder(out.subarray(32)))) overflow = true;
  return overflow ? new Uint8Array(64) : out;
}

const ORDER = Uint8Array.from(Buffer.from("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", "hex"));

function belowOrder(x: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) {
    if (x[i]! < ORDER[i]!) return true;
    if (x[i]! > ORDER[i]!) return false;
  }
  return false;
}

/** Byte length a public key must have given its first byte (Core's `CPubKey::GetLen`), 0 if invalid. */
function pubkeyLength(header: number): number {
  if (header === 2 || header === 3) return 33;
  if (header === 4 || header === 6 || header === 7) return 65;
  return 0;
}

/** Normalizes a key libsecp256k1 would parse (incl. hybrid 06/07) into a form tiny-secp256k1 takes; undefined if invalid. */
function normalizePubkey(key: Uint8Array): Uint8Array | undefined {
  if (key.length === 0 || pubkeyLength(key[0]!) !== key.length) return undefined;
  if (key[0] === 6 || key[0] === 7) {
    if ((key[64]! & 1) !== (key[0]! & 1)) return undefined;
    const k = Uint8Array.from(key);
    k[0] = 4;
    return k;
  }
  return key;
}

/** Core's `CPubKey::Verify`: lax-DER signature (no hash-type byte), S normalized, any valid key encoding. */
export function verifyEcdsa(derSig: Uint8Array, pubkey: Uint8Array, hash: Uint8Array): boolean {
  const key = normalizePubkey(pubkey);
  if (key === undefined) return false;
  const compact = parseDerLax(derSig);
  if (compact === undefined) return false;
  try {
    return secp.verify(hash, key, compact, false);
  } catch {
    return false;
  }
}

/** BIP-340 verification of a 64-byte signature under a 32-byte x-only key; false for any invalid input. */
export function verifySchnorr(sig64: Uint8Array, xonly: Uint8Array, hash: Uint8Array): boolean {
  try {
    return secp.verifySchnorr(hash, xonly, sig64);
  } catch {
    return false;
  }
}

/**
 * Whether `outputKey` is `internalKey` tweaked by `tweak` with the given parity (Core's `CheckTapTweak`).
 * False when the internal key is not on the curve or the tweak is out of range.
 */
export function checkTapTweak(internalKey: Uint8Array, tweak: Uint8Array, outputKey: Uint8Array, parity: number): boolean {
  try {
    return secp.xOnlyPointAddTweakCheck(internalKey, tweak, outputKey, parity === 1 ? 1 : 0);
  } catch {
    return false;
  }
}
