/**
 * ApplyTweak in the libsecp256k1 MuSig2 backend (g·Q + t·G computed as t·G plus one addition)
 * gives @scure/btc-signer's aggregate key for plain and x-only tweaks, including the zero tweak
 * (t·G would be infinity, which libsecp256k1 cannot produce from a scalar) and chains of tweaks.
 */
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { sha256 } from "@noble/hashes/sha2.js";
import { libsecpMusig } from "../src/musig-libsecp.js";
import { scureMusig } from "../src/musig-scure.js";

const seed = (s: string): Uint8Array => sha256(new TextEncoder().encode(s));
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

describe("libsecp256k1 MuSig2 ApplyTweak", () => {
  const zero = new Uint8Array(32);
  // several key pairs, so that both parities of the aggregate key occur
  const lists = Array.from({ length: 8 }, (_, i) =>
    [ecc.pointFromScalar(seed(`tweak a${i}`), true) as Uint8Array, ecc.pointFromScalar(seed(`tweak b${i}`), true) as Uint8Array].sort((a, b) => Buffer.compare(a, b)),
  );

  it("covers aggregate keys of both parities", () => {
    const parities = new Set(lists.map((keys) => libsecpMusig.keyAgg(keys, [], [])[0]));
    expect([...parities].sort()).to.deep.equal([2, 3]);
  });

  it("a zero tweak, plain or x-only, gives the same key as the pure-JS backend", () => {
    for (const keys of lists) {
      for (const xonly of [false, true]) {
        expect(hex(libsecpMusig.keyAgg(keys, [zero], [xonly]))).to.equal(hex(scureMusig.keyAgg(keys, [zero], [xonly])));
      }
    }
  });

  it("chains of plain and x-only tweaks give the same key as the pure-JS backend", () => {
    lists.forEach((keys, i) => {
      const tweaks = [seed(`t1 ${i}`), zero, seed(`t2 ${i}`)];
      for (const flags of [[true, true, true], [false, true, false], [true, false, true]]) {
        expect(hex(libsecpMusig.keyAgg(keys, tweaks, flags))).to.equal(hex(scureMusig.keyAgg(keys, tweaks, flags)));
      }
    });
  });
});
