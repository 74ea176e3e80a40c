/** barkd fee estimates (`/api/v1/fees/*` shape) with the captaind default schedule. */
import { expect } from "chai";
import { captaindDefaultFeeSchedule } from "../src/fees.js";
import { AmountLimitError, estimateArkoor, estimateBoard, estimateLightningReceive, estimateLightningSend } from "../src/fees-estimate.js";
import { InsufficientFundsError } from "../src/fees-selection.js";

describe("fee estimates (barkd's gross / fee / net / vtxos_spent)", () => {
  const s = captaindDefaultFeeSchedule();

  it("board: fee deducted, limits enforced", () => {
    expect(estimateBoard(s, 100_000n, { minBoardAmount: 20_000n })).to.deep.equal({ grossAmountSat: 100_000n, feeSat: 330n, netAmountSat: 99_670n, vtxosSpent: [] });
    expect(() => estimateBoard(s, 10_000n, { minBoardAmount: 20_000n })).to.throw(AmountLimitError);
    expect(() => estimateBoard(s, 2_000_000n, { minBoardAmount: 20_000n, maxVtxoAmount: 1_000_000n })).to.throw(AmountLimitError);
  });

  it("Lightning receive: net = amount − fee, saturating at 0", () => {
    expect(estimateLightningReceive(s, 100_000n).netAmountSat).to.equal(99_700n);
    expect(estimateLightningReceive(s, 50n).netAmountSat).to.equal(0n);
  });

  it("Lightning send: fee over the selected VTXOs, or the highest tier without funds", () => {
    const vtxos = [{ id: "a", amount: 500_000n, expiryHeight: 1_150, exitDepth: 1 }];
    const e = estimateLightningSend(s, 100_000n, vtxos, 1_000);
    expect(e).to.deep.equal({ grossAmountSat: 100_175n, feeSat: 175n, netAmountSat: 100_000n, vtxosSpent: ["a"] });
    const none = estimateLightningSend(s, 100_000n, [], 1_000);
    expect(none.feeSat).to.equal(75n + 800n);
    expect(none.vtxosSpent).to.deep.equal([]);
  });

  it("arkoor: free, lists the VTXOs it would spend, fails without funds", () => {
    const vtxos = [
      { id: "late", amount: 5_000n, expiryHeight: 900, exitDepth: 1 },
      { id: "soon", amount: 3_000n, expiryHeight: 100, exitDepth: 1 },
    ];
    expect(estimateArkoor(4_000n, vtxos)).to.deep.equal({ grossAmountSat: 4_000n, feeSat: 0n, netAmountSat: 4_000n, vtxosSpent: ["soon", "late"] });
    expect(() => estimateArkoor(9_000n, vtxos)).to.throw(InsufficientFundsError);
  });
});
