/**
 * Every externally supplied point of a MuSig2 flow is still refused when invalid, on each path
 * where the libsecp256k1 backend lets the point operation itself do the check (NonceAgg's sums, the
 * session's aggregated nonce, PartialSigVerifyInternal, KeyAgg), including the corner cases where
 * no operation takes the point (a single nonce, a sum at infinity, an aggregated nonce half at
 * infinity). The libsecp256k1 backend must blame the contribution BIP-327 names; the pure-JS
 * backend is run on the same inputs as a cross-check that they are invalid.
 */
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { sha256 } from "@noble/hashes/sha2.js";
import { MusigError, MusigSession, musigNonceAgg, musigNonceGen, musigRespondCosign } from "../src/musig.js";
import { MusigInvalidContributionError, type MusigBackend } from "../src/musig-backend.js";
import { libsecpMusig } from "../src/musig-libsecp.js";
import { scureMusig } from "../src/musig-scure.js";
import { useCryptoBackend, type CryptoBackendName } from "../src/crypto-backend.js";

const BACKENDS: ReadonlyArray<[CryptoBackendName, MusigBackend]> = [
  ["libsecp256k1", libsecpMusig],
  ["pure-js", scureMusig],
];

const seed = (s: string): Uint8Array => sha256(new TextEncoder().encode(s));
const point = (s: string): Uint8Array => ecc.pointFromScalar(seed(s), true) as Uint8Array;
const neg = (p: Uint8Array): Uint8Array => Uint8Array.of(p[0] === 2 ? 3 : 2, ...p.subarray(1));
const cat = (a: Uint8Array, b: Uint8Array): Uint8Array => Uint8Array.of(...a, ...b);

/** A 33-byte encoding with prefix 2 whose x is not on the curve. */
function offCurve(): Uint8Array {
  const p = new Uint8Array(33);
  p[0] = 2;
  for (let x = 1; ; x++) {
    p[32] = x;
    if (!ecc.isPoint(p)) return p;
  }
}
/** x = 2^256 − 1, above the field size. */
const aboveP = Uint8Array.of(2, ...new Uint8Array(32).fill(0xff));
/** A valid x with prefix 4 (a compressed encoding must start with 2 or 3). */
const badPrefix = Uint8Array.of(4, ...point("prefix").subarray(1));
const INVALID: ReadonlyArray<[string, Uint8Array]> = [
  ["off the curve", offCurve()],
  ["x above the field size", aboveP],
  ["prefix 4", badPrefix],
];

/**
 * Runs `fn` expecting a MuSig2 error. The libsecp256k1 backend must throw the BIP's
 * invalid-contribution error, returned for its blame to be checked; the pure-JS one (kept as a
 * cross-check) only has to refuse the input, its errors do not name the culprit.
 */
function blamed(fn: () => unknown, precise: boolean): Partial<MusigInvalidContributionError> {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(MusigError);
    if (!precise) return {};
    expect(e).to.be.instanceOf(MusigInvalidContributionError);
    return e as MusigInvalidContributionError;
  }
  throw new Error("expected the input to be refused");
}

/** Expects `actual` to carry `fields` (only when the backend names the culprit). */
function expectBlame(actual: Partial<MusigInvalidContributionError>, fields: Partial<MusigInvalidContributionError>, precise: boolean): void {
  if (precise) expect(actual).to.include(fields);
}

