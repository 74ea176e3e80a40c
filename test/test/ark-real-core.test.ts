import { expect } from "chai";
import { arkServer, startArkServer, type RunningArkServer } from "@tender/devnet";
import { regtestRpc, startBitcoind, type RegtestRpc, type RunningBitcoind } from "@tender/core/testing";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { BOARD_FEES, boardFeeOf, ok, until, type PendingBoardInfo } from "./boards-harness.js";
import { ROUNDS_ENV, ROUND_CONFIRMATIONS, roundsDaemonConfig, untilMovementEnded, untilRoundStatus, type PendingRoundInfo } from "./rounds-harness.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC, spendable, type Balance, type Movement, type VtxoInfo } from "./ark-harness.js";

const exe = process.env.BITCOIND_EXE;
const FUNDER = "funder";
const REQUIRED_CONFIRMATIONS = 2;

interface OnchainBalance { trusted_spendable_sat: number; untrusted_pending_sat: number }
interface Utxo { outpoint: string; amount_sat: number; confirmation_height: number | null }

const sat = (btc: number): number => Math.round(btc * 1e8);

/**
 * The Ark flow on a real Bitcoin Core with two daemons, as captaind runs: the reference Ark server
 * uses Core's RPC (and its own watch-only wallet there) instead of the devnet's node, both daemons
 * use a bitcoind chain source on the same Core. Alice funds her on-chain wallet from a Core wallet
 * and boards; the board registers once Core has mined the server's confirmations; she pays Bob's
 * Ark address and Bob receives through his mailbox; Bob refreshes that VTXO in a round the
 * server funds from its wallet in Core. Chain facts are checked against Core's RPC.
 */
