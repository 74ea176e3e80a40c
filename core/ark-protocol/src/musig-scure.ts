/**
 * The pure-JavaScript MuSig2 backend: `@scure/btc-signer/musig2.js` behind the
 * {@link MusigBackend} interface. Slow (noble point arithmetic in JavaScript) but independent of
 * `musig-libsecp.ts`, so tests compare the two.
 */
import * as musig2 from "@scure/btc-signer/musig2.js";
import { MusigError, MusigInvalidContributionError, type MusigBackend, type MusigBackendSession } from "./musig-backend.js";

type Contribution = MusigInvalidContributionError["contribution"];

/** Runs `fn`, turning the library's errors into ours (keeping the blamed signer). */
function guard<T>(what: string, fn: () => T, blames: Contribution = "pubkey"): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof MusigError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    if (e instanceof musig2.InvalidContributionErr) throw new MusigInvalidContributionError(e.idx, blames, `${what}: ${msg}`);
    throw new MusigError(`${what}: ${msg}`);
  }
}

class ScureSession implements MusigBackendSession {
  private readonly inner: musig2.Session;

  constructor(inner: musig2.Session, private readonly pubkeys: readonly Uint8Array[]) {
    this.inner = inner;
  }

  sign(secNonce: Uint8Array, secretKey: Uint8Array): Uint8Array {
    return guard("partial signing", () => this.inner.sign(secNonce, secretKey));
  }

  partialSigVerify(partialSig: Uint8Array, pubNonces: readonly Uint8Array[], index: number): boolean {
    return guard("partial signature verification", () => this.inner.partialSigVerify(partialSig, [...pubNonces], index), "pubnonce");
  }

  partialSigVerifyInternal(partialSig: Uint8Array, pubNonce: Uint8Array, index: number): boolean {
    const pk = this.pubkeys[index];
    if (!pk) throw new MusigError("signer index outside the session");
    // The library keeps this step internal (it runs it inside partialSigVerify after NonceAgg).
    const internal = this.inner as unknown as { partialSigVerifyInternal(s: Uint8Array, n: Uint8Array, p: Uint8Array): boolean };
    return guard("partial signature verification", () => internal.partialSigVerifyInternal(partialSig, pubNonce, pk), "pubnonce");
  }

  partialSigAgg(partialSigs: readonly Uint8Array[]): Uint8Array {
    return guard("partial signature aggregation", () => this.inner.partialSigAgg([...partialSigs]), "psig");
  }
}

/** `@scure/btc-signer`'s BIP-327. */
export const scureMusig: MusigBackend = {
  keyAgg(pubkeys, tweaks, isXonly) {
    return guard("key aggregation", () => musig2.keyAggregate([...pubkeys], [...tweaks], [...isXonly]).aggPublicKey.toBytes(true));
  },
  nonceGen(pubkey, secretKey, aggPubkeyXOnly, message, extraIn, rand) {
    const n = guard("nonce generation", () => musig2.nonceGen(pubkey, secretKey, aggPubkeyXOnly, message, extraIn, rand));
    return { secNonce: n.secret, pubNonce: n.public };
  },
  nonceAgg(pubNonces) {
    return guard("nonce aggregation", () => musig2.nonceAggregate([...pubNonces]), "pubnonce");
  },
  session(aggNonce, pubkeys, message, tweaks, isXonly) {
    return new ScureSession(guard("session", () => new musig2.Session(aggNonce, [...pubkeys], message, [...tweaks], [...isXonly])), [...pubkeys]);
  },
  deterministicSign(secretKey, aggOtherNonce, pubkeys, message, tweaks, isXonly, rand) {
    const r = guard("deterministic signing", () => musig2.deterministicSign(secretKey, aggOtherNonce, [...pubkeys], message, [...tweaks], [...isXonly], rand));
    return { pubNonce: r.publicNonce, partialSig: r.partialSig };
  },
};
