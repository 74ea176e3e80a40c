/**
 * Decoders of part B (tree spec, signed tree spec, forfeit bundle, exit state JSON) on random,
 * truncated and mutated input: they only ever throw the typed protocol errors, and encodings
 * round-trip.
 */
import { expect } from "chai";
import fc from "fast-check";
import { ProtocolError } from "../src/errors.js";
import { decodeSignedVtxoTreeSpec, decodeVtxoTreeSpec, encodeSignedVtxoTreeSpec, encodeVtxoTreeSpec, type VtxoTreeSpec } from "../src/tree.js";
import { decodeForfeitBundle, encodeForfeitBundle } from "../src/forfeit.js";
import { parseExitState } from "../src/exit-state.js";
import { arb32, arbDelta, arbHeight, arbPubkey, arbUserPolicy } from "./arbitraries.js";

function onlyTyped(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    expect(e, String(e)).to.be.instanceOf(ProtocolError);
  }
}

const arbSpec = (): fc.Arbitrary<VtxoTreeSpec> =>
  fc.record({
    expiryHeight: arbHeight(),
    serverPubkey: arbPubkey(),
    exitDelta: arbDelta(),
    globalCosignPubkeys: fc.array(arbPubkey(), { maxLength: 2 }),
    leaves: fc.array(
      fc.record({ policy: arbUserPolicy(), amount: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), cosignPubkey: fc.option(arbPubkey(), { nil: null }), unlockHash: arb32() }),
      { minLength: 1, maxLength: 3 },
    ),
  });

describe("part B decoders: round trips and hostile input", () => {
  it("tree specs and signed tree specs round-trip", () => {
    fc.assert(
      fc.property(arbSpec(), fc.array(fc.uint8Array({ minLength: 64, maxLength: 64 }), { maxLength: 3 }), arb32(), (spec, sigs, txid) => {
        expect(decodeVtxoTreeSpec(encodeVtxoTreeSpec(spec))).to.deep.equal(spec);
        const signed = { spec, rootOutpoint: { txid, vout: 3 }, signatures: sigs };
        expect(decodeSignedVtxoTreeSpec(encodeSignedVtxoTreeSpec(signed))).to.deep.equal(signed);
      }),
      { numRuns: 60 },
    );
  });

  it("truncated or mutated tree specs and bundles only throw typed errors", () => {
    fc.assert(
      fc.property(arbSpec(), fc.nat(), fc.nat({ max: 255 }), (spec, pos, byte) => {
        const bytes = encodeVtxoTreeSpec(spec);
        onlyTyped(() => decodeVtxoTreeSpec(bytes.subarray(0, pos % bytes.length)));
        const mutated = Uint8Array.from(bytes);
        mutated[pos % bytes.length] = byte;
        onlyTyped(() => decodeVtxoTreeSpec(mutated));
        onlyTyped(() => decodeSignedVtxoTreeSpec(Uint8Array.of(1, ...mutated)));
      }),
      { numRuns: 60 },
    );
  });

  it("random bytes never crash the decoders", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        onlyTyped(() => decodeVtxoTreeSpec(bytes));
        onlyTyped(() => decodeSignedVtxoTreeSpec(bytes));
        onlyTyped(() => decodeForfeitBundle(bytes));
        onlyTyped(() => parseExitState(new TextDecoder().decode(bytes)));
      }),
      { numRuns: 500 },
    );
  });

  it("huge declared counts are refused before allocating", () => {
    const bundleLike = Uint8Array.of(0x01, ...new Array(36 + 32 + 66 + 32).fill(1));
    expect(decodeForfeitBundle(bundleLike).userPartialSig.length).to.equal(32);
    const counts = Uint8Array.of(0x02, 0, 0, 0, 0, 0x02, ...new Array(32).fill(0x11), 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f);
    onlyTyped(() => decodeVtxoTreeSpec(counts));
    expect(() => decodeVtxoTreeSpec(counts)).to.throw(ProtocolError);
  });

  it("forfeit bundles round-trip", () => {
    fc.assert(
      fc.property(arb32(), fc.nat({ max: 0xffffffff }), arb32(), fc.uint8Array({ minLength: 66, maxLength: 66 }), arb32(), (txid, vout, unlockHash, userPubNonce, userPartialSig) => {
        const b = { vtxoId: { txid, vout }, unlockHash, userPubNonce, userPartialSig };
        expect(decodeForfeitBundle(encodeForfeitBundle(b))).to.deep.equal(b);
      }),
      { numRuns: 100 },
    );
  });

  it("exit states from arbitrary JSON values only throw typed errors", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => onlyTyped(() => parseExitState(v))),
      { numRuns: 300 },
    );
  });
});
