/**
 * BIP-327 (MuSig2) official vectors, every file and every error case, run against both MuSig2
 * backends through the interface `musig.ts` uses (libsecp256k1 and `@scure/btc-signer`), plus
 * the Ark usage of the glue (`musig.ts`) on each backend: sorted keys, one x-only taproot tweak,
 * 2-of-2 co-signing.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import * as musig2 from "@scure/btc-signer/musig2.js";
import * as ecc from "tiny-secp256k1";
import { schnorr } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  MusigError,
  MusigInvalidPartialSignatureError,
  MusigSession,
  musigAggregateKey,
  musigCompleteCosign,
  musigNonceAgg,
  musigNonceGen,
  musigRespondCosign,
  musigRespondCosignDeterministic,
  musigSortKeys,
  musigTweakedKey,
} from "../src/musig.js";
import { MusigInvalidContributionError, type MusigBackend } from "../src/musig-backend.js";
import { libsecpMusig } from "../src/musig-libsecp.js";
import { scureMusig } from "../src/musig-scure.js";
import { useCryptoBackend, type CryptoBackendName } from "../src/crypto-backend.js";
import { secp256k1Implementations, useSecp256k1, type Secp256k1Implementation } from "../src/secp256k1-ops.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bips/bip-0327");
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const load = (name: string): any => JSON.parse(readFileSync(join(DIR, name), "utf8"));
const h = (s: string): Uint8Array => hexToBytes(s);
const H = (b: Uint8Array): string => bytesToHex(b).toUpperCase();
const pick = (all: string[], idx: number[]): Uint8Array[] => idx.map((i) => h(all[i] as string));
const opt = (x: string | null): Uint8Array | undefined => (x === null ? undefined : h(x));

/** Asserts `fn` throws a MuSig2 error; for invalid-contribution errors also the blamed signer index. */
function expectBipError(fn: () => unknown, err: { type: string; signer?: number | null }): void {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, "expected an error").to.be.instanceOf(MusigError);
  if (err.type === "invalid_contribution" && typeof err.signer === "number") {
    expect(thrown).to.be.instanceOf(MusigInvalidContributionError);
    expect((thrown as MusigInvalidContributionError).signer).to.equal(err.signer);
  }
}

const BACKENDS: ReadonlyArray<[CryptoBackendName, MusigBackend]> = [
  ["libsecp256k1", libsecpMusig],
  ["pure-js", scureMusig],
];
/** The vectors run on each backend, the libsecp256k1 one on each build of libsecp256k1 this machine has. */
const VECTOR_RUNS: ReadonlyArray<[string, MusigBackend, Secp256k1Implementation | undefined]> = [
  ...secp256k1Implementations().map((impl): [string, MusigBackend, Secp256k1Implementation] => [`libsecp256k1, ${impl}`, libsecpMusig, impl]),
  ["pure-js", scureMusig, undefined],
];

