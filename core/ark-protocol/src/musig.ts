/**
 * MuSig2 (BIP-327) as the Ark protocol uses it (bark's `ark::musig`). The BIP-327 operations run
 * on a backend (`musig-backend.ts`): libsecp256k1 by default (`musig-libsecp.ts`), or
 * `@scure/btc-signer`'s pure JavaScript (`musig-scure.ts`) when tests or the benchmark select it
 * (`crypto-backend.ts`). Callers never see which one runs.
 *
 * | Rule | Here |
 * |---|---|
 * | KeySort | always: every function sorts the participant keys itself, call order never matters |
 * | internal key | {@link musigAggregateKey}: x-only of the untweaked KeyAgg point |
 * | key-path spends | one x-only tweak = the spent output's TapTweak ({@link musigTweakedKey}) |
 * | script-path co-signatures | no tweak |
 * | sizes | public nonce 66 bytes, aggregated nonce 66, secret nonce 97, partial signature 32 |
 * | nonces | fresh 32 random bytes per nonce (plus key, aggregate key, message, extra input mixed in); the secret half lives only in memory and is zeroed when it signs |
 *
 * @example
 * ```ts
 * const nonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, message: sighash });
 * // server: answers with its nonce and partial signature
 * const resp = musigRespondCosign({ secretKey: serverSk, pubkey: serverPk, otherPubkey: userPk, otherPubNonce: nonce.pubNonce, message: sighash, tweak });
 * // user: verifies the partial and completes the 64-byte signature
 * const sig = musigCompleteCosign({ secretKey: userSk, pubkey: userPk, nonce, otherPubkey: serverPk, response: resp, message: sighash, tweak });
 * ```
 */
import { randomBytes } from "@noble/hashes/utils.js";
import { compareBytes } from "./encoding.js";
import { ProtocolError } from "./errors.js";
import { cryptoBackend } from "./crypto-backend.js";
import { verifySchnorr } from "./schnorr.js";
import { MusigError, MusigInvalidPartialSignatureError, type MusigBackend, type MusigBackendSession } from "./musig-backend.js";
import { libsecpMusig } from "./musig-libsecp.js";
import { scureMusig } from "./musig-scure.js";

export { MusigError, MusigInvalidPartialSignatureError };

/** The MuSig2 implementation selected by `crypto-backend.ts`. */
function backend(): MusigBackend {
  return cryptoBackend() === "pure-js" ? scureMusig : libsecpMusig;
}

/** Byte sizes of MuSig2 objects. */
export const MUSIG_PUB_NONCE_SIZE = 66;
/** Secret nonce size (BIP-327: k1 ‖ k2 ‖ pubkey). */
export const MUSIG_SEC_NONCE_SIZE = 97;
/** Partial signature size. */
export const MUSIG_PARTIAL_SIG_SIZE = 32;

/** A fresh nonce pair. The secret half must be used for exactly one signature. */
export interface MusigNonce {
  /** 97 bytes; zeroed by {@link MusigSession.sign}. Never persist or copy it. */
  readonly secNonce: Uint8Array;
  /** 66 bytes, shared with the other signers. */
  readonly pubNonce: Uint8Array;
}

