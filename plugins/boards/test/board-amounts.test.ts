import { expect } from "chai";
import { checkBoardAmount, splitBoard } from "../src/board-amounts.js";
import { BoardRefusedError } from "../src/errors.js";
import { INFO } from "./fakes.js";

describe("board amount checks (server minimum and maximum, board fee, dust VTXO)", () => {
  it("splits 100 000 sat into the reference fixture's fee 1 100 and net 98 900 (base 100 + 10 000 ppm)", () => {
    expect(splitBoard(INFO, 100_000n)).to.deep.equal({ amountSat: 100_000n, feeSat: 1_100n, vtxoSat: 98_900n });
  });

  it("accepts the server minimum exactly and refuses one sat less with barkd's 500", () => {
    expect(checkBoardAmount(INFO, 20_000n).vtxoSat).to.equal(20_000n - 300n);
    const err = (() => { try { checkBoardAmount(INFO, 19_999n); } catch (e) { return e; } return undefined; })();
    expect(err).to.be.instanceOf(BoardRefusedError);
    expect((err as BoardRefusedError).status).to.equal(500);
  });

  it("refuses an amount above the server's largest VTXO", () => {
    expect(() => checkBoardAmount(INFO, 10_000_001n)).to.throw(BoardRefusedError, /maximum VTXO amount/);
  });

  it("refuses an amount whose VTXO after the board fee would be dust", () => {
    const info = { ...INFO, minBoardAmountSat: 0n, boardFees: { minFeeSat: 1_000n, baseFeeSat: 0n, ppm: 0n } };
    expect(() => checkBoardAmount(info, 1_329n)).to.throw(BoardRefusedError, /VTXO of at least 330 sats/);
    expect(checkBoardAmount(info, 1_330n).vtxoSat).to.equal(330n);
  });
});
