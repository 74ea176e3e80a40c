import { expect } from "chai";
import type { Participation } from "../src/participation.js";
import { pendingRoundInfo, storedStatus } from "../src/round-status.js";
import { isPendingInRound, outputSum } from "../src/participation.js";

const base: Participation = {
  id: 7, kind: "interactive", origin: "explicit", status: "pending", inputs: ["aa".repeat(32) + ":0", "bb".repeat(32) + ":1"],
  outputs: [{ amountSat: 99_850n, keyIndex: 3, pubkey: "02" + "11".repeat(32) }], feeSat: 150n, scheduledHeight: null, roundSeq: null,
  attemptSeq: null, unlockHash: null, fundingTxid: null, fundingTx: null, outputVtxos: null, unlockPreimage: null, inputsLocked: true,
  movementId: 4, error: null,
};
const finished: Participation = { ...base, status: "finished", unlockHash: "cc".repeat(32), fundingTxid: "dd".repeat(32), fundingTx: "0200", roundSeq: 5n, attemptSeq: 0n };

describe("round participation JSON (barkd's PendingRoundInfo and RoundStatus)", () => {
  it("maps every stored status to barkd's RoundStatus, tagged by `status`", () => {
    expect(storedStatus(base)).to.deep.equal({ status: "pending" });
    expect(storedStatus({ ...base, status: "submitted" })).to.deep.equal({ status: "pending" });
    expect(storedStatus(finished)).to.deep.equal({ status: "unconfirmed", funding_txid: "dd".repeat(32) });
    expect(storedStatus({ ...finished, status: "forfeiting" })).to.deep.equal({ status: "unconfirmed", funding_txid: "dd".repeat(32) });
    expect(storedStatus({ ...finished, status: "done" })).to.deep.equal({ status: "confirmed", funding_txid: "dd".repeat(32) });
    expect(storedStatus({ ...base, status: "failed", error: "round 5 failed by server" })).to.deep.equal({ status: "failed", error: "round 5 failed by server" });
    expect(storedStatus({ ...base, status: "canceled" })).to.deep.equal({ status: "canceled" });
  });

  it("shows inputs and requested outputs, and no unlock hash nor funding tx while an interactive participation waits", () => {
    expect(pendingRoundInfo({ ...base, status: "submitted", unlockHash: "cc".repeat(32) }, { status: "pending" })).to.deep.equal({
      id: 7, status: { status: "pending" },
      participation: { inputs: base.inputs, outputs: [{ amount_sat: 99_850, policy_type: "pubkey", user_pubkey: "02" + "11".repeat(32) }] },
      unlock_hash: null, funding_txid: null, funding_tx_hex: null,
    });
  });

  it("shows the unlock hash of a waiting delegated participation, and the funding tx once the round finished", () => {
    const delegated = pendingRoundInfo({ ...base, kind: "delegated", unlockHash: "ee".repeat(32) }, { status: "pending" });
    expect([delegated.unlock_hash, delegated.funding_txid]).to.deep.equal(["ee".repeat(32), null]);
    const info = pendingRoundInfo(finished, { status: "unconfirmed", funding_txid: "dd".repeat(32) });
    expect([info.unlock_hash, info.funding_txid, info.funding_tx_hex]).to.deep.equal(["cc".repeat(32), "dd".repeat(32), "0200"]);
    const failed = pendingRoundInfo({ ...finished, status: "failed", error: "x" }, { status: "failed", error: "x" });
    expect([failed.unlock_hash, failed.funding_txid]).to.deep.equal([null, null]);
  });

  it("counts a participation as pending in a round only while it holds its inputs and has not ended", () => {
    expect(outputSum(base)).to.equal(99_850n);
    expect(isPendingInRound(base)).to.equal(true);
    expect(isPendingInRound({ ...base, kind: "delegated", inputsLocked: false })).to.equal(false);
    expect(isPendingInRound({ ...finished, kind: "delegated", inputsLocked: true })).to.equal(true);
    expect(isPendingInRound({ ...base, status: "done" })).to.equal(false);
    expect(isPendingInRound({ ...base, status: "failed", inputsLocked: false })).to.equal(false);
  });
});
