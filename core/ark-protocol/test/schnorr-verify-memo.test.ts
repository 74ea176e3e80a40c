import { expect } from "chai";
import { randomBytes } from "node:crypto";
import * as ecc from "tiny-secp256k1";
import { rememberedSchnorrVerifications, signSchnorr, verifySchnorr } from "../src/schnorr.js";

function signed(): { sig: Uint8Array; msg: Uint8Array; pk: Uint8Array } {
  let sk: Uint8Array;
  do sk = Uint8Array.from(randomBytes(32)); while (!ecc.isPrivate(sk));
  const msg = Uint8Array.from(randomBytes(32));
  return { sig: signSchnorr(msg, sk), msg, pk: ecc.xOnlyPointFromScalar(sk) };
}

describe("BIP-340 verification memo", () => {
  it("remembers a signature that verified, and answers it again without a second entry", () => {
    const { sig, msg, pk } = signed();
    const before = rememberedSchnorrVerifications();
    expect(verifySchnorr(sig, msg, pk)).to.equal(true);
    expect(rememberedSchnorrVerifications()).to.equal(before + 1);
    expect(verifySchnorr(sig, msg, pk)).to.equal(true);
    expect(rememberedSchnorrVerifications()).to.equal(before + 1);
  });

  it("a remembered signature does not verify for another message or another key", () => {
    const { sig, msg, pk } = signed();
    expect(verifySchnorr(sig, msg, pk)).to.equal(true);
    const otherMsg = Uint8Array.from(msg);
    otherMsg[0]! ^= 1;
    expect(verifySchnorr(sig, otherMsg, pk)).to.equal(false);
    expect(verifySchnorr(sig, msg, signed().pk)).to.equal(false);
    // still valid for its own message and key afterwards
    expect(verifySchnorr(sig, msg, pk)).to.equal(true);
  });

  it("never remembers a failed verification", () => {
    const { sig, msg, pk } = signed();
    const bad = Uint8Array.from(sig);
    bad[63]! ^= 1;
    const before = rememberedSchnorrVerifications();
    expect(verifySchnorr(bad, msg, pk)).to.equal(false);
    expect(verifySchnorr(bad, msg, pk)).to.equal(false);
    expect(rememberedSchnorrVerifications()).to.equal(before);
  });

  it("a caller mutating its buffers after a verification cannot change what was remembered", () => {
    const { sig, msg, pk } = signed();
    const m = Uint8Array.from(msg);
    expect(verifySchnorr(sig, m, pk)).to.equal(true);
    m[5]! ^= 0xff;
    expect(verifySchnorr(sig, m, pk)).to.equal(false);
    expect(verifySchnorr(sig, msg, pk)).to.equal(true);
  });
});
