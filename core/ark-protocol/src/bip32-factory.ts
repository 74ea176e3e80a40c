/**
 * The `bip32` package's API on the core's secp256k1 operations (`secp256k1-ops.ts`): every BIP-32
 * derivation of the wallet (its master key, the VTXO keys `m/350'/0'/i`, the BIP-86 on-chain
 * keys) uses this one instance.
 *
 * Derivation needs a point from a scalar (each key's public key) and a point plus a scalar
 * (public child keys): those run on the native addon where it loads, 4–5× faster than WASM; a
 * wallet derives a change key for every payment. Secret-key arithmetic and ECDSA stay on
 * tiny-secp256k1 (libsecp256k1 as WASM) as before. `bip32` checks the operations it is given
 * against known answers when the factory is built, and `test/bip32-factory.test.ts` compares
 * derivations with a `bip32` on tiny-secp256k1 alone.
 */
import { BIP32Factory, type BIP32API } from "bip32";
import * as wasm from "tiny-secp256k1";
import { ecc } from "./secp256k1-ops.js";

/** `bip32`'s secp256k1 interface: public-point operations from {@link ecc}, the rest from tiny-secp256k1. */
export const bip32Ecc = {
  isPoint: (p: Uint8Array) => ecc.isPoint(p),
  isPrivate: (d: Uint8Array) => wasm.isPrivate(d),
  pointFromScalar: (d: Uint8Array, compressed?: boolean) => ecc.pointFromScalar(d, compressed),
  pointAddScalar: (p: Uint8Array, tweak: Uint8Array, compressed?: boolean) => ecc.pointAddScalar(p, tweak, compressed),
  privateAdd: (d: Uint8Array, tweak: Uint8Array) => ecc.privateAdd(d, tweak),
  privateNegate: (d: Uint8Array) => ecc.privateNegate(d),
  xOnlyPointAddTweak: (p: Uint8Array, tweak: Uint8Array) => ecc.xOnlyPointAddTweak(p, tweak),
  sign: (h: Uint8Array, d: Uint8Array, e?: Uint8Array) => wasm.sign(h, d, e),
  verify: (h: Uint8Array, q: Uint8Array, signature: Uint8Array, strict?: boolean) => wasm.verify(h, q, signature, strict),
  signSchnorr: (h: Uint8Array, d: Uint8Array, e?: Uint8Array) => ecc.signSchnorr(h, d, e),
  verifySchnorr: (h: Uint8Array, q: Uint8Array, signature: Uint8Array) => ecc.verifySchnorr(h, q, signature),
};

/** BIP-32 (`fromSeed`, `fromBase58`, …) on {@link bip32Ecc}. */
export const bip32: BIP32API = BIP32Factory(bip32Ecc);
