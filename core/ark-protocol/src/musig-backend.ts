/**
 * The BIP-327 operations `musig.ts` needs from a MuSig2 implementation, and the errors they
 * throw. Two implementations exist: `musig-libsecp.ts` (libsecp256k1 through tiny-secp256k1's
 * WASM build; the default) and `musig-scure.ts` (`@scure/btc-signer`, pure JavaScript; kept as
 * a cross-check). `crypto-backend.ts` chooses between them.
 *
 * Every object crosses this interface in its BIP-327 byte form, so both implementations are
 * interchangeable mid-protocol: public nonce 66 bytes (two compressed points), secret nonce 97
 * bytes (k1 ‖ k2 ‖ the signer's compressed key), partial signature 32, final signature 64.
 * Keys are used in the order given (callers sort them).
 */
import { ProtocolError } from "./errors.js";

/** A MuSig2 failure: a malformed key, nonce or partial signature, or an invalid contribution. */
export class MusigError extends ProtocolError {}

/** The server's partial signature (or nonce) did not verify; the whole response must be rejected. */
export class MusigInvalidPartialSignatureError extends MusigError {}

/**
 * A participant's contribution is invalid (BIP-327 identifiable abort): `signer` is its index in
 * the key or nonce list as given, or null when the culprit is unknown (an aggregated nonce).
 */
export class MusigInvalidContributionError extends MusigError {
  constructor(
    readonly signer: number | null,
    readonly contribution: "pubkey" | "pubnonce" | "aggnonce" | "aggothernonce" | "psig",
    message?: string,
  ) {
    super(message ?? `invalid ${contribution}${signer === null ? "" : ` of signer ${signer}`}`);
  }
}

/** A nonce pair in BIP-327 encoding. */
export interface MusigBackendNonce {
  /** k1 ‖ k2 ‖ pubkey (97 bytes). */
  secNonce: Uint8Array;
  /** R1 ‖ R2 compressed (66 bytes). */
  pubNonce: Uint8Array;
}

/** One signing session (BIP-327 session context). */
export interface MusigBackendSession {
  /**
   * Sign: the partial signature of `secretKey`'s owner. Reads the secret nonce and overwrites its
   * first 64 bytes with zeros before anything else can fail, so it can never sign twice; checks
   * its own result with PartialSigVerifyInternal.
   *
   * `ownCheckBy: "aggregate"` is for a caller that never releases the partial signature and
   * verifies the final signature instead: it leaves out the check of the partial signature and
   * the check that `secretKey` is the key the secret nonce was made for (another key gives a final
   * signature that does not verify, so it never leaves the caller).
   */
  sign(secNonce: Uint8Array, secretKey: Uint8Array, ownCheckBy?: "aggregate"): Uint8Array;
  /** PartialSigVerify of signer `index`; `pubNonces` aligned with the session's keys. */
  partialSigVerify(partialSig: Uint8Array, pubNonces: readonly Uint8Array[], index: number): boolean;
  /**
   * PartialSigVerifyInternal of signer `index` with its public nonce, against the session's
   * aggregated nonce: for a caller that aggregated the nonces itself (so the aggregate need not
   * be recomputed from every participant's nonce for each signer).
   */
  partialSigVerifyInternal(partialSig: Uint8Array, pubNonce: Uint8Array, index: number): boolean;
  /** PartialSigAgg: the 64-byte BIP-340 signature; one partial per participant. */
  partialSigAgg(partialSigs: readonly Uint8Array[]): Uint8Array;
}

/** A BIP-327 implementation. */
export interface MusigBackend {
  /** KeyAgg followed by ApplyTweak for each tweak: the compressed (33-byte) aggregate key Q. */
  keyAgg(pubkeys: readonly Uint8Array[], tweaks: readonly Uint8Array[], isXonly: readonly boolean[]): Uint8Array;
  /** NonceGen with caller-supplied 32 bytes of randomness (`rand′`). */
  nonceGen(pubkey: Uint8Array, secretKey: Uint8Array | undefined, aggPubkeyXOnly: Uint8Array | undefined, message: Uint8Array | undefined, extraIn: Uint8Array | undefined, rand: Uint8Array): MusigBackendNonce;
  /** NonceAgg. */
  nonceAgg(pubNonces: readonly Uint8Array[]): Uint8Array;
  /** A session over `aggNonce`, the keys (order as given), the message and the tweaks. */
  session(aggNonce: Uint8Array, pubkeys: readonly Uint8Array[], message: Uint8Array, tweaks: readonly Uint8Array[], isXonly: readonly boolean[]): MusigBackendSession;
  /** DeterministicSign: public nonce and partial signature, no nonce state. */
  deterministicSign(secretKey: Uint8Array, aggOtherNonce: Uint8Array, pubkeys: readonly Uint8Array[], message: Uint8Array, tweaks: readonly Uint8Array[], isXonly: readonly boolean[], rand?: Uint8Array): { pubNonce: Uint8Array; partialSig: Uint8Array };
}
