/**
 * `isCompressedPoint` (libsecp256k1) against the memoised decoder `parsePubkey` (`@noble/curves`):
 * the same verdict on real keys, on random x coordinates (about half are on the curve), on every
 * prefix byte and on wrong lengths.
 */
import { expect } from "chai";
import fc from "fast-check";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { arb32, arbSecretKey } from "./arbitraries.js";
import { isCompressedPoint, parsePubkey } from "../src/keys.js";

const decodes = (b: Uint8Array): boolean => {
  try {
    parsePubkey(b);
    return true;
  } catch {
    return false;
  }
};

describe("compressed point check", () => {
  it("accepts every compressed public key", () => {
    fc.assert(fc.property(arbSecretKey(), (sk) => {
        expect(isCompressedPoint(secp256k1.getPublicKey(sk, true))).to.equal(true);
      }), { numRuns: 200 });
  });

  it("agrees with the point decoder on random x coordinates under both prefixes", () => {
    let onCurve = 0;
    fc.assert(
      fc.property(arb32(), fc.constantFrom(2, 3), (x, prefix) => {
        const b = new Uint8Array([prefix, ...x]);
        const verdict = isCompressedPoint(b);
        if (verdict) onCurve++;
        expect(verdict).to.equal(decodes(b));
      }),
      { numRuns: 400 },
    );
    expect(onCurve).to.be.greaterThan(100).and.lessThan(300);
  });

  it("refuses other prefixes, uncompressed keys and wrong lengths", () => {
    const pk = secp256k1.getPublicKey(new Uint8Array(32).fill(7), true);
    for (const prefix of [0, 1, 4, 5, 6, 7, 0xff]) expect(isCompressedPoint(new Uint8Array([prefix, ...pk.subarray(1)]))).to.equal(false);
    expect(isCompressedPoint(secp256k1.getPublicKey(new Uint8Array(32).fill(7), false))).to.equal(false);
    expect(isCompressedPoint(pk.subarray(0, 32))).to.equal(false);
    expect(isCompressedPoint(new Uint8Array([...pk, 0]))).to.equal(false);
    expect(isCompressedPoint(new Uint8Array(0))).to.equal(false);
  });
});
