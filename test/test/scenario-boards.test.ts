import { expect } from "chai";
import { Transaction } from "bitcoinjs-lib";
import { displayHex } from "@tender/ark-protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  BOARD_DAEMON_CONFIG, REQUIRED_CONFIRMATIONS, fundedWallet, movement, ok, startBoardDevnet, until, type DevnetWithArk, type PendingBoardInfo,
} from "./boards-harness.js";

interface VtxoInfo { id: string; amount_sat: number; state: { type: string } }

/**
 * Client-side board scenario of bark's integration tests that no other end-to-end test asserts
 * (see the mapping table in test/README.md): a second board after the first one completed,
 * funded by its change.
 */
describe("bark's client board scenario: two consecutive boards (bark/board::board_twice_bark)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let d: Daemon;

  before(async () => {
    devnet = await startBoardDevnet("scenario-boards");
    d = await startDaemon({ config: BOARD_DAEMON_CONFIG });
  });
  after(async () => {
    if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  const boardAndConfirm = async (amount: number): Promise<PendingBoardInfo> => {
    const board = await ok<PendingBoardInfo>(d, "POST", "/api/v1/boards/board-amount", { amount_sat: amount });
    devnet.node.mine(REQUIRED_CONFIRMATIONS);
    await until("the board registered", async () => ((await movement(d, board.movement_id))?.status === "successful" ? true : undefined));
    return board;
  };

  it("boards, then boards again from the first board's change: two spendable VTXOs, two successful board movements", async () => {
    await fundedWallet(d, devnet, [300_000n]);
    const first = await boardAndConfirm(100_000);
    await ok(d, "POST", "/api/v1/onchain/sync");
    const second = await boardAndConfirm(100_000);
    const spentByFirst = Transaction.fromHex(first.funding_tx.tx).getId();
    const input = Transaction.fromHex(second.funding_tx.tx).ins.map((i) => displayHex(i.hash));
    expect(input, "the second board spends the first one's change").to.deep.equal([spentByFirst]);

    const vtxos = await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos");
    expect(vtxos.map((v) => [v.id, v.amount_sat, v.state.type]).sort()).to.deep.equal(
      [[first.vtxos[0], first.amount_sat, "spendable"], [second.vtxos[0], second.amount_sat, "spendable"]].sort(),
    );
    expect(await ok<{ spendable_sat: number; pending_board_sat: number }>(d, "GET", "/api/v1/wallet/balance")).to.deep.include({
      spendable_sat: first.amount_sat + second.amount_sat, pending_board_sat: 0,
    });
    const boards = (await ok<{ id: number; status: string; subsystem: { kind: string } }[]>(d, "GET", "/api/v1/history"))
      .filter((m) => m.subsystem.kind === "board");
    expect(boards.map((m) => [m.id, m.status])).to.deep.equal([[second.movement_id, "successful"], [first.movement_id, "successful"]]);
    expect(await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).to.deep.equal([]);
  });
});
