/**
 * The libsecp256k1 backend and the pure-JS backend (`@scure/btc-signer`, `@noble/curves`) on the
 * same random inputs: every deterministic step gives the same bytes, and each accepts what the
 * other produced. Nonce objects cross between them (both use the BIP-327 97-byte secret nonce).
 */
import { expect } from "chai";
import fc from "fast-check";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { arb32, arbSecretKey } from "./arbitraries.js";
import { toHex } from "../src/encoding.js";
import { CURVE_ORDER, bytesToBigInt } from "../src/keys.js";
import { withCryptoBackend, type CryptoBackendName } from "../src/crypto-backend.js";
import type { MusigBackend } from "../src/musig-backend.js";
import { libsecpMusig } from "../src/musig-libsecp.js";
import { scureMusig } from "../src/musig-scure.js";
import { musigSortKeys, musigTweakedKey } from "../src/musig.js";
import { signSchnorr, tweakSecretKey, verifySchnorr } from "../src/schnorr.js";

const FAST: MusigBackend = libsecpMusig;
const PURE: MusigBackend = scureMusig;
const BOTH: ReadonlyArray<[CryptoBackendName, MusigBackend]> = [
  ["libsecp256k1", FAST],
  ["pure-js", PURE],
];

const pub = (sk: Uint8Array): Uint8Array => secp256k1.getPublicKey(sk, true);
const arbScalar = (): fc.Arbitrary<Uint8Array> => arb32().filter((t) => bytesToBigInt(t) < CURVE_ORDER);
const arbTweaks = (): fc.Arbitrary<{ tweaks: Uint8Array[]; isXonly: boolean[] }> =>
  fc.array(fc.tuple(arbScalar(), fc.boolean()), { maxLength: 3 }).map((ts) => ({ tweaks: ts.map((t) => t[0]), isXonly: ts.map((t) => t[1]) }));
const same = (a: Uint8Array, b: Uint8Array): void => {
  expect(toHex(a)).to.equal(toHex(b));
};
const flipped = (b: Uint8Array): Uint8Array => {
  const c = Uint8Array.from(b);
  c[c.length - 1] = (c[c.length - 1] as number) ^ 1;
  return c;
};

