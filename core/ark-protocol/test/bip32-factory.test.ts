/**
 * The core's `bip32` (public-point operations on the native addon, `bip32-factory.ts`) derives
 * exactly what `bip32` on tiny-secp256k1 alone derives: extended private and public keys along
 * random paths (hardened and not) from random seeds, and public children of neutered parents.
 */
import { expect } from "chai";
import fc from "fast-check";
import { BIP32Factory } from "bip32";
import * as tiny from "tiny-secp256k1";
import { bip32 } from "../src/bip32-factory.js";
import { toHex } from "../src/encoding.js";
import { secp256k1Implementations, useSecp256k1 } from "../src/secp256k1-ops.js";

const reference = BIP32Factory(tiny);
const HARDENED = 0x80000000;

describe("BIP-32 on the core's secp256k1 operations against bip32 on tiny-secp256k1", () => {
  for (const impl of secp256k1Implementations()) {
    it(`${impl}: the same xprv, xpub and public key at every step of random paths from random seeds`, () => {
      const prev = useSecp256k1(impl);
      try {
        let steps = 0;
        fc.assert(fc.property(
          fc.uint8Array({ minLength: 16, maxLength: 64 }),
          fc.array(fc.tuple(fc.nat(0x7fffffff), fc.boolean()), { minLength: 1, maxLength: 5 }),
          (seed, path) => {
            let ours = bip32.fromSeed(seed);
            let theirs = reference.fromSeed(seed);
            expect(ours.toBase58()).to.equal(theirs.toBase58());
            for (const [index, hardened] of path) {
              const i = hardened ? index + HARDENED : index;
              const parentXpub = ours.neutered().toBase58();
              ours = ours.derive(i);
              theirs = theirs.derive(i);
              expect(ours.toBase58()).to.equal(theirs.toBase58());
              expect(toHex(ours.publicKey)).to.equal(toHex(theirs.publicKey));
              expect(ours.neutered().toBase58()).to.equal(theirs.neutered().toBase58());
              // a public parent derives the same public child (point + scalar)
              if (!hardened) expect(bip32.fromBase58(parentXpub).derive(i).neutered().toBase58()).to.equal(ours.neutered().toBase58());
              steps++;
            }
          },
        ), { numRuns: 60 });
        expect(steps).to.be.greaterThan(60);
      } finally {
        useSecp256k1(prev);
      }
    });
  }

  it("a Schnorr signature made by a derived node verifies, on the node and against its x-only key", () => {
    const node = bip32.fromSeed(new Uint8Array(32).fill(7)).derivePath("m/86'/0'/0'/0/3");
    const msg = new Uint8Array(32).fill(9);
    const sig = node.signSchnorr(msg);
    expect(node.verifySchnorr(msg, sig)).to.equal(true);
    expect(tiny.verifySchnorr(msg, node.publicKey.subarray(1), sig)).to.equal(true);
  });
});
