import { expect } from "chai";
import { Transaction } from "bitcoinjs-lib";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  BOARD_DAEMON_CONFIG, boardFeeOf, createBody, ok, startBoardDevnet, type DevnetWithArk, type PendingBoardInfo,
} from "./boards-harness.js";

const EXTERNAL = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";

interface OnchainBalance { total_sat: number; confirmed_sat: number; untrusted_pending_sat: number; trusted_pending_sat: number }

/**
 * A payment from someone else that a sync saw in the mempool, then mined, with no sync since:
 * the balance counts it, and every spend (boards, on-chain sends, drain) must be able to spend it,
 * as barkd's wallet refreshes its coins before it selects them. The background on-chain sync runs
 * once early (about a second after start-up or wallet load) and then once an hour
 * (`BOARD_DAEMON_CONFIG`), so each scenario starts after that early run and checks, right before
 * the spend, that the wallet still holds the coin as unconfirmed: only the spend itself can learn
 * of the confirmation.
 */
describe("spends see a coin mined since the last sync (boards, on-chain send, send-many, drain)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  const wallets = new Map<string, Daemon>();
  const SCENARIOS = ["board-amount", "board-all", "send", "send-many", "drain"];

  before(async () => {
    devnet = await startBoardDevnet("spend-mined-since-sync");
    await Promise.all(SCENARIOS.map(async (name) => {
      const d = await startDaemon({ config: BOARD_DAEMON_CONFIG });
      wallets.set(name, d);
      await ok(d, "POST", "/api/v1/wallet/create", createBody(devnet));
    }));
    await new Promise((r) => setTimeout(r, 2_500)); // past the early background sync of every daemon
  });
  after(async () => {
    for (const d of wallets.values()) { await d.stop(); cleanup(d.datadir); }
    await devnet.stop();
  });

  /** The wallet of `scenario`, holding one coin of `amount` from the faucet: synced while in the mempool, then mined. */
  const walletWithCoinMinedSinceSync = async (scenario: string, amount: bigint): Promise<{ d: Daemon; fundingTxid: string }> => {
    const d = wallets.get(scenario)!;
    const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/onchain/addresses/next");
    const fundingTxid = devnet.node.faucet(address, amount);
    await ok(d, "POST", "/api/v1/onchain/sync");
    devnet.node.mine(1);
    expect(devnet.node.getTransaction(fundingTxid)?.status.confirmed).to.equal(true);
    // the balance shows the coin; the wallet has not learned that it is confirmed
    expect(await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance")).to.deep.include({
      total_sat: Number(amount), untrusted_pending_sat: Number(amount), confirmed_sat: 0,
    });
    return { d, fundingTxid };
  };
  const spendsCoin = (hex: string, txid: string) => Transaction.fromHex(hex).ins.some((i) => Buffer.from(i.hash).reverse().toString("hex") === txid);

  it("POST boards/board-amount boards it, and the board's funding tx spends it", async () => {
    const { d, fundingTxid } = await walletWithCoinMinedSinceSync("board-amount", 300_000n);
    const r = await d.api("POST", "/api/v1/boards/board-amount", { body: { amount_sat: 200_000 } });
    expect(r.status, r.text).to.equal(200);
    const board = r.json as PendingBoardInfo;
    expect(board.amount_sat).to.equal(200_000 - boardFeeOf(200_000));
    expect(spendsCoin(board.funding_tx.tx, fundingTxid)).to.equal(true);
    expect(devnet.node.getTransaction(board.funding_tx.txid)?.status.confirmed, "funding tx broadcast").to.equal(false);
    // the wallet now knows the coin is confirmed (and spent by the board)
    expect(await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance")).to.deep.include({ untrusted_pending_sat: 0 });
  });

  it("POST boards/board-all boards it", async () => {
    const { d, fundingTxid } = await walletWithCoinMinedSinceSync("board-all", 250_000n);
    const r = await d.api("POST", "/api/v1/boards/board-all");
    expect(r.status, r.text).to.equal(200);
    const board = r.json as PendingBoardInfo;
    expect(spendsCoin(board.funding_tx.tx, fundingTxid)).to.equal(true);
    expect(await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance")).to.deep.include({ total_sat: 0 });
  });

  for (const [scenario, body] of [
    ["send", { destination: EXTERNAL, amount_sat: 100_000 }],
    ["send-many", { destinations: [`${EXTERNAL}:60000 sat`, `${EXTERNAL}:40000 sat`] }],
    ["drain", { destination: EXTERNAL }],
  ] as const) {
    it(`POST onchain/${scenario} spends it`, async () => {
      const { d, fundingTxid } = await walletWithCoinMinedSinceSync(scenario, 150_000n);
      const r = await d.api("POST", `/api/v1/onchain/${scenario}`, { body });
      expect(r.status, r.text).to.equal(200);
      const sent = devnet.node.getTransaction((r.json as { txid: string }).txid);
      expect(sent?.status.confirmed, "broadcast").to.equal(false);
      expect(spendsCoin(Buffer.from(sent!.raw).toString("hex"), fundingTxid)).to.equal(true);
    });
  }
});