describe("crypto backends agree (libsecp256k1 vs pure JS, random inputs)", function () {
  this.timeout(120_000);

  it("key aggregation, with plain and x-only tweaks, in any key order (duplicates included)", () => {
    fc.assert(
      fc.property(fc.array(arbSecretKey(), { minLength: 1, maxLength: 4 }), fc.boolean(), arbTweaks(), (sks, dup, t) => {
        const pks = sks.map(pub);
        if (dup) pks.push(pks[0]!);
        same(FAST.keyAgg(pks, t.tweaks, t.isXonly), PURE.keyAgg(pks, t.tweaks, t.isXonly));
        const tweak = t.tweaks[0] ?? new Uint8Array(32);
        same(withCryptoBackend("libsecp256k1", () => musigTweakedKey(pks, tweak)), withCryptoBackend("pure-js", () => musigTweakedKey(pks, tweak)));
      }),
      { numRuns: 25 },
    );
  });

  it("nonce generation (given the randomness) and nonce aggregation", () => {
    const arbOpt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
    fc.assert(
      fc.property(
        arbSecretKey(),
        fc.boolean(),
        arbOpt(arb32()),
        arbOpt(fc.uint8Array({ maxLength: 40 })),
        arbOpt(fc.uint8Array({ maxLength: 40 })),
        arb32(),
        fc.integer({ min: 1, max: 4 }),
        (sk, withSk, aggpk, msg, extra, rand, count) => {
          const a = FAST.nonceGen(pub(sk), withSk ? sk : undefined, aggpk, msg, extra, rand);
          const b = PURE.nonceGen(pub(sk), withSk ? sk : undefined, aggpk, msg, extra, rand);
          same(a.secNonce, b.secNonce);
          same(a.pubNonce, b.pubNonce);
          const nonces = Array.from({ length: count }, (_, i) => FAST.nonceGen(pub(sk), sk, undefined, undefined, Uint8Array.of(i), rand).pubNonce);
          same(FAST.nonceAgg(nonces), PURE.nonceAgg(nonces));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("a signing session: same partial signatures, each verifies the other's, same final signature", () => {
    fc.assert(
      fc.property(fc.array(arbSecretKey(), { minLength: 2, maxLength: 3 }), arb32(), arbTweaks(), (sks, msg, t) => {
        const pks = musigSortKeys(sks.map(pub));
        const signers = pks.map((pk) => sks.find((sk) => toHex(pub(sk)) === toHex(pk))!);
        // Each signer makes its nonce on an alternating backend, with fresh randomness.
        const nonces = pks.map((pk, i) => BOTH[i % 2]![1].nonceGen(pk, signers[i], undefined, msg, undefined, crypto.getRandomValues(new Uint8Array(32))));
        const pubNonces = nonces.map((n) => n.pubNonce);
        const aggNonce = FAST.nonceAgg(pubNonces);
        same(aggNonce, PURE.nonceAgg(pubNonces));
        const fast = FAST.session(aggNonce, pks, msg, t.tweaks, t.isXonly);
        const pure = PURE.session(aggNonce, pks, msg, t.tweaks, t.isXonly);
        const psigs = nonces.map((n, i) => {
          const a = fast.sign(Uint8Array.from(n.secNonce), signers[i]!);
          const b = pure.sign(Uint8Array.from(n.secNonce), signers[i]!);
          same(a, b);
          return a;
        });
        psigs.forEach((p, i) => {
          expect(fast.partialSigVerify(p, pubNonces, i)).to.equal(true);
          expect(pure.partialSigVerify(p, pubNonces, i)).to.equal(true);
          expect(fast.partialSigVerify(flipped(p), pubNonces, i)).to.equal(false);
          expect(pure.partialSigVerify(flipped(p), pubNonces, i)).to.equal(false);
          // Against the session's own aggregated nonce: same verdicts, and another signer's nonce fails.
          const other = pubNonces[(i + 1) % pubNonces.length]!;
          for (const s of [fast, pure]) {
            expect(s.partialSigVerifyInternal(p, pubNonces[i]!, i)).to.equal(true);
            expect(s.partialSigVerifyInternal(flipped(p), pubNonces[i]!, i)).to.equal(false);
            expect(s.partialSigVerifyInternal(p, other, i)).to.equal(false);
          }
        });
        const sig = fast.partialSigAgg(psigs);
        same(sig, pure.partialSigAgg(psigs));
        const Q = FAST.keyAgg(pks, t.tweaks, t.isXonly).slice(1);
        for (const [name] of BOTH) {
          expect(withCryptoBackend(name, () => verifySchnorr(sig, msg, Q)), name).to.equal(true);
          expect(withCryptoBackend(name, () => verifySchnorr(flipped(sig), msg, Q)), name).to.equal(false);
        }
      }),
      { numRuns: 12 },
    );
  });

  it("deterministic signing: same public nonce and partial signature", () => {
    fc.assert(
      fc.property(arbSecretKey(), arbSecretKey(), arb32(), arbTweaks(), fc.option(arb32(), { nil: undefined }), (skA, skB, msg, t, rand) => {
        const pks = musigSortKeys([pub(skA), pub(skB)]);
        const other = PURE.nonceGen(pub(skB), skB, undefined, msg, undefined, crypto.getRandomValues(new Uint8Array(32))).pubNonce;
        const a = FAST.deterministicSign(skA, other, pks, msg, t.tweaks, t.isXonly, rand);
        const b = PURE.deterministicSign(skA, other, pks, msg, t.tweaks, t.isXonly, rand);
        same(a.pubNonce, b.pubNonce);
        same(a.partialSig, b.partialSig);
      }),
      { numRuns: 15 },
    );
  });

  it("BIP-340: same signature for the same aux randomness, each verifies the other's, same BIP-341 tweaked key", () => {
    fc.assert(
      fc.property(arbSecretKey(), arb32(), arb32(), fc.option(arb32(), { nil: null }), (sk, msg, aux, merkleRoot) => {
        const xonly = pub(sk).slice(1);
        const fast = withCryptoBackend("libsecp256k1", () => signSchnorr(msg, sk, aux));
        const pure = withCryptoBackend("pure-js", () => signSchnorr(msg, sk, aux));
        same(fast, pure);
        const fresh = withCryptoBackend("libsecp256k1", () => signSchnorr(msg, sk));
        expect(withCryptoBackend("pure-js", () => verifySchnorr(fresh, msg, xonly))).to.equal(true);
        const freshPure = withCryptoBackend("pure-js", () => signSchnorr(msg, sk));
        expect(withCryptoBackend("libsecp256k1", () => verifySchnorr(freshPure, msg, xonly))).to.equal(true);
        for (const [name] of BOTH) expect(withCryptoBackend(name, () => verifySchnorr(flipped(fast), msg, xonly)), name).to.equal(false);
        same(withCryptoBackend("libsecp256k1", () => tweakSecretKey(sk, merkleRoot)), withCryptoBackend("pure-js", () => tweakSecretKey(sk, merkleRoot)));
      }),
      { numRuns: 25 },
    );
  });
});