for (const [name, backend, impl] of VECTOR_RUNS) {
  describe(`BIP-327 MuSig2 official vectors (${name} backend)`, () => {
    let previousImpl: Secp256k1Implementation | undefined;
    before(() => {
      if (impl) previousImpl = useSecp256k1(impl);
    });
    after(() => {
      if (previousImpl) useSecp256k1(previousImpl);
    });
    it("key_sort_vectors: sorts keys (library and glue)", () => {
      const v = load("key_sort_vectors.json");
      const sorted = (v.sorted_pubkeys as string[]).map((x) => x.toUpperCase());
      expect(musig2.sortKeys(v.pubkeys.map(h)).map(H)).to.deep.equal(sorted);
      expect(musigSortKeys(v.pubkeys.map(h)).map(H)).to.deep.equal(sorted);
    });

    it("key_agg_vectors: valid aggregates and every error case", () => {
      const v = load("key_agg_vectors.json");
      for (const c of v.valid_test_cases) {
        expect(H(backend.keyAgg(pick(v.pubkeys, c.key_indices), [], []).slice(1))).to.equal(c.expected);
      }
      for (const c of v.error_test_cases) {
        expectBipError(() => backend.keyAgg(pick(v.pubkeys, c.key_indices), pick(v.tweaks, c.tweak_indices), c.is_xonly), c.error);
      }
      expect(v.error_test_cases.length).to.equal(5);
    });

    it("nonce_gen_vectors: secret and public nonces", () => {
      const v = load("nonce_gen_vectors.json");
      for (const c of v.test_cases) {
        const n = backend.nonceGen(h(c.pk), opt(c.sk), opt(c.aggpk), opt(c.msg), opt(c.extra_in), h(c.rand_));
        expect(H(n.secNonce)).to.equal(c.expected_secnonce);
        expect(H(n.pubNonce)).to.equal(c.expected_pubnonce);
      }
    });

    it("nonce_agg_vectors: sums (incl. the point at infinity) and invalid nonces", () => {
      const v = load("nonce_agg_vectors.json");
      for (const c of v.valid_test_cases) expect(H(backend.nonceAgg(pick(v.pnonces, c.pnonce_indices)))).to.equal(c.expected);
      for (const c of v.error_test_cases) expectBipError(() => backend.nonceAgg(pick(v.pnonces, c.pnonce_indices)), c.error);
    });

    it("sign_verify_vectors: signs, verifies, rejects wrong signatures and bad contributions", () => {
      const v = load("sign_verify_vectors.json");
      const sk = h(v.sk);
      for (const c of v.valid_test_cases) {
        const pks = pick(v.pubkeys, c.key_indices);
        const nonces = pick(v.pnonces, c.nonce_indices);
        const aggNonce = h(v.aggnonces[c.aggnonce_index]);
        expect(H(backend.nonceAgg(nonces))).to.equal(H(aggNonce));
        const s = backend.session(aggNonce, pks, h(v.msgs[c.msg_index]), [], []);
        const sig = s.sign(h(v.secnonces[0]), sk);
        expect(H(sig)).to.equal(c.expected);
        expect(s.partialSigVerify(sig, nonces, c.signer_index)).to.equal(true);
      }
      for (const c of v.sign_error_test_cases) {
        expectBipError(() => {
          const s = backend.session(h(v.aggnonces[c.aggnonce_index]), pick(v.pubkeys, c.key_indices), h(v.msgs[c.msg_index]), [], []);
          return s.sign(h(v.secnonces[c.secnonce_index]), sk);
        }, c.error);
      }
      for (const c of v.verify_fail_test_cases) {
        const nonces = pick(v.pnonces, c.nonce_indices);
        const s = backend.session(backend.nonceAgg(nonces), pick(v.pubkeys, c.key_indices), h(v.msgs[c.msg_index]), [], []);
        let ok: boolean;
        try {
          ok = s.partialSigVerify(h(c.sig), nonces, c.signer_index);
        } catch {
          ok = false;
        }
        expect(ok, c.comment).to.equal(false);
      }
      for (const c of v.verify_error_test_cases) {
        expectBipError(() => {
          const nonces = pick(v.pnonces, c.nonce_indices);
          const s = backend.session(backend.nonceAgg(nonces), pick(v.pubkeys, c.key_indices), h(v.msgs[c.msg_index]), [], []);
          return s.partialSigVerify(h(c.sig), nonces, c.signer_index);
        }, c.error);
      }
    });

    it("tweak_vectors: plain and x-only tweaks, and the out-of-range tweak", () => {
      const v = load("tweak_vectors.json");
      const sk = h(v.sk);
      for (const c of v.valid_test_cases) {
        const nonces = pick(v.pnonces, c.nonce_indices);
        const s = backend.session(h(v.aggnonce), pick(v.pubkeys, c.key_indices), h(v.msg), pick(v.tweaks, c.tweak_indices), c.is_xonly);
        const sig = s.sign(h(v.secnonce), sk);
        expect(H(sig), c.comment).to.equal(c.expected);
        expect(s.partialSigVerify(sig, nonces, c.signer_index)).to.equal(true);
      }
      for (const c of v.error_test_cases) {
        expectBipError(() => {
          const s = backend.session(h(v.aggnonce), pick(v.pubkeys, c.key_indices), h(v.msg), pick(v.tweaks, c.tweak_indices), c.is_xonly);
          return s.sign(h(v.secnonce), sk);
        }, c.error);
      }
    });

    it("sig_agg_vectors: aggregates partial signatures and blames an invalid one", () => {
      const v = load("sig_agg_vectors.json");
      for (const c of v.valid_test_cases) {
        const pks = pick(v.pubkeys, c.key_indices);
        expect(H(backend.nonceAgg(pick(v.pnonces, c.nonce_indices)))).to.equal(c.aggnonce);
        const s = backend.session(h(c.aggnonce), pks, h(v.msg), pick(v.tweaks, c.tweak_indices), c.is_xonly);
        const sig = s.partialSigAgg(pick(v.psigs, c.psig_indices));
        expect(H(sig)).to.equal(c.expected);
        const Q = backend.keyAgg(pks, pick(v.tweaks, c.tweak_indices), c.is_xonly).slice(1);
        expect(schnorr.verify(sig, h(v.msg), Q)).to.equal(true);
        expect(ecc.verifySchnorr(h(v.msg), Q, sig)).to.equal(true);
      }
      for (const c of v.error_test_cases) {
        expectBipError(() => {
          const s = backend.session(h(c.aggnonce), pick(v.pubkeys, c.key_indices), h(v.msg), pick(v.tweaks, c.tweak_indices), c.is_xonly);
          return s.partialSigAgg(pick(v.psigs, c.psig_indices));
        }, c.error);
      }
    });

    it("det_sign_vectors: deterministic nonces and signatures, and every error case", () => {
      const v = load("det_sign_vectors.json");
      const sk = h(v.sk);
      const run = (c: any) =>
        backend.deterministicSign(sk, h(c.aggothernonce), pick(v.pubkeys, c.key_indices), h(v.msgs[c.msg_index]), c.tweaks.map(h), c.is_xonly, opt(c.rand));
      for (const c of v.valid_test_cases) {
        const r = run(c);
        expect([H(r.pubNonce), H(r.partialSig)]).to.deep.equal(c.expected);
      }
      for (const c of v.error_test_cases) expectBipError(() => run(c), c.error);
    });

    it("Sign zeroes the secret nonce, even when signing fails", () => {
      const v = load("sign_verify_vectors.json");
      const c = v.valid_test_cases[0];
      const s = backend.session(h(v.aggnonces[c.aggnonce_index]), pick(v.pubkeys, c.key_indices), h(v.msgs[c.msg_index]), [], []);
      const used = h(v.secnonces[0]);
      s.sign(used, h(v.sk));
      expect(used.subarray(0, 64).every((b) => b === 0)).to.equal(true);
      expect(() => s.sign(used, h(v.sk))).to.throw(MusigError);
      const refused = h(v.secnonces[0]);
      const wrongKey = sha256(new TextEncoder().encode("not the nonce's key"));
      expect(() => s.sign(refused, wrongKey)).to.throw(MusigError);
      expect(refused.subarray(0, 64).every((b) => b === 0)).to.equal(true);
    });
  });
}

