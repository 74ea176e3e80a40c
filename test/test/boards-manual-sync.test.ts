import { expect } from "chai";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { BOARD_DAEMON_CONFIG, REQUIRED_CONFIRMATIONS, fundedWallet, ok, startBoardDevnet, type DevnetWithArk, type PendingBoardInfo } from "./boards-harness.js";

/** barkd's manual-sync mode: with `daemon_manual_sync = true` only the heartbeat runs; `POST /wallet/sync` drives boards. */
describe("boards with daemon_manual_sync", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let d: Daemon;
  before(async () => { devnet = await startBoardDevnet("boards-manual-sync"); });
  after(async () => { await d?.stop(); if (d) cleanup(d.datadir); await devnet.stop(); });

  it("leaves a confirmed board pending until the client calls POST /api/v1/wallet/sync", async () => {
    d = await startDaemon({ config: BOARD_DAEMON_CONFIG });
    await fundedWallet(d, devnet, [200_000n]);
    await d.stop();
    appendFileSync(join(d.datadir, "config.toml"), "daemon_manual_sync = true\n");
    d = await startDaemon({ datadir: d.datadir, config: BOARD_DAEMON_CONFIG });

    const board = await ok<PendingBoardInfo>(d, "POST", "/api/v1/boards/board-amount", { amount_sat: 100_000 });
    devnet.node.mine(REQUIRED_CONFIRMATIONS);
    await new Promise((r) => setTimeout(r, 3_000)); // background polls would have registered it by now
    expect((await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).map((b) => b.movement_id)).to.deep.equal([board.movement_id]);

    expect((await d.api("POST", "/api/v1/wallet/sync")).status).to.equal(200);
    expect(await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).to.deep.equal([]);
    expect((await ok<{ spendable_sat: number }>(d, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(board.amount_sat);
  });
});