for (const [name, backend] of BACKENDS) {
  const precise = name === "libsecp256k1";
  describe(`MuSig2 point checks on the ${name} backend`, () => {
    const A = point("a1");
    const B = point("b1");
    const C = point("c1");

    for (const [what, bad] of INVALID) {
      it(`NonceAgg blames a nonce with a point ${what}, whichever position and half it is in`, () => {
        const good1 = cat(A, B);
        const good2 = cat(C, A);
        expectBlame(blamed(() => backend.nonceAgg([cat(bad, B), good2]), precise), { signer: 0, contribution: "pubnonce" }, precise);
        expectBlame(blamed(() => backend.nonceAgg([good1, cat(bad, A)]), precise), { signer: 1, contribution: "pubnonce" }, precise);
        expectBlame(blamed(() => backend.nonceAgg([good1, cat(C, bad)]), precise), { signer: 1, contribution: "pubnonce" }, precise);
        expectBlame(blamed(() => backend.nonceAgg([cat(A, bad)]), precise), { signer: 0, contribution: "pubnonce" }, precise);
        expectBlame(blamed(() => backend.nonceAgg([cat(bad, B)]), precise), { signer: 0, contribution: "pubnonce" }, precise);
        // the first halves are checked before the second ones: signer 1's first half is blamed
        expectBlame(blamed(() => backend.nonceAgg([cat(A, bad), cat(bad, B)]), precise), { signer: 1 }, precise);
        // A + (−A) is infinity: the next nonce starts a new sum and is checked on its own
        expectBlame(blamed(() => backend.nonceAgg([cat(A, B), cat(neg(A), C), cat(bad, B)]), precise), { signer: 2 }, precise);
        expectBlame(blamed(() => backend.nonceAgg([cat(A, B), cat(neg(A), neg(B)), cat(C, bad)]), precise), { signer: 2 }, precise);
      });

      it(`a session refuses an aggregated nonce with a half ${what}, also next to a half at infinity`, () => {
        const keys = [A, B].sort((x, y) => Buffer.compare(x, y));
        const msg = seed("message");
        const infinity = new Uint8Array(33);
        for (const agg of [cat(bad, C), cat(C, bad), cat(infinity, bad), cat(bad, infinity)]) {
          expectBlame(blamed(() => backend.session(agg, keys, msg, [], []), precise), { signer: null, contribution: "aggnonce" }, precise);
        }
      });

      it(`KeyAgg blames a key ${what} at its index`, () => {
        expectBlame(blamed(() => backend.keyAgg([A, bad, B], [], []), precise), { signer: 1, contribution: "pubkey" }, precise);
        expectBlame(blamed(() => backend.keyAgg([bad], [], []), precise), { signer: 0, contribution: "pubkey" }, precise);
      });
    }

    it("the infinity sum and a single valid nonce still aggregate", () => {
      expect(Buffer.from(backend.nonceAgg([cat(A, B), cat(neg(A), neg(B))])).equals(Buffer.alloc(66))).to.equal(true);
      expect(Buffer.from(backend.nonceAgg([cat(A, B)])).equals(Buffer.from(cat(A, B)))).to.equal(true);
      // first halves: A + (−A) = infinity, then C alone; second halves: B + C + (−B) = C
      expect(Buffer.from(backend.nonceAgg([cat(A, B), cat(neg(A), C), cat(C, neg(B))])).equals(Buffer.from(cat(C, C)))).to.equal(true);
    });
  });

  describe(`a session over an aggregated nonce NonceAgg returned (${name} backend)`, () => {
    const A = point("a2");
    const B = point("b2");
    const C = point("c2");
    const keys = [A, B].sort((x, y) => Buffer.compare(x, y));
    const msg = seed("message 2");
    /** The session's R (x-only): the first half of an aggregate of zero partial signatures. */
    const rOf = (aggNonce: Uint8Array): string => Buffer.from(backend.session(aggNonce, keys, msg, [], []).partialSigAgg(keys.map(() => new Uint8Array(32))).subarray(0, 32)).toString("hex");

    it("gives the same R as a session over a copy of its bytes, infinity halves included", () => {
      for (const nonces of [[cat(A, B), cat(C, A)], [cat(A, B), cat(neg(A), C)], [cat(A, B), cat(C, neg(B))], [cat(A, B), cat(neg(A), neg(B))], [cat(A, C)]]) {
        const agg = backend.nonceAgg(nonces);
        expect(rOf(agg)).to.equal(rOf(Uint8Array.from(agg)));
      }
    });

    it("uses the bytes the array holds when the session starts, not those NonceAgg returned", () => {
      const agg = backend.nonceAgg([cat(A, B), cat(C, A)]);
      const other = backend.nonceAgg([cat(B, C), cat(A, A)]);
      const expected = rOf(Uint8Array.from(other));
      agg.set(other);
      expect(rOf(agg)).to.equal(expected);
      const bad = offCurve();
      agg.set(bad, 33);
      expect(() => backend.session(agg, keys, msg, [], [])).to.throw(MusigError);
      if (precise) expect(() => backend.session(agg, keys, msg, [], [])).to.throw(MusigInvalidContributionError);
    });
  });

  describe(`NonceAgg over public nonces NonceGen returned (${name} backend)`, () => {
    const sk = seed("nonce owner");
    const pk = ecc.pointFromScalar(sk, true) as Uint8Array;
    const gen = (label: string): Uint8Array => backend.nonceGen(pk, sk, undefined, undefined, undefined, seed(label)).pubNonce;
    const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

    it("sums them as it sums copies of their bytes", () => {
      const n1 = gen("r1");
      const n2 = gen("r2");
      const n3 = gen("r3");
      expect(hex(backend.nonceAgg([n1, n2, n3]))).to.equal(hex(backend.nonceAgg([n1, n2, n3].map((n) => Uint8Array.from(n)))));
      expect(hex(backend.nonceAgg([n1]))).to.equal(hex(n1));
    });

    it("refuses one whose bytes were changed to an invalid point after NonceGen, blaming it", () => {
      const n1 = gen("r4");
      const n2 = gen("r5");
      n2.set(offCurve(), 0);
      expectBlame(blamed(() => backend.nonceAgg([n1, n2]), precise), { signer: 1, contribution: "pubnonce" }, precise);
      const n3 = gen("r6");
      n3.set(offCurve(), 33);
      expectBlame(blamed(() => backend.nonceAgg([n3]), precise), { signer: 0, contribution: "pubnonce" }, precise);
    });

    it("refuses an aggregated nonce with a half at infinity given as a public nonce", () => {
      const n1 = gen("r7");
      const minus = Uint8Array.of(...neg(n1.subarray(0, 33)), ...gen("r8").subarray(33));
      const agg = backend.nonceAgg([n1, minus]);
      expect(agg.subarray(0, 33).every((b) => b === 0)).to.equal(true);
      expectBlame(blamed(() => backend.nonceAgg([agg, gen("r9")]), precise), { signer: 0, contribution: "pubnonce" }, precise);
    });
  });

  describe(`MusigSession.verifyPartialWithOwnAggNonce on the ${name} backend`, () => {
    let previous: CryptoBackendName;
    before(() => {
      previous = useCryptoBackend(name);
    });
    after(() => {
      useCryptoBackend(previous);
    });

    it("answers false for a signer nonce with an invalid point, true for the real one", () => {
      const userSk = seed("user");
      const serverSk = seed("server");
      const userPk = ecc.pointFromScalar(userSk, true) as Uint8Array;
      const serverPk = ecc.pointFromScalar(serverSk, true) as Uint8Array;
      const message = seed("sighash");
      const userNonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, message });
      const resp = musigRespondCosign({ secretKey: serverSk, pubkey: serverPk, otherPubkey: userPk, otherPubNonce: userNonce.pubNonce, message });
      const session = new MusigSession({ pubkeys: [userPk, serverPk], aggNonce: musigNonceAgg([userNonce.pubNonce, resp.pubNonce]), message });
      expect(session.verifyPartialWithOwnAggNonce(resp.partialSig, serverPk, resp.pubNonce)).to.equal(true);
      for (const [, bad] of INVALID) {
        expect(session.verifyPartialWithOwnAggNonce(resp.partialSig, serverPk, cat(bad, resp.pubNonce.subarray(33)))).to.equal(false);
        expect(session.verifyPartialWithOwnAggNonce(resp.partialSig, serverPk, cat(resp.pubNonce.subarray(0, 33), bad))).to.equal(false);
      }
      expect(() => session.verifyPartialWithOwnAggNonce(resp.partialSig, point("nobody"), resp.pubNonce)).to.throw(MusigError);
      // the nonce array NonceGen returned, changed in place afterwards: its new bytes count
      const changed = resp.pubNonce;
      const original = Uint8Array.from(changed);
      changed.set(userNonce.pubNonce);
      expect(session.verifyPartialWithOwnAggNonce(resp.partialSig, serverPk, changed)).to.equal(false);
      changed.set(offCurve(), 0);
      expect(session.verifyPartialWithOwnAggNonce(resp.partialSig, serverPk, changed)).to.equal(false);
      changed.set(original);
      expect(session.verifyPartialWithOwnAggNonce(resp.partialSig, serverPk, changed)).to.equal(true);
    });
  });
}
