/**
 * BIP-340 Schnorr signing and verification, and BIP-341 secret-key tweaking. 32-byte messages
 * (every sighash) run on libsecp256k1 (`secp256k1-ops.ts`: signing on its WASM build, verification
 * on its native addon where it loads); other message sizes, and everything
 * when tests select the `pure-js` backend (`crypto-backend.ts`), on `@noble/curves`.
 *
 * @example
 * ```ts
 * const sig = signSchnorr(msg32, secretKey);          // random aux
 * verifySchnorr(sig, msg32, xonlyPubkey);             // true
 * ```
 */
import { schnorr } from "@noble/curves/secp256k1.js";
import { randomBytes } from "@noble/hashes/utils.js";
import { ecc } from "./secp256k1-ops.js";
import { cryptoBackend } from "./crypto-backend.js";
import { bytesEqualAt, bytesKey } from "./encoding.js";
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
    if (msg.length === 32 && cryptoBackend() === "libsecp256k1") {
      if (auxRand !== undefined && auxRand.length !== 32) throw new Error("aux randomness must be 32 bytes");
      const sig = ecc.signSchnorr(msg, secretKey, auxRand ?? randomBytes(32));
      // As Bitcoin Core does after signing with libsecp256k1: never release a faulty signature.
      if (!ecc.verifySchnorr(msg, ecc.xOnlyPointFromScalar(secretKey), sig)) throw new Error("signature does not verify");
      return sig;
    }
    return schnorr.sign(msg, secretKey, auxRand);
  } catch (e) {
    throw new SigningError(`schnorr signing failed: ${(e as Error).message}`);
  }
}

/**
 * Signatures that verified, by signature (its bytes as a key, one character each) → the message
 * and key they verified for. A VTXO's exit chain is checked again whenever it is registered,
 * received or extended, and the chains of one wallet's VTXOs share their prefix: each signature
 * of that prefix is verified once. Only successes are kept, and a hit needs the same signature,
 * message and key, so the answer is the one a fresh verification would give. Bounded (oldest first
 * out); public data only.
 */
const VERIFIED_MAX = 16_384;
const verified = new Map<string, Uint8Array>();

function verifiedBefore(key: string, msg: Uint8Array, xonlyPubkey: Uint8Array): boolean {
  const seen = verified.get(key);
  return seen !== undefined && bytesEqualAt(seen, 0, msg) && bytesEqualAt(seen, 32, xonlyPubkey);
}

function rememberVerified(key: string, msg: Uint8Array, xonlyPubkey: Uint8Array): void {
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  const entry = new Uint8Array(64);
  entry.set(msg, 0);
  entry.set(xonlyPubkey, 32);
  verified.set(key, entry);
}

/** How many verified signatures are remembered (for tests). */
export function rememberedSchnorrVerifications(): number {
  return verified.size;
}

/** Forgets every remembered verification (benches measure a first verification with it). */
export function forgetSchnorrVerifications(): void {
  verified.clear();
}

/** BIP-340 verification; returns false (never throws) for any malformed input. */
export function verifySchnorr(signature: Uint8Array, msg: Uint8Array, xonlyPubkey: Uint8Array): boolean {
  if (signature.length !== 64 || xonlyPubkey.length !== 32) return false;
  try {
    // libsecp256k1 for the protocol's 32-byte sighashes; noble for other message sizes.
    if (msg.length === 32 && cryptoBackend() === "libsecp256k1") {
      const key = bytesKey(signature);
      if (verifiedBefore(key, msg, xonlyPubkey)) return true;
      const ok = ecc.isXOnlyPoint(xonlyPubkey) && ecc.verifySchnorr(msg, xonlyPubkey, signature);
      if (ok) rememberVerified(key, msg, xonlyPubkey);
      return ok;
    }
    return schnorr.verify(signature, msg, xonlyPubkey);
  } catch {
    return false;
  }
}

/** BIP-341 tweaked secret key for a key-path spend of the output of `secretKey`'s x-only key. */
export function tweakSecretKey(secretKey: Uint8Array, merkleRoot: Uint8Array | null): Uint8Array {
  let d = bytesToBigInt(secretKey);
  if (d <= 0n || d >= CURVE_ORDER || secretKey.length !== 32) throw new SigningError("invalid secret key");
  if (cryptoBackend() === "libsecp256k1") return tweakSecretKeyLibsecp(secretKey, merkleRoot);
  const p = Point.BASE.multiply(d);
  if ((p.toAffine().y & 1n) === 1n) d = CURVE_ORDER - d;
  const t = bytesToBigInt(tapTweakHash(p.toBytes(true).slice(1), merkleRoot));
  if (t >= CURVE_ORDER) throw new SigningError("tap tweak out of range");
  const tweaked = (d + t) % CURVE_ORDER;
  if (tweaked === 0n) throw new SigningError("tweaked secret key is zero");
  return bigIntTo32(tweaked);
}

function tweakSecretKeyLibsecp(secretKey: Uint8Array, merkleRoot: Uint8Array | null): Uint8Array {
  const p = ecc.pointFromScalar(secretKey, true) as Uint8Array;
  const d = p[0] === 3 ? ecc.privateNegate(secretKey) : secretKey;
  const t = tapTweakHash(p.slice(1), merkleRoot);
  if (bytesToBigInt(t) >= CURVE_ORDER) throw new SigningError("tap tweak out of range");
  const tweaked = ecc.privateAdd(d, t);
  if (!tweaked) throw new SigningError("tweaked secret key is zero");
  return tweaked;
}
