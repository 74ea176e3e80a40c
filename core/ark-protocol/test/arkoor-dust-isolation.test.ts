/** Dust isolation per arkoor input (bark's `ark::arkoor`, vector group `arkoor_dust_isolation`). */
import { expect } from "chai";
import { arkVectors, expectVector } from "./ark-vectors.js";
import { ArkoorError, checkArkoorOutputs, isolateDust, type ArkoorDestination } from "../src/arkoor-allocation.js";

const dests = (amounts: number[]): ArkoorDestination<string>[] => amounts.map((a, i) => ({ amount: BigInt(a), policy: `out${i}` }));

describe("arkoor dust isolation (sub-dust outputs in their own fan-out tx)", () => {
  for (const c of arkVectors.arkoor_dust_isolation.cases as { name: string }[]) {
    it(`${c.name}: normal/isolated split as the reference`, () => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const v = c as any;
      const r = isolateDust(dests(v.outputs));
      expect(r.normal.length).to.equal(v.expected_normal.length);
      r.normal.forEach((d, i) => expectVector(d.amount, v.expected_normal, i));
      expect(r.isolated.length).to.equal(v.expected_isolated.length);
      r.isolated.forEach((d, i) => expectVector(d.amount, v.expected_isolated, i));
      expectVector(r.isolated.length > 0, v, "dust_isolation_active");
      const total = (xs: { amount: bigint }[]): bigint => xs.reduce((s, d) => s + d.amount, 0n);
      expect(total(r.normal) + total(r.isolated)).to.equal(BigInt((v.outputs as number[]).reduce((a, b) => a + b, 0)));
      if (r.isolated.length) expect(total(r.isolated) >= 330n).to.equal(true);
    });
  }

  it("the split piece keeps the policy of the output it was cut from and goes first", () => {
    const r = isolateDust(dests([800, 100, 100]));
    expect(r.isolated.map((d) => d.policy)).to.deep.equal(["out0", "out1", "out2"]);
    expect(r.normal.map((d) => d.policy)).to.deep.equal(["out0"]);
  });

  it("server checks refuse an unnecessary dust mix, a low isolated sum and too large a fan-out", () => {
    expect(() => checkArkoorOutputs({ normal: dests([700, 100]), isolated: [] })).to.throw(ArkoorError, "unnecessary mix");
    expect(() => checkArkoorOutputs({ normal: dests([700]), isolated: dests([100, 100]) })).to.throw(ArkoorError, "below dust");
    expect(() => checkArkoorOutputs({ normal: dests([400, 400, 400, 400, 400]), isolated: [] })).to.throw(ArkoorError, "more than 4");
    expect(() => checkArkoorOutputs({ normal: dests([400]), isolated: [] }, { inputExitDepth: 100 })).to.throw(ArkoorError, "exit depth");
    expect(() => checkArkoorOutputs(isolateDust(dests([900, 100])))).to.not.throw();
  });
});
