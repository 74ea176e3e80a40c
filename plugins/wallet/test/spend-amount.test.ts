import { expect } from "chai";
import { capRailOf, payAmountOf } from "../src/send/spend-amount.js";
import type { SendDestination } from "../src/send/destination-kinds.js";

const dest = (kind: string, amountSat: bigint | undefined, decoded?: object): SendDestination =>
  ({ kind, value: "x", amountSat, comment: undefined, walletNetwork: "regtest", ...(decoded ? { decoded } : {}) }) as SendDestination;

describe("spending-cap rail and amount of a send destination", () => {
  it("puts each kind on the rail its money goes over", () => {
    expect(["ark", "bolt11", "bolt12", "lightning-address", "lnurl", "bitcoin-address", "bip321", "added-kind"].map(capRailOf))
      .to.deep.equal(["ark", "lightning", "lightning", "lightning", "lightning", "onchain", "other", "other"]);
  });

  it("takes the request's amount, or the invoice's (millisatoshis rounded up), the larger when both are given", () => {
    expect(payAmountOf(dest("ark", 5_000n))).to.equal(5_000n);
    expect(payAmountOf(dest("bolt11", undefined, { amountMsat: 1_000_001n }))).to.equal(1_001n);
    expect(payAmountOf(dest("bolt11", 2_000n, { amountMsat: 1_000_000n }))).to.equal(2_000n);
    expect(payAmountOf(dest("bolt11", 500n, { amountMsat: 1_000_000n }))).to.equal(1_000n);
    expect(payAmountOf(dest("bolt11", undefined, { amountMsat: undefined }))).to.equal(undefined);
  });

  it("reads an offer's amount only when it is in bitcoin", () => {
    expect(payAmountOf(dest("bolt12", undefined, { currency: undefined, amount: 7_000_000n }))).to.equal(7_000n);
    expect(payAmountOf(dest("bolt12", undefined, { currency: "USD", amount: 100n }))).to.equal(undefined);
    expect(payAmountOf(dest("bolt12", 9n, { currency: "USD", amount: 100n }))).to.equal(9n);
  });
});