function wrap<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    throw new MusigError(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Sorts 33-byte compressed keys lexicographically (BIP-327 KeySort); returns a new array. */
export function musigSortKeys(pubkeys: readonly Uint8Array[]): Uint8Array[] {
  for (const k of pubkeys) if (k.length !== 33) throw new MusigError(`musig key must be 33 bytes, got ${k.length}`);
  return [...pubkeys].sort(compareBytes);
}

/**
 * x-only aggregate of the sorted keys, without tweak: the taproot internal key of every
 * co-signed output ("agg(U, S)": user and server). The libsecp256k1 backend uses the core's
 * memoised KeyAgg (`keys.ts`).
 */
export function musigAggregateKey(pubkeys: readonly Uint8Array[]): Uint8Array {
  const sorted = musigSortKeys(pubkeys);
  return wrap("key aggregation", () => backend().keyAgg(sorted, [], []).slice(1));
}

/**
 * x-only aggregate of the sorted keys after one x-only tweak (BIP-327 ApplyTweak with
 * is_xonly): the taproot output key when `tweak` is the output's TapTweak.
 */
export function musigTweakedKey(pubkeys: readonly Uint8Array[], tweak: Uint8Array): Uint8Array {
  const sorted = musigSortKeys(pubkeys);
  if (tweak.length !== 32) throw new MusigError(`tweak must be 32 bytes, got ${tweak.length}`);
  return wrap("key tweak", () => backend().keyAgg(sorted, [tweak], [true]).slice(1));
}

/** Inputs mixed into nonce generation; all but `pubkey` optional (BIP-327 NonceGen). */
export interface MusigNonceGenInput {
  /** The signer's 33-byte public key. */
  pubkey: Uint8Array;
  /** The signer's secret key (blinds the randomness). */
  secretKey?: Uint8Array;
  /** x-only aggregate key (tweaked or not) the nonce will be used under. */
  aggregateKey?: Uint8Array;
  /** The 32-byte message (sighash); binds the nonce to it. */
  message?: Uint8Array;
  /** Extra input (e.g. a sighash for message-bound forfeit nonces). */
  extra?: Uint8Array;
  /** 32 bytes of randomness; generated when absent. Tests pass fixed bytes. */
  rand?: Uint8Array;
}

/**
 * BIP-327 NonceGen with fresh randomness (32 bytes from the platform CSPRNG unless the caller
 * passes `rand`, which only tests do).
 */
export function musigNonceGen(input: MusigNonceGenInput): MusigNonce {
  if (input.rand !== undefined && input.rand.length !== 32) throw new MusigError("nonce randomness must be 32 bytes");
  const rand = input.rand ?? randomBytes(32);
  const n = wrap("nonce generation", () =>
    backend().nonceGen(input.pubkey, input.secretKey, input.aggregateKey, input.message, input.extra, rand),
  );
  return { secNonce: n.secNonce, pubNonce: n.pubNonce };
}

/** BIP-327 NonceAgg (order-independent sum). */
export function musigNonceAgg(pubNonces: readonly Uint8Array[]): Uint8Array {
  for (const n of pubNonces) if (n.length !== MUSIG_PUB_NONCE_SIZE) throw new MusigError(`public nonce must be 66 bytes, got ${n.length}`);
  return wrap("nonce aggregation", () => backend().nonceAgg(pubNonces));
}

/** Parameters of one MuSig2 signing session. */
export interface MusigSessionParams {
  /** All participants' 33-byte keys, any order (sorted internally). */
  pubkeys: readonly Uint8Array[];
  /** The aggregated nonce ({@link musigNonceAgg}). */
  aggNonce: Uint8Array;
  /** The 32-byte message (a BIP-341 sighash). */
  message: Uint8Array;
  /** Optional x-only tweak (the TapTweak of a key-path spent output). */
  tweak?: Uint8Array;
}

/** One MuSig2 signing session over sorted keys with at most one x-only tweak. */
export class MusigSession {
  readonly sortedKeys: Uint8Array[];
  private readonly inner: MusigBackendSession;

  constructor(params: MusigSessionParams) {
    this.sortedKeys = musigSortKeys(params.pubkeys);
    const tweaks = params.tweak ? [params.tweak] : [];
    if (params.aggNonce.length !== MUSIG_PUB_NONCE_SIZE) throw new MusigError(`aggregated nonce must be 66 bytes, got ${params.aggNonce.length}`);
    if (tweaks.some((t) => t.length !== 32)) throw new MusigError("tweak must be 32 bytes");
    this.inner = wrap("session", () => backend().session(params.aggNonce, this.sortedKeys, params.message, tweaks, tweaks.map(() => true)));
  }

  /** Partial signature of the signer holding `secretKey`; consumes (zeroes) `secNonce`. */
  sign(secNonce: Uint8Array, secretKey: Uint8Array): Uint8Array {
    return wrap("partial signing", () => this.inner.sign(secNonce, secretKey));
  }

  /**
   * Like {@link sign}, for a partial signature that is only ever aggregated here: its check
   * against the signer's key is left to the caller's verification of the final signature.
   */
  signForAggregate(secNonce: Uint8Array, secretKey: Uint8Array): Uint8Array {
    return wrap("partial signing", () => this.inner.sign(secNonce, secretKey, "aggregate"));
  }

  /**
   * PartialSigVerify of `partialSig` by the participant `signer`. `nonces` lists every
   * participant's public nonce with its key (any order); their aggregate must equal the
   * session's aggregated nonce. Returns false (never throws) for an invalid signature.
   */
  verifyPartial(partialSig: Uint8Array, signer: Uint8Array, nonces: readonly { pubkey: Uint8Array; pubNonce: Uint8Array }[]): boolean {
    const idx = this.sortedKeys.findIndex((k) => compareBytes(k, signer) === 0);
    if (idx < 0) throw new MusigError("partial signature from a key outside the session");
    if (partialSig.length !== MUSIG_PARTIAL_SIG_SIZE || nonces.length !== this.sortedKeys.length) return false;
    const aligned: Uint8Array[] = [];
    for (const k of this.sortedKeys) {
      const n = nonces.find((x) => compareBytes(x.pubkey, k) === 0);
      if (!n) return false;
      aligned.push(n.pubNonce);
    }
    try {
      return this.inner.partialSigVerify(partialSig, aligned, idx);
    } catch {
      return false;
    }
  }

  /**
   * Verifies `signer`'s partial signature made with `pubNonce` against the session's aggregated
   * nonce, without re-aggregating every participant's nonce. Only for a caller that built the
   * aggregated nonce itself from nonces including `pubNonce` (a coordinator checking each
   * cosigner of a node it aggregated). Returns false (never throws) for an invalid signature.
   */
  verifyPartialWithOwnAggNonce(partialSig: Uint8Array, signer: Uint8Array, pubNonce: Uint8Array): boolean {
    const idx = this.sortedKeys.findIndex((k) => compareBytes(k, signer) === 0);
    if (idx < 0) throw new MusigError("partial signature from a key outside the session");
    if (partialSig.length !== MUSIG_PARTIAL_SIG_SIZE || pubNonce.length !== MUSIG_PUB_NONCE_SIZE) return false;
    try {
      return this.inner.partialSigVerifyInternal(partialSig, pubNonce, idx);
    } catch {
      return false;
    }
  }

  /** PartialSigAgg: the final 64-byte BIP-340 signature. `partialSigs` in any order. */
  aggregate(partialSigs: readonly Uint8Array[]): Uint8Array {
    return wrap("partial signature aggregation", () => this.inner.partialSigAgg(partialSigs));
  }
}

/**
 * What the server returns per co-signed message (board, arkoor): it makes its nonce after
 * seeing the user's and signs at once, so it never stores a secret nonce.
 */
export interface MusigCosignResponse {
  pubNonce: Uint8Array;
  partialSig: Uint8Array;
}

/**
 * The responder side of a 2-party co-signature: generate a nonce after seeing the other
 * party's public nonce and sign immediately (stateless server flow).
 */
export function musigRespondCosign(p: {
  secretKey: Uint8Array;
  pubkey: Uint8Array;
  otherPubkey: Uint8Array;
  otherPubNonce: Uint8Array;
  message: Uint8Array;
  tweak?: Uint8Array;
  rand?: Uint8Array;
}): MusigCosignResponse {
  const pubkeys = [p.pubkey, p.otherPubkey];
  const aggKey = p.tweak ? musigTweakedKey(pubkeys, p.tweak) : musigAggregateKey(pubkeys);
  const nonce = musigNonceGen({ pubkey: p.pubkey, secretKey: p.secretKey, aggregateKey: aggKey, message: p.message, rand: p.rand });
  const aggNonce = musigNonceAgg([p.otherPubNonce, nonce.pubNonce]);
  const session = new MusigSession({ pubkeys, aggNonce, message: p.message, tweak: p.tweak });
  return { pubNonce: nonce.pubNonce, partialSig: session.sign(nonce.secNonce, p.secretKey) };
}

/**
 * Like {@link musigRespondCosign} with BIP-327 deterministic signing (DeterministicSign): the
 * responder needs no randomness and no nonce state, and repeating a request gives the same
 * answer (captaind signs hArk leaf unlocks this way). Safe only because the responder signs
 * immediately after seeing the other nonce.
 */
export function musigRespondCosignDeterministic(p: {
  secretKey: Uint8Array;
  otherPubkey: Uint8Array;
  pubkey: Uint8Array;
  otherPubNonce: Uint8Array;
  message: Uint8Array;
  tweak?: Uint8Array;
  rand?: Uint8Array;
}): MusigCosignResponse {
  const sorted = musigSortKeys([p.pubkey, p.otherPubkey]);
  const tweaks = p.tweak ? [p.tweak] : [];
  if (p.otherPubNonce.length !== MUSIG_PUB_NONCE_SIZE) throw new MusigError(`public nonce must be 66 bytes, got ${p.otherPubNonce.length}`);
  return wrap("deterministic signing", () => backend().deterministicSign(p.secretKey, p.otherPubNonce, sorted, p.message, tweaks, tweaks.map(() => true), p.rand));
}

/**
 * The initiator side's completion: verify the responder's partial signature (throws
 * {@link MusigInvalidPartialSignatureError} if it is invalid), add our own and return the final
 * 64-byte signature.
 */
export function musigCompleteCosign(p: {
  secretKey: Uint8Array;
  pubkey: Uint8Array;
  nonce: MusigNonce;
  otherPubkey: Uint8Array;
  response: MusigCosignResponse;
  message: Uint8Array;
  tweak?: Uint8Array;
}): Uint8Array {
  const pubkeys = [p.pubkey, p.otherPubkey];
  const aggNonce = musigNonceAgg([p.nonce.pubNonce, p.response.pubNonce]);
  const session = new MusigSession({ pubkeys, aggNonce, message: p.message, tweak: p.tweak });
  const nonces = [
    { pubkey: p.pubkey, pubNonce: p.nonce.pubNonce },
    { pubkey: p.otherPubkey, pubNonce: p.response.pubNonce },
  ];
  // Our partial signature never leaves this function, so the co-signer's is checked through the
  // final signature (one BIP-340 verification, cheaper than PartialSigVerify); only a final
  // signature that does not verify is traced to its cause.
  const own = session.signForAggregate(p.nonce.secNonce, p.secretKey);
  let signature: Uint8Array | undefined;
  try {
    signature = session.aggregate([own, p.response.partialSig]);
  } catch {
    signature = undefined; // an out-of-range partial signature: the co-signer's (ours is below n)
  }
  const outputKey = p.tweak ? musigTweakedKey(pubkeys, p.tweak) : musigAggregateKey(pubkeys);
  if (signature && verifySchnorr(signature, p.message, outputKey)) return signature;
  if (!session.verifyPartial(p.response.partialSig, p.otherPubkey, nonces)) {
    throw new MusigInvalidPartialSignatureError("co-signer partial signature does not verify");
  }
  // the co-signer's part is valid: ours was faulty (it never left this function)
  throw new MusigError("own partial signature does not verify");
}