describe("the Ark flow on a real Bitcoin Core: the reference server and two daemons on bitcoind", function () {
  this.timeout(90_000);
  if (!exe) {
    it("boards, pays arkoor and receives through the mailbox on Bitcoin Core", function () {
      console.log("      skipped: BITCOIND_EXE is not set (point it at a bitcoind binary to run the Ark flow against Bitcoin Core)");
      this.skip();
    });
    return;
  }

  let core: RunningBitcoind;
  let rpc: RegtestRpc;
  let funder: RegtestRpc;
  let funderAddress: string;
  let ark: RunningArkServer;
  let alice: Daemon;
  let bob: Daemon;

  const mine = async (n: number) => (await rpc.call("generatetoaddress", [n, funderAddress])) as string[];
  /** A new wallet (its birthday the current tip) on `mnemonic`, with the Ark server and Core as its chain source. */
  const createBody = async (mnemonic: string) => ({
    network: "regtest", ark_server: ark.url, mnemonic, birthday_height: (await rpc.call("getblockcount")) as number,
    chain_source: { bitcoind: { bitcoind: core.url, bitcoind_auth: { cookie: { cookie: core.cookieFile } } } },
  });

  before(async () => {
    // Core's wallet pays the daemons and the server wallet: a fallback fee, as a fresh regtest chain has no estimates
    core = await startBitcoind(exe, { wallet: true, args: ["-fallbackfee=0.0002"] });
    rpc = regtestRpc(core.url, { cookieFile: core.cookieFile });
    await rpc.call("createwallet", [FUNDER]);
    funder = regtestRpc(`${core.url}/wallet/${FUNDER}`, { cookieFile: core.cookieFile });
    funderAddress = (await funder.call("getnewaddress")) as string;
    await mine(101);
    const fees = { ...arkServer.testFeeSchedule(), board: BOARD_FEES };
    ark = await startArkServer({
      chain: await arkServer.bitcoindServerChain({ url: core.url, auth: { cookieFile: core.cookieFile } }),
      profile: "test",
      overrides: { fees, requiredBoardConfirmations: REQUIRED_CONFIRMATIONS },
    });
    // tenderd's default plugins (boards and rounds included), fast background loops
    const daemon = () => startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV });
    [alice, bob] = await Promise.all([daemon(), daemon()]);
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await ark?.stop();
    await core?.stop();
  });

  it("keeps the server wallet in Core: paid to its address from a Core wallet, its coins are the ones Core lists", async () => {
    const status = await ark.server.walletStatus();
    const txid = (await funder.call("sendtoaddress", [status.address, 1])) as string;
    await rpc.call("syncwithvalidationinterfacequeue");
    expect(await ark.server.walletStatus()).to.deep.include({ untrustedBalance: 100_000_000n, trustedBalance: 0n, unconfirmedUtxos: [`${txid}:${await voutPaying(txid, status.address)}`] });
    await mine(1);
    await rpc.call("syncwithvalidationinterfacequeue");
    const after = await ark.server.walletStatus();
    expect(after).to.deep.include({ trustedBalance: 100_000_000n, untrustedBalance: 0n });
    const coreCoins = (await regtestRpc(`${core.url}/wallet/ark-server`, { cookieFile: core.cookieFile }).call("listunspent", [1])) as { txid: string; vout: number }[];
    expect(after.confirmedUtxos).to.deep.equal(coreCoins.map((c) => `${c.txid}:${c.vout}`));
  });

  /** The output of `txid` paying `address`. */
  const voutPaying = async (txid: string, address: string): Promise<number> => {
    const tx = (await rpc.call("getrawtransaction", [txid, true])) as { vout: { n: number; scriptPubKey: { address?: string } }[] };
    return tx.vout.find((o) => o.scriptPubKey.address === address)!.n;
  };

  it("boards, pays Bob arkoor and Bob receives through his mailbox, with every chain fact from Core", async () => {
    // Alice's on-chain wallet, funded from Core's wallet
    await ok(alice, "POST", "/api/v1/wallet/create", await createBody(ALICE_MNEMONIC));
    const { address: onchainAddress } = await ok<{ address: string }>(alice, "POST", "/api/v1/onchain/addresses/next");
    await funder.call("sendtoaddress", [onchainAddress, 0.01]);
    await mine(1);
    await ok(alice, "POST", "/api/v1/onchain/sync");
    expect((await ok<OnchainBalance>(alice, "GET", "/api/v1/onchain/balance")).trusted_spendable_sat).to.equal(1_000_000);

    // the board: its funding tx in Core's mempool, pending until Core has mined the server's confirmations
    const board = await ok<PendingBoardInfo>(alice, "POST", "/api/v1/boards/board-amount", { amount_sat: 300_000 });
    expect(board.amount_sat).to.equal(300_000 - boardFeeOf(300_000));
    const entry = (await rpc.call("getmempoolentry", [board.funding_tx.txid])) as { fees: { base: number } };
    const fundingTx = (await rpc.call("getrawtransaction", [board.funding_tx.txid, true])) as { hex: string; vout: { value: number }[] };
    expect(fundingTx.hex).to.equal(board.funding_tx.tx);
    expect(fundingTx.vout.map((o) => sat(o.value))).to.include(300_000);
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).pending_board_sat).to.equal(board.amount_sat);
    await mine(REQUIRED_CONFIRMATIONS);
    await until("the board registered", async () => ((await ok<PendingBoardInfo[]>(alice, "GET", "/api/v1/boards/pending")).length === 0 ? true : undefined), 40_000);
    expect(await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).to.deep.include({ spendable_sat: board.amount_sat, pending_board_sat: 0 });
    const [vtxo] = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos");
    expect(vtxo!.chain_anchor.split(":")[0]).to.equal(board.funding_tx.txid);
    expect((await rpc.call("getrawtransaction", [board.funding_tx.txid, true])) as { confirmations: number }).to.deep.include({ confirmations: REQUIRED_CONFIRMATIONS });

    // Alice's on-chain wallet after the board: paid the board output and Core's fee; its coins are in Core's UTXO set
    await ok(alice, "POST", "/api/v1/onchain/sync");
    const onchain = await ok<OnchainBalance>(alice, "GET", "/api/v1/onchain/balance");
    expect(onchain.trusted_spendable_sat).to.equal(1_000_000 - 300_000 - sat(entry.fees.base));
    for (const u of await ok<Utxo[]>(alice, "GET", "/api/v1/onchain/utxos")) {
      const [txid, vout] = u.outpoint.split(":");
      const out = (await rpc.call("gettxout", [txid, Number(vout)])) as { value: number } | null;
      expect(out && sat(out.value), `${u.outpoint} unspent in Core`).to.equal(u.amount_sat);
    }

    // Alice pays Bob's Ark address; Bob receives through his mailbox
    await ok(bob, "POST", "/api/v1/wallet/create", await createBody(BOB_MNEMONIC));
    const { address: bobAddress } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const { movement_id: sentMovement, ...sent } = await ok<{ message: string; movement_id: number }>(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 120_000 });
    expect(sent).to.deep.equal({ message: "Payment sent successfully" });
    expect(sentMovement, "tender names the payment's movement").to.be.a("number");
    expect(await spendable(alice)).to.equal(board.amount_sat - 120_000);
    await until("Bob received", async () => ((await spendable(bob)) === 120_000 ? true : undefined), 30_000);
    expect((await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos")).map((v) => [v.amount_sat, v.state.type])).to.deep.equal([[120_000, "spendable"]]);
    const bobHistory = await ok<Movement[]>(bob, "GET", "/api/v1/history");
    expect(bobHistory.map((m) => [m.subsystem.name, m.subsystem.kind, m.status, m.effective_balance_sat])).to.deep.equal([["bark.arkoor", "receive", "successful", 120_000]]);
    const aliceHistory = await ok<Movement[]>(alice, "GET", "/api/v1/history");
    expect(aliceHistory.map((m) => [m.subsystem.name, m.subsystem.kind, m.status, m.effective_balance_sat])).to.deep.equal([
      ["bark.arkoor", "send", "successful", -120_000],
      ["bark.board", "board", "successful", board.amount_sat],
    ]);
  });

  it("refreshes Bob's VTXO in a round funded by the server wallet in Core: the funding tx spends the wallet's coin, Core mines it, the new VTXO is spendable", async () => {
    const [received] = await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos");
    const walletBefore = await ark.server.walletStatus();
    const refresh = await ok<PendingRoundInfo>(bob, "POST", "/api/v1/wallet/refresh/vtxos", { vtxos: [received!.id] });
    ark.server.triggerRound();
    const unconfirmed = await untilRoundStatus(bob, refresh.id, "unconfirmed");
    const fundingTxid = unconfirmed.funding_txid!;

    // the funding tx is in Core's mempool, spends the server wallet's coin and pays the change back to it
    const funding = (await rpc.call("getrawtransaction", [fundingTxid, true])) as { hex: string; vin: { txid: string; vout: number }[]; vout: { value: number; scriptPubKey: { address?: string } }[] };
    expect(funding.hex).to.equal(unconfirmed.funding_tx_hex);
    expect(await rpc.call("getmempoolentry", [fundingTxid])).to.be.an("object");
    expect(funding.vin.map((i) => `${i.txid}:${i.vout}`)).to.deep.equal(walletBefore.confirmedUtxos);
    const change = funding.vout.find((o) => o.scriptPubKey.address === walletBefore.address)!;
    // the tree output carries the refreshed VTXO (the test profile charges no refresh fee) and the tree's own costs
    const refreshed = refresh.participation.outputs[0]!.amount_sat;
    expect(refreshed).to.equal(120_000);
    expect(sat(funding.vout[0]!.value)).to.be.at.least(refreshed);
    await rpc.call("syncwithvalidationinterfacequeue");
    expect(await ark.server.walletStatus()).to.deep.include({ totalBalance: BigInt(sat(change.value)), confirmedUtxos: [] });

    // Core mines the confirmations: the swap completes, the refreshed VTXO anchors in the funding tx
    await mine(ROUND_CONFIRMATIONS);
    const movement = await untilMovementEnded(bob, (await ok<Movement[]>(bob, "GET", "/api/v1/history")).find((m) => m.subsystem.name === "bark.round")!.id);
    expect(movement.status).to.equal("successful");
    const now = await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos");
    expect(now.map((v) => [v.amount_sat, v.state.type, v.chain_anchor.split(":")[0]])).to.deep.equal([[refreshed, "spendable", fundingTxid]]);
    expect(await spendable(bob)).to.equal(refreshed);
    expect((await rpc.call("getrawtransaction", [fundingTxid, true])) as { confirmations: number }).to.deep.include({ confirmations: ROUND_CONFIRMATIONS });
    await rpc.call("syncwithvalidationinterfacequeue");
    expect(await ark.server.walletStatus()).to.deep.include({ trustedBalance: BigInt(sat(change.value)), untrustedBalance: 0n });
  });
});
