/** Properties of arkoor allocation, dust isolation, change split and the ppm-by-expiry fee. */
import { expect } from "chai";
import fc from "fast-check";
import { ArkoorError, VTXO_DUST_SAT, allocateArkoorOutputs, checkArkoorOutputs, isolateDust, splitChange } from "../src/arkoor-allocation.js";
import { ppmExpiryFee } from "../src/fees.js";

const amount = (max = 50_000n) => fc.bigInt({ min: 1n, max });
const sum = (xs: readonly bigint[]): bigint => xs.reduce((a, b) => a + b, 0n);

describe("arkoor allocation properties", () => {
  it("every input is filled exactly, outputs are consumed in order and keep their policy", () => {
    fc.assert(
      fc.property(fc.array(amount(), { minLength: 1, maxLength: 6 }), fc.array(amount(), { minLength: 1, maxLength: 6 }), (ins, outsRaw) => {
        // rescale outputs so both sides balance: put the difference on the last output, or on inputs
        const total = sum(ins);
        const outs = [...outsRaw];
        const rest = total - sum(outs.slice(0, -1));
        fc.pre(rest > 0n); // draws that cannot balance are discarded by fast-check
        outs[outs.length - 1] = rest;
        const per = allocateArkoorOutputs(ins, outs.map((a, i) => ({ amount: a, policy: i })));
        per.forEach((parts, k) => expect(sum(parts.map((p) => p.amount))).to.equal(ins[k]));
        const flat = per.flat();
        for (let i = 1; i < flat.length; i++) expect(flat[i]!.policy >= flat[i - 1]!.policy).to.equal(true);
        outs.forEach((o, i) => expect(sum(flat.filter((p) => p.policy === i).map((p) => p.amount))).to.equal(o));
      }),
      { numRuns: 300 },
    );
  });

  it("unbalanced totals are always refused", () => {
    fc.assert(
      fc.property(fc.array(amount(), { minLength: 1, maxLength: 4 }), fc.array(amount(), { minLength: 1, maxLength: 4 }), (ins, outs) => {
        fc.pre(sum(ins) !== sum(outs));
        expect(() => allocateArkoorOutputs(ins, outs.map((a) => ({ amount: a, policy: 0 })))).to.throw(ArkoorError, "Unbalanced");
      }),
      { numRuns: 200 },
    );
  });

  it("dust isolation preserves the total; isolation happens only with dust and sums to ≥ 330", () => {
    fc.assert(
      fc.property(fc.array(amount(3_000n), { minLength: 1, maxLength: 4 }), (amounts) => {
        const r = isolateDust(amounts.map((a, i) => ({ amount: a, policy: i })));
        expect(sum([...r.normal, ...r.isolated].map((d) => d.amount))).to.equal(sum(amounts));
        if (r.isolated.length) {
          expect(sum(r.isolated.map((d) => d.amount)) >= VTXO_DUST_SAT).to.equal(true);
          expect(r.normal.every((d) => d.amount >= VTXO_DUST_SAT)).to.equal(true);
          expect(r.isolated.every((d) => d.amount < VTXO_DUST_SAT)).to.equal(true);
          expect(() => checkArkoorOutputs(r, { maxFanout: 255 })).to.not.throw();
        } else {
          expect(r.normal.map((d) => d.amount)).to.have.members(amounts);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("change pieces sum to the change; split only above the payment", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 1, max: 3 }), (change, pay, n) => {
        const pieces = splitChange(change, pay, n);
        expect(sum(pieces)).to.equal(change);
        expect(pieces.length).to.equal(change === 0n ? 0 : change > pay ? n : 1);
      }),
      { numRuns: 300 },
    );
  });

  it("the ppm expiry fee ignores input order and never decreases with the chargeable amount", () => {
    const table = [
      { expiryBlocksThreshold: 0, ppm: 2000n },
      { expiryBlocksThreshold: 1008, ppm: 4000n },
      { expiryBlocksThreshold: 2016, ppm: 5000n },
    ];
    fc.assert(
      fc.property(fc.array(fc.record({ amount: amount(10n ** 9n), blocksToExpiry: fc.nat({ max: 5000 }) }), { minLength: 1, maxLength: 8 }), fc.bigInt({ min: 0n, max: 10n ** 10n }), (ins, c) => {
        const fee = ppmExpiryFee(table, ins, c);
        expect(ppmExpiryFee(table, [...ins].reverse(), c)).to.equal(fee);
        expect(ppmExpiryFee(table, ins, c + 1000n) >= fee).to.equal(true);
        expect(ppmExpiryFee(table, ins) >= fee).to.equal(true);
      }),
      { numRuns: 300 },
    );
  });
});
