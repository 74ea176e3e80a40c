import { expect } from "chai";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { fromHex, toHex } from "../src/encoding.js";
import { signSchnorr, verifySchnorr } from "../src/schnorr.js";

const CSV = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bips/bip-0340/test-vectors.csv");

describe("BIP-340 Schnorr (official test-vectors.csv)", () => {
  const rows = readFileSync(CSV, "utf8").trim().split(/\r?\n/).slice(1).map((l) => l.split(","));

  it("has all 19 rows", () => {
    expect(rows.length).to.equal(19);
  });

  for (const [index, sk, pk, aux, msg, sig, result, comment] of rows) {
    it(`row ${index}: ${comment || (result === "TRUE" ? "valid" : "invalid")}`, () => {
      const expected = result === "TRUE";
      if (sk) {
        const produced = signSchnorr(fromHex(msg!), fromHex(sk), fromHex(aux!));
        expect(toHex(produced)).to.equal(sig!.toLowerCase());
      }
      expect(verifySchnorr(fromHex(sig!), fromHex(msg!), fromHex(pk!))).to.equal(expected);
    });
  }
});
