/**
 * Signing for a partial signature that is only aggregated (`signForAggregate`, used by
 * `musigCompleteCosign`): the libsecp256k1 backend leaves BIP-327's "secret key is the nonce's
 * key" check to the caller's verification of the final signature. A wrong secret key must still
 * never produce a signature, and the secret nonce is spent either way.
 */
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  MusigError,
  MusigInvalidPartialSignatureError,
  MusigSession,
  musigCompleteCosign,
  musigNonceAgg,
  musigNonceGen,
  musigRespondCosign,
  musigRespondCosignDeterministic,
  musigTweakedKey,
} from "../src/musig.js";
import { libsecpMusig } from "../src/musig-libsecp.js";
import { useCryptoBackend, type CryptoBackendName } from "../src/crypto-backend.js";

const seed = (s: string): Uint8Array => sha256(new TextEncoder().encode(s));
const userSk = seed("aggregate-sign user");
const serverSk = seed("aggregate-sign server");
const otherSk = seed("aggregate-sign someone else");
const userPk = ecc.pointFromScalar(userSk, true) as Uint8Array;
const serverPk = ecc.pointFromScalar(serverSk, true) as Uint8Array;
const message = seed("aggregate-sign sighash");
const tweak = seed("aggregate-sign taptweak");
const zeroed = (secNonce: Uint8Array): boolean => secNonce.subarray(0, 64).every((b) => b === 0);

for (const backendName of ["libsecp256k1", "pure-js"] as const satisfies readonly CryptoBackendName[]) {
  describe(`completing a co-signature with the wrong secret key (${backendName} backend)`, () => {
    let previous: CryptoBackendName;
    before(() => {
      previous = useCryptoBackend(backendName);
    });
    after(() => {
      useCryptoBackend(previous);
    });

    for (const responder of ["interactive", "deterministic"] as const) {
      it(`throws (not blaming the ${responder} co-signer), returns no signature and spends the nonce`, () => {
        const nonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, aggregateKey: musigTweakedKey([userPk, serverPk], tweak), message });
        const args = { secretKey: serverSk, pubkey: serverPk, otherPubkey: userPk, otherPubNonce: nonce.pubNonce, message, tweak };
        const response = responder === "interactive" ? musigRespondCosign(args) : musigRespondCosignDeterministic(args);
        let thrown: unknown;
        let signature: Uint8Array | undefined;
        try {
          signature = musigCompleteCosign({ secretKey: otherSk, pubkey: userPk, nonce, otherPubkey: serverPk, response, message, tweak });
        } catch (e) {
          thrown = e;
        }
        expect(signature).to.equal(undefined);
        expect(thrown).to.be.instanceOf(MusigError);
        expect(thrown).to.not.be.instanceOf(MusigInvalidPartialSignatureError);
        expect(zeroed(nonce.secNonce)).to.equal(true);
      });
    }
  });
}

describe("libsecp256k1 Sign for aggregation: the key check moves to the final signature", () => {
  const outputKey = musigTweakedKey([userPk, serverPk], tweak);
  const sorted = [userPk, serverPk].sort((a, b) => Buffer.compare(a, b));

  function finalSignature(secretKey: Uint8Array, mode: "aggregate" | undefined): Uint8Array {
    const nonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, message });
    const server = musigNonceGen({ pubkey: serverPk, secretKey: serverSk, message });
    const aggNonce = musigNonceAgg([nonce.pubNonce, server.pubNonce]);
    const session = libsecpMusig.session(aggNonce, sorted, message, [tweak], [true]);
    const own = session.sign(nonce.secNonce, secretKey, mode);
    expect(zeroed(nonce.secNonce)).to.equal(true);
    const theirs = new MusigSession({ pubkeys: sorted, aggNonce, message, tweak }).sign(server.secNonce, serverSk);
    return session.partialSigAgg(sorted[0] === userPk ? [own, theirs] : [theirs, own]);
  }

  it("the nonce's own key gives a final signature that verifies", () => {
    expect(ecc.verifySchnorr(message, outputKey, finalSignature(userSk, "aggregate"))).to.equal(true);
  });

  it("another secret key gives a final signature that does not verify", () => {
    expect(ecc.verifySchnorr(message, outputKey, finalSignature(otherSk, "aggregate"))).to.equal(false);
  });

  it("BIP-327 Sign (the partial signature is released) still refuses another secret key at once", () => {
    expect(() => finalSignature(otherSk, undefined)).to.throw(MusigError, /another key/);
  });
});
