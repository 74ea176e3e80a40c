/** Wallet change splitting (bark's `change_vtxo_split_factor`, vector group `arkoor_change_split`). */
import { expect } from "chai";
import { arkVectors, expectVector } from "./ark-vectors.js";
import { ArkoorError, splitChange } from "../src/arkoor-allocation.js";

describe("arkoor change split (change > payment in `change_vtxo_split_factor` pieces)", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  for (const c of arkVectors.arkoor_change_split.cases as any[]) {
    it(`change ${c.change} for payment ${c.pay}, factor ${c.split_factor}`, () => {
      const pieces = splitChange(BigInt(c.change), BigInt(c.pay), c.split_factor);
      expect(pieces.length).to.equal(c.pieces.length);
      pieces.forEach((piece, i) => expectVector(piece, c.pieces, i));
    });
  }

  it("refuses split factors outside 1..3", () => {
    expect(() => splitChange(10n, 1n, 0)).to.throw(ArkoorError);
    expect(() => splitChange(10n, 1n, 4)).to.throw(ArkoorError);
    expect(splitChange(10_001n, 10n, 1)).to.deep.equal([10_001n]);
  });
});
