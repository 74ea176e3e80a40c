/**
 * A board the Ark server never registers goes out on chain before its expiry. The devnet's server
 * refuses `RegisterBoardVtxo` (`POST /devnet/ark/settings {refused_calls}`); the daemon keeps
 * asking while the tip is more than the wallet's `vtxo_refresh_expiry_threshold` blocks before the
 * board's expiry (after it, the server's expiry clause could take the funding output), and from
 * then on hands the board VTXO to the exits rail: its exit transaction (co-signed before the
 * funding was broadcast) confirms before the expiry, the board ends failed, and the money comes
 * back to the on-chain wallet through the exit's claim.
 */
import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  exitDaemonConfig, fundedWallet, liveExits, ok, progressUntilClaimable, startExitDevnet, until,
  type Balance, type DevnetWithArk, type Movement, type VtxoInfo,
} from "./exits-harness.js";

/** The wallet's refresh threshold here (not the regtest default, so the setting is what counts). */
const THRESHOLD = 30;
const AMOUNT = 100_000;

interface OnchainBalance { total_sat: number; confirmed_sat: number }

describe("a board the Ark server never registers is exited before its expiry (devnet refused_calls RegisterBoardVtxo)", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  let d: Daemon;

  before(async () => {
    devnet = await startExitDevnet("boards-unregistered-exit");
    d = await startDaemon({ config: exitDaemonConfig(), env: { TENDER_VTXO_REFRESH_EXPIRY_THRESHOLD: String(THRESHOLD) } });
    await fundedWallet(d, devnet, [200_000n, 50_000n, 50_000n]);
    await settings({ refused_calls: ["RegisterBoardVtxo"] });
  });
  after(async () => {
    await d?.stop();
    if (d) cleanup(d.datadir);
    await devnet?.stop();
  });

  async function settings(body: Record<string, unknown>): Promise<void> {
    const r = await fetch(`${devnet.arkControlUrl}/settings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(r.status, await r.text()).to.equal(200);
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const balance = () => ok<Balance>(d, "GET", "/api/v1/wallet/balance");
  const boardMovements = async () => (await ok<Movement[]>(d, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.board");
  const mineTo = (height: number) => {
    const n = height - devnet.node.tipHeight();
    expect(n, `mining up to ${height}`).to.be.at.least(0);
    if (n > 0) devnet.node.mine(n);
  };

  it("is retried until the refresh threshold before its expiry, then exited: the exit confirms before the expiry, the board ends failed, the claim brings the money back on chain", async () => {
    const board = await ok<{ vtxos: string[] }>(d, "POST", "/api/v1/boards/board-amount", { amount_sat: AMOUNT });
    const vtxoId = board.vtxos[0]!;
    const vtxo = await ok<VtxoInfo>(d, "GET", `/api/v1/wallet/vtxos/${vtxoId}`);
    devnet.node.mine(1);
    // confirmed, registration refused: the board stays pending, counted as such
    await sleep(1_000);
    expect((await ok<{ vtxos: string[] }[]>(d, "GET", "/api/v1/boards/pending")).flatMap((b) => b.vtxos)).to.deep.equal([vtxoId]);
    expect((await balance()).pending_board_sat).to.equal(vtxo.amount_sat);

    // one block before the threshold: still asking the server, no exit
    mineTo(vtxo.expiry_height - THRESHOLD - 1);
    await sleep(1_000);
    expect(await liveExits(d)).to.deep.equal([]);
    expect((await ok<unknown[]>(d, "GET", "/api/v1/boards/pending"))).to.have.length(1);

    // at the threshold: the board VTXO is handed to the exits rail; until its exit tx confirms it
    // is still the pending board (counted once, there)
    mineTo(vtxo.expiry_height - THRESHOLD);
    await until("the board's exit started", async () => ((await liveExits(d)).some((e) => e.vtxo_id === vtxoId) ? true : undefined), 30_000);
    expect((await ok<{ vtxos: string[] }[]>(d, "GET", "/api/v1/boards/pending")).flatMap((b) => b.vtxos)).to.deep.equal([vtxoId]);
    const during = await balance();
    expect([during.pending_board_sat, during.pending_exit_sat ?? 0]).to.deep.equal([vtxo.amount_sat, 0]);
    expect((await boardMovements()).map((m) => m.status)).to.deep.equal(["pending"]);

    // the exit goes out (CPFP from the on-chain wallet) and confirms before the expiry; from then
    // on the money is the exit's, counted once there
    await progressUntilClaimable(devnet, [d], 60);
    const claimable = await balance();
    expect([claimable.pending_board_sat, claimable.pending_exit_sat]).to.deep.equal([0, vtxo.amount_sat]);
    expect(await ok<unknown[]>(d, "GET", "/api/v1/boards/pending")).to.deep.equal([]);
    const exitTxid = (await ok<{ transactions?: { exit: { txid: string } }[] }>(d, "GET", `/api/v1/exits/status/vtxo/${vtxoId}?transactions=true`)).transactions![0]!.exit.txid;
    const confirmedAt = devnet.node.getTransaction(exitTxid)?.status.blockHeight;
    expect(confirmedAt, "the board's exit tx confirmed").to.be.a("number");
    expect(confirmedAt!).to.be.below(vtxo.expiry_height);
    await until("the board ended failed", async () => ((await boardMovements())[0]!.status === "failed" ? true : undefined), 30_000);
    expect((await ok<VtxoInfo>(d, "GET", `/api/v1/wallet/vtxos/${vtxoId}`)).state.type).to.equal("exited");

    // the claim pays the board amount minus its fee to the on-chain wallet, once
    await ok(d, "POST", "/api/v1/onchain/sync");
    const before = await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance");
    const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/onchain/addresses/next");
    expect(await ok(d, "POST", "/api/v1/exits/claim/all", { destination: address })).to.deep.equal({ message: "Exit claimed successfully" });
    devnet.node.mine(1);
    await ok(d, "POST", "/api/v1/exits/progress", {});
    expect(await liveExits(d)).to.deep.equal([]);
    await ok(d, "POST", "/api/v1/onchain/sync");
    const after = await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance");
    const gained = after.confirmed_sat - before.confirmed_sat;
    expect(gained, "the board amount minus the claim fee").to.be.above(vtxo.amount_sat - 2_000).and.below(vtxo.amount_sat);
    const final = await balance();
    expect([final.pending_board_sat, final.pending_exit_sat, final.spendable_sat]).to.deep.equal([0, 0, 0]);
    const exit = (await ok<Movement[]>(d, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.exit" && m.input_vtxos.includes(vtxoId));
    expect(exit.map((m) => m.status)).to.deep.equal(["successful"]);
  });
});