for (const [backendName] of BACKENDS) describe(`MuSig2 glue on the ${backendName} backend (KeySort always, x-only TapTweak, server answers nonce + partial)`, () => {
  let previous: CryptoBackendName;
  before(() => {
    previous = useCryptoBackend(backendName);
  });
  after(() => {
    useCryptoBackend(previous);
  });
  const userSk = sha256(new TextEncoder().encode("tender user key"));
  const serverSk = sha256(new TextEncoder().encode("tender server key"));
  const userPk = ecc.pointFromScalar(userSk, true) as Uint8Array;
  const serverPk = ecc.pointFromScalar(serverSk, true) as Uint8Array;
  const message = sha256(new TextEncoder().encode("a sighash"));
  const tweak = sha256(new TextEncoder().encode("a taptweak"));

  it("the glue's aggregate and tweaked keys equal @scure/btc-signer's KeyAgg over sorted keys", () => {
    const v = load("key_agg_vectors.json");
    const keys = (v.pubkeys as string[]).slice(0, 3).map(h);
    const sorted = musig2.sortKeys(keys);
    expect(H(musigAggregateKey(keys))).to.equal(H(musig2.keyAggExport(musig2.keyAggregate(sorted))));
    expect(H(musigTweakedKey(keys, tweak))).to.equal(H(musig2.keyAggExport(musig2.keyAggregate(sorted, [tweak], [true]))));
    expect(H(musigAggregateKey([keys[0]!, keys[0]!, keys[1]!]))).to.equal(H(musig2.keyAggExport(musig2.keyAggregate(musig2.sortKeys([keys[0]!, keys[0]!, keys[1]!])))));
  });

  it("aggregates the same key whatever the order of the participants", () => {
    expect(bytesToHex(musigAggregateKey([userPk, serverPk]))).to.equal(bytesToHex(musigAggregateKey([serverPk, userPk])));
  });

  it("tweaked aggregate equals the taproot output key internal + t·G (tiny-secp256k1)", () => {
    const internal = musigAggregateKey([userPk, serverPk]);
    const expected = ecc.xOnlyPointAddTweak(internal, tweak);
    expect(expected).to.not.equal(null);
    expect(bytesToHex(musigTweakedKey([serverPk, userPk], tweak))).to.equal(bytesToHex(expected!.xOnlyPubkey));
  });

  it("2-of-2 co-signature with a taproot tweak verifies with tiny-secp256k1 and noble", () => {
    const outputKey = musigTweakedKey([userPk, serverPk], tweak);
    const userNonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, aggregateKey: outputKey, message });
    const response = musigRespondCosign({ secretKey: serverSk, pubkey: serverPk, otherPubkey: userPk, otherPubNonce: userNonce.pubNonce, message, tweak });
    const sig = musigCompleteCosign({ secretKey: userSk, pubkey: userPk, nonce: userNonce, otherPubkey: serverPk, response, message, tweak });
    expect(sig.length).to.equal(64);
    expect(ecc.verifySchnorr(message, outputKey, sig)).to.equal(true);
    expect(schnorr.verify(sig, message, outputKey)).to.equal(true);
    expect(ecc.verifySchnorr(message, musigAggregateKey([userPk, serverPk]), sig)).to.equal(false);
  });

  it("untweaked co-signature (script path) verifies under the plain aggregate key", () => {
    const userNonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, message });
    const response = musigRespondCosign({ secretKey: serverSk, pubkey: serverPk, otherPubkey: userPk, otherPubNonce: userNonce.pubNonce, message });
    const sig = musigCompleteCosign({ secretKey: userSk, pubkey: userPk, nonce: userNonce, otherPubkey: serverPk, response, message });
    expect(ecc.verifySchnorr(message, musigAggregateKey([userPk, serverPk]), sig)).to.equal(true);
  });

  it("deterministic responder: same request, same answer; the co-signature verifies", () => {
    const outputKey = musigTweakedKey([userPk, serverPk], tweak);
    const userNonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, message });
    const args = { secretKey: serverSk, pubkey: serverPk, otherPubkey: userPk, otherPubNonce: userNonce.pubNonce, message, tweak };
    const a = musigRespondCosignDeterministic(args);
    const b = musigRespondCosignDeterministic(args);
    expect(bytesToHex(a.pubNonce)).to.equal(bytesToHex(b.pubNonce));
    expect(bytesToHex(a.partialSig)).to.equal(bytesToHex(b.partialSig));
    const sig = musigCompleteCosign({ secretKey: userSk, pubkey: userPk, nonce: userNonce, otherPubkey: serverPk, response: a, message, tweak });
    expect(ecc.verifySchnorr(message, outputKey, sig)).to.equal(true);
  });

  it("rejects a co-signer partial signature that does not verify", () => {
    const userNonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, message });
    const response = musigRespondCosign({ secretKey: serverSk, pubkey: serverPk, otherPubkey: userPk, otherPubNonce: userNonce.pubNonce, message, tweak });
    const bad = { ...response, partialSig: Uint8Array.from(response.partialSig) };
    bad.partialSig[31] = (bad.partialSig[31] as number) ^ 1;
    expect(() =>
      musigCompleteCosign({ secretKey: userSk, pubkey: userPk, nonce: userNonce, otherPubkey: serverPk, response: bad, message, tweak }),
    ).to.throw(MusigInvalidPartialSignatureError);
  });

  it("every nonce is fresh: same inputs give different nonces; the extra input and the message bind it", () => {
    const input = { pubkey: userPk, secretKey: userSk, aggregateKey: musigTweakedKey([userPk, serverPk], tweak), message, extra: message };
    const a = musigNonceGen(input);
    const b = musigNonceGen(input);
    expect(H(a.pubNonce)).to.not.equal(H(b.pubNonce));
    expect(H(a.secNonce.subarray(0, 64))).to.not.equal(H(b.secNonce.subarray(0, 64)));
    const rand = sha256(new TextEncoder().encode("fixed test randomness"));
    const fixed = H(musigNonceGen({ ...input, rand }).pubNonce);
    expect(H(musigNonceGen({ ...input, rand }).pubNonce)).to.equal(fixed);
    expect(H(musigNonceGen({ ...input, rand, extra: tweak }).pubNonce)).to.not.equal(fixed);
    expect(H(musigNonceGen({ ...input, rand, message: tweak }).pubNonce)).to.not.equal(fixed);
    expect(() => musigNonceGen({ ...input, rand: rand.subarray(0, 31) })).to.throw(MusigError);
  });

  it("the secret nonce cannot be used twice", () => {
    const n1 = musigNonceGen({ pubkey: userPk, secretKey: userSk });
    const n2 = musigNonceGen({ pubkey: serverPk, secretKey: serverSk });
    const s = new MusigSession({ pubkeys: [userPk, serverPk], aggNonce: musigNonceAgg([n1.pubNonce, n2.pubNonce]), message });
    s.sign(n1.secNonce, userSk);
    expect(() => s.sign(n1.secNonce, userSk)).to.throw(MusigError);
  });

  it("malformed inputs throw typed errors", () => {
    expect(() => musigAggregateKey([userPk.subarray(1)])).to.throw(MusigError);
    expect(() => musigNonceAgg([new Uint8Array(66)])).to.throw(MusigError);
    expect(() => musigTweakedKey([userPk, serverPk], new Uint8Array(32).fill(0xff))).to.throw(MusigError);
  });
});
