import { expect } from "chai";
import { Transaction } from "bitcoinjs-lib";
import { displayHex } from "@tender/ark-protocol";
import { Bip86Keychain, signSpend } from "@tender/plugin-onchain";
import { generateMnemonic, masterKey } from "@tender/plugin-wallet";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  BOARD_DAEMON_CONFIG, REQUIRED_CONFIRMATIONS, fundedWallet, movement, ok, startBoardDevnet, until, type DevnetWithArk, type PendingBoardInfo,
} from "./boards-harness.js";

describe("boards when the chain misbehaves: dropped and double-spent funding (the confirming step)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let d: Daemon;

  before(async () => { devnet = await startBoardDevnet("boards-chain-events"); });
  after(async () => { await devnet.stop(); });
  beforeEach(async () => { d = await startDaemon({ config: BOARD_DAEMON_CONFIG }); });
  afterEach(async () => { await d.stop(); cleanup(d.datadir); });

  it("re-broadcasts a funding tx dropped from the mempool, and the board still completes", async () => {
    await fundedWallet(d, devnet, [150_000n]);
    const board = await ok<PendingBoardInfo>(d, "POST", "/api/v1/boards/board-amount", { amount_sat: 100_000 });
    expect(devnet.node.evict(board.funding_tx.txid)).to.deep.equal([board.funding_tx.txid]);
    expect(devnet.node.getTransaction(board.funding_tx.txid)).to.equal(undefined);
    await until("the funding tx back in the mempool", async () => (devnet.node.getRawMempool().includes(board.funding_tx.txid) ? true : undefined));
    expect(await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).to.deep.equal([board]);
    devnet.node.mine(REQUIRED_CONFIRMATIONS);
    const m = await until("registration", async () => { const x = await movement(d, board.movement_id); return x?.status === "successful" ? x : undefined; });
    expect(m.output_vtxos).to.deep.equal(board.vtxos);
    expect((await devnet.ark.server.ctx.store.getVtxo(board.vtxos[0]!))?.state).to.equal("spendable");
  });

  it("fails the board, without retrying, when a confirmed transaction double-spends its funding input", async () => {
    const mnemonic = generateMnemonic();
    await fundedWallet(d, devnet, [150_000n], mnemonic);
    const board = await ok<PendingBoardInfo>(d, "POST", "/api/v1/boards/board-amount", { amount_sat: 100_000 });
    const funding = Transaction.fromHex(board.funding_tx.tx);
    expect(funding.ins).to.have.length(1);

    // The same wallet key signs a conflicting spend of the funding input (as another wallet on the same seed could).
    const keychain = new Bip86Keychain(masterKey(mnemonic), "regtest");
    const input = funding.ins[0]!;
    const prevTxid = displayHex(input.hash);
    const prev = devnet.node.getTransaction(prevTxid)!;
    const coin = prev.vout[input.index]!;
    const key = keychain.key(0);
    expect(coin.address).to.equal(key.address);
    const conflict = signSpend({
      inputs: [{ txid: prevTxid, vout: input.index, valueSat: coin.amountSat, keyIndex: 0, script: key.script, confirmationHeight: 0, trusted: true, isCoinbase: false }],
      outputs: [{ script: keychain.key(5).script, valueSat: coin.amountSat - 2_000n }],
    }, keychain, keychain.network);
    const replaced = devnet.node.replaceWithConfirmedConflict(board.funding_tx.txid, conflict.hex);
    expect(replaced.conflictTxid).to.equal(conflict.txid);
    expect(replaced.removed).to.include(board.funding_tx.txid);

    const failed = await until("the board to fail", async () => { const x = await movement(d, board.movement_id); return x?.status === "failed" ? x : undefined; });
    expect(failed.time.completed_at).to.be.a("string");
    expect(await ok<PendingBoardInfo[]>(d, "GET", "/api/v1/boards/pending")).to.deep.equal([]);
    // Failed for good: more blocks and time do not bring it back or register anything.
    devnet.node.mine(REQUIRED_CONFIRMATIONS);
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await movement(d, board.movement_id))!.status).to.equal("failed");
    expect(devnet.node.getRawMempool()).to.not.include(board.funding_tx.txid);
    expect(await devnet.ark.server.ctx.store.getVtxo(board.vtxos[0]!)).to.equal(undefined);
  });
});
