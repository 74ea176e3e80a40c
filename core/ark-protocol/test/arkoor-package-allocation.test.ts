/** Splitting package outputs over inputs (bark's `ark::arkoor::package`, vector group `arkoor_package_allocation`). */
import { expect } from "chai";
import { arkVectors, expectVector } from "./ark-vectors.js";
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
      expect(vtxos.length).to.equal(c.expected_vtxos.length);
      vtxos.forEach((d, i) => {
        expectVector(d.amount, c.expected_vtxos[i], "amount");
        expectVector(d.policy, c.expected_vtxos[i], "owner");
      });
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
      expectVector((err as ArkoorError).message, c, "error");
    });
  }
});
