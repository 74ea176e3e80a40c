/**
 * BIP-340 Schnorr signing and verification, and BIP-341 secret-key tweaking.
 *
 * @example
 * ```ts
 * const sig = signSchnorr(msg32, secretKey);          // random aux
 * verifySchnorr(sig, msg32, xonlyPubkey);             // true
 * ```
 */
import { schnorr } from "@noble/curves/secp256k1.js";
import * as ecc from "tiny-secp256k1";
import { ProtocolError } from "./errors.js";
import { bigIntTo32, bytesToBigInt, CURVE_ORDER, Point } from "./keys.js";
import { tapTweakHash } from "./taproot.js";

/** Thrown when signing is impossible (invalid secret key, bad lengths). */
export class SigningError extends ProtocolError {}

/**
 * BIP-340 signature of a 32-byte message. `auxRand` defaults to fresh randomness; pass 32 zero
 * bytes to reproduce libsecp256k1's "no aux rand" signatures.
 */
export function signSchnorr(msg: Uint8Array, secretKey: Uint8Array, auxRand?: Uint8Array): Uint8Array {
  try {
    return schnorr.sign(msg, secretKey, auxRand);
  } catch (e) {
    throw new SigningError(`schnorr signing failed: ${(e as Error).message}`);
  }
}

/** BIP-340 verification; returns false (never throws) for any malformed input. */
export function verifySchnorr(signature: Uint8Array, msg: Uint8Array, xonlyPubkey: Uint8Array): boolean {
  if (signature.length !== 64 || xonlyPubkey.length !== 32) return false;
  try {
    // libsecp256k1 (WASM) for the protocol's 32-byte sighashes; noble for other message sizes.
    if (msg.length === 32) return ecc.isXOnlyPoint(xonlyPubkey) && ecc.verifySchnorr(msg, xonlyPubkey, signature);
    return schnorr.verify(signature, msg, xonlyPubkey);
  } catch {
    return false;
  }
}

/** BIP-341 tweaked secret key for a key-path spend of the output of `secretKey`'s x-only key. */
export function tweakSecretKey(secretKey: Uint8Array, merkleRoot: Uint8Array | null): Uint8Array {
  let d = bytesToBigInt(secretKey);
  if (d <= 0n || d >= CURVE_ORDER || secretKey.length !== 32) throw new SigningError("invalid secret key");
  const p = Point.BASE.multiply(d);
  if ((p.toAffine().y & 1n) === 1n) d = CURVE_ORDER - d;
  const t = bytesToBigInt(tapTweakHash(p.toBytes(true).slice(1), merkleRoot));
  if (t >= CURVE_ORDER) throw new SigningError("tap tweak out of range");
  const tweaked = (d + t) % CURVE_ORDER;
  if (tweaked === 0n) throw new SigningError("tweaked secret key is zero");
  return bigIntTo32(tweaked);
}
