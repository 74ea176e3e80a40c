/** Splitting package outputs over inputs (bark's `ark::arkoor::package`, vector group `arkoor_package_allocation`). */
import { expect } from "chai";
import { arkVectors } from "./ark-vectors.js";
import { ArkoorError, allocateArkoorOutputs, isolateDust } from "../src/arkoor-allocation.js";

describe("arkoor package allocation (outputs split over inputs in order)", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  for (const c of arkVectors.arkoor_package_allocation.cases as any[]) {
    it(`${c.name}: resulting VTXOs in order`, () => {
      const inputs = (c.input_amounts as number[]).map(BigInt);
      const outputs = (c.outputs as { amount: number; owner: string }[]).map((o) => ({ amount: BigInt(o.amount), policy: o.owner }));
      const perInput = allocateArkoorOutputs(inputs, outputs);
      expect(perInput.length).to.equal(inputs.length);
      const vtxos = perInput.flatMap((dests) => {
        const r = isolateDust(dests);
        return [...r.normal, ...r.isolated];
      });
      const expected = (c.expected_vtxos as { amount: number; owner: string }[]).map((e) => ({ amount: e.amount, owner: e.owner }));
      expect(vtxos.map((d) => ({ amount: Number(d.amount), owner: d.policy }))).to.deep.equal(expected);
    });
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  for (const c of arkVectors.arkoor_package_allocation.rejections as any[]) {
    it(`${c.name}: rejected with ${c.error}`, () => {
      const inputs = (c.input_amounts as number[]).map(BigInt);
      const outputs = (c.outputs as (number | string)[]).map((a) => ({ amount: BigInt(a), policy: "bob" }));
      let err: unknown;
      try {
        allocateArkoorOutputs(inputs, outputs);
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(ArkoorError);
      expect((err as ArkoorError).message).to.equal(c.error);
    });
  }
});
