import { expect } from "chai";
import { BitcoindRpc } from "@tender/chain-bitcoind";
import { FAST_RETRY as FAST, TestWallet, sat, startBitcoind, type Coin, type RunningBitcoind } from "@tender/core/testing";
import { fromHex, toHex } from "@tender/ark-protocol";
import { bitcoindServerChain, type BitcoindServerChain } from "../../src/ark-server/chain/bitcoind-server-chain.js";

const exe = process.env.BITCOIND_EXE;

/**
 * The Ark server's chain on a real Bitcoin Core: connection checks (network, txindex), the server
 * wallet's script watched in a watch-only Core wallet (coins, confirmations, spends), transaction
 * lookups through a reorg, outputs, fee estimates and broadcasts — each answer checked against
 * Core's own RPC.
 */
describe("ark server chain on bitcoind (BitcoindServerChain) against a real Bitcoin Core", function () {
  this.timeout(120_000);
  if (!exe) {
    it("answers the server's chain calls from Bitcoin Core", function () {
      console.log("      skipped: BITCOIND_EXE is not set (point it at a bitcoind binary to run the Ark server's chain against Bitcoin Core)");
      this.skip();
    });
    return;
  }

  let core: RunningBitcoind;
  let rpc: BitcoindRpc;
  let chain: BitcoindServerChain;
  const miner = new TestWallet("server-chain-miner");
  const server = new TestWallet("server-chain-server-wallet");
  const other = new TestWallet("server-chain-other");
  const coins: Coin[] = [];
  const auth = () => ({ cookieFile: core.cookieFile });
  const mine = async (n: number) => (await rpc.call("generatetoaddress", [n, miner.address])) as string[];
  /** A mature miner coin paid to `to` (change back to the miner, 1 000 sat fee); returns the signed tx and the coin. */
  const pay = (to: TestWallet, valueSat: bigint) => {
    const coin = coins.shift()!;
    return { ...miner.spend([coin], [{ address: to.address, valueSat }, { address: miner.address, valueSat: coin.valueSat - valueSat - 1_000n }]), coin };
  };
  /** Another spend of `coin` paying `feeSat`. */
  const conflictOf = (coin: Coin, feeSat: bigint) => miner.spend([coin], [{ address: miner.address, valueSat: coin.valueSat - feeSat }]);

  before(async () => {
    core = await startBitcoind(exe, { wallet: true });
    rpc = new BitcoindRpc("test", { url: core.url, auth: auth() });
    const hashes = await mine(110);
    for (const h of hashes.slice(0, 10)) {
      const block = (await rpc.call("getblock", [h, 2])) as { tx: Array<{ txid: string; vout: Array<{ value: number }> }> };
      coins.push({ txid: block.tx[0]!.txid, vout: 0, valueSat: sat(block.tx[0]!.vout[0]!.value) });
    }
    chain = await bitcoindServerChain({ url: core.url, auth: auth(), retry: FAST });
  });
  after(async () => {
    await core?.stop();
  });

  it("refuses a node on another network, and one without txindex", async () => {
    let err: unknown;
    await bitcoindServerChain({ url: core.url, auth: auth(), network: "signet", retry: FAST }).catch((e: unknown) => (err = e));
    expect(String(err)).to.contain("bitcoind is on regtest, the Ark server needs signet");
    const bare = await startBitcoind(exe, { wallet: true, args: ["-txindex=0"] });
    try {
      err = undefined;
      await bitcoindServerChain({ url: bare.url, auth: { cookieFile: bare.cookieFile }, retry: FAST }).catch((e: unknown) => (err = e));
      expect(String(err)).to.contain("without txindex");
    } finally {
      await bare.stop();
    }
  });

  it("keeps the server wallet in a watch-only Core wallet: its coins only, mempool then confirmed, spends hide them", async () => {
    await chain.watchScript(fromHex(server.scriptHex));
    // a second start finds the wallet loaded and the script imported: nothing is added
    const again = await bitcoindServerChain({ url: core.url, auth: auth(), retry: FAST });
    await again.watchScript(fromHex(server.scriptHex));
    const walletRpc = new BitcoindRpc("test wallet", { url: `${core.url}/wallet/ark-server`, auth: auth() });
    const info = (await walletRpc.call("getwalletinfo")) as { private_keys_enabled: boolean; descriptors: boolean };
    expect(info).to.deep.include({ private_keys_enabled: false, descriptors: true });
    const listed = (await walletRpc.call("listdescriptors")) as { descriptors: { desc: string }[] };
    expect(listed.descriptors.map((d) => d.desc.split("#")[0])).to.deep.equal([`raw(${server.scriptHex})`]);

    const funding = pay(server, 2_000_000n);
    const noise = pay(other, 500_000n);
    for (const t of [funding, noise]) await rpc.call("sendrawtransaction", [t.hex]);
    await rpc.call("syncwithvalidationinterfacequeue");
    const script = fromHex(server.scriptHex);
    expect((await chain.utxosForScript(script)).map((u) => ({ ...u, scriptPubKey: toHex(u.scriptPubKey) }))).to.deep.equal([
      { txid: funding.txid, vout: 0, amountSat: 2_000_000n, scriptPubKey: server.scriptHex, status: { confirmed: false } },
    ]);
    const [block] = await mine(1);
    await rpc.call("syncwithvalidationinterfacequeue");
    const tip = (await rpc.call("getblockcount")) as number;
    expect(await chain.tipHeight()).to.equal(tip);
    const confirmed = await chain.utxosForScript(script);
    expect(confirmed.map((u) => [u.txid, u.vout, u.amountSat, u.status])).to.deep.equal([[funding.txid, 0, 2_000_000n, { confirmed: true, blockHeight: tip }]]);
    expect(await chain.utxosForScript(fromHex(other.scriptHex)), "a script that is not watched").to.deep.equal([]);

    // spent by a mempool tx: gone from the coins, and its change (paid back to the script) is there unconfirmed
    const spend = server.spend([{ txid: funding.txid, vout: 0, valueSat: 2_000_000n }], [{ address: other.address, valueSat: 1_000_000n }, { address: server.address, valueSat: 999_000n }]);
    expect(await chain.submitTransaction(fromHex(spend.hex))).to.equal(spend.txid);
    await rpc.call("syncwithvalidationinterfacequeue");
    expect((await chain.utxosForScript(script)).map((u) => [u.txid, u.vout, u.status.confirmed])).to.deep.equal([[spend.txid, 1, false]]);
    expect((await chain.getTransaction(funding.txid))?.status).to.deep.include({ confirmed: true, blockHeight: tip, blockHash: block });
  });

  it("looks transactions up as Core has them: unknown, mempool, confirmed, back in the mempool after a reorg", async () => {
    expect(await chain.getTransaction("00".repeat(32))).to.equal(undefined);
    expect(await chain.getTxStatus("00".repeat(32))).to.equal(undefined);
    const tx = pay(other, 300_000n);
    await chain.submitTransaction(fromHex(tx.hex));
    const inPool = await chain.getTransaction(tx.txid);
    expect(inPool && { txid: inPool.txid, raw: toHex(inPool.raw), status: inPool.status }).to.deep.equal({ txid: tx.txid, raw: tx.hex, status: { confirmed: false } });
    expect(await chain.getTxOut(tx.txid, 0, true)).to.deep.include({ confirmations: 0, amountSat: 300_000n });
    expect(await chain.getTxOut(tx.txid, 0, false), "a mempool output without the mempool").to.equal(undefined);

    const [hash] = await mine(1);
    const header = (await rpc.call("getblockheader", [hash])) as { height: number; time: number };
    expect(await chain.getTxStatus(tx.txid)).to.deep.equal({ confirmed: true, blockHeight: header.height, blockHash: hash, blockTime: header.time });
    expect(await chain.getTxOut(tx.txid, 0)).to.deep.include({ confirmations: 1, amountSat: 300_000n });
    expect(toHex((await chain.getTxOut(tx.txid, 0))!.scriptPubKey)).to.equal(other.scriptHex);
    // a confirmed tx handed in again: its txid, as for a fresh broadcast
    expect(await chain.submitTransaction(fromHex(tx.hex))).to.equal(tx.txid);

    // its block leaves the chain: the tx is back in the mempool, unconfirmed
    await rpc.call("invalidateblock", [hash]);
    expect(await chain.getTxStatus(tx.txid)).to.deep.equal({ confirmed: false });
    // replaced in the mempool as well: unknown, although txindex still has it
    await rpc.call("sendrawtransaction", [conflictOf(tx.coin, 50_000n).hex]);
    expect(await chain.getTxStatus(tx.txid), "replaced in the mempool").to.equal(undefined);
    expect(await chain.getTransaction(tx.txid)).to.equal(undefined);
    await rpc.call("reconsiderblock", [hash]);
    expect((await chain.getTxStatus(tx.txid))?.confirmed, "confirmed again with its block").to.equal(true);
  });

  it("tests and refuses transactions with Core's reasons, and has no fee estimate on a fresh regtest chain", async () => {
    const ok = pay(other, 100_000n);
    // paying less than the tx it conflicts with: no replacement
    const doubleSpend = conflictOf(ok.coin, 500n);
    const [verdict] = await chain.testMempoolAccept([fromHex(ok.hex)]);
    expect(verdict).to.deep.equal({ txid: ok.txid, allowed: true });
    await chain.submitTransaction(fromHex(ok.hex));
    const [refused] = await chain.testMempoolAccept([fromHex(doubleSpend.hex)]);
    expect(refused).to.deep.include({ txid: doubleSpend.txid, allowed: false });
    expect(refused!.rejectReason).to.be.a("string").and.not.equal("");
    let err: unknown;
    await chain.submitTransaction(fromHex(doubleSpend.hex)).catch((e: unknown) => (err = e));
    expect(String(err)).to.match(/sendrawtransaction failed with RPC error -26: insufficient fee|txn-mempool-conflict|rejecting replacement/);
    err = undefined;
    await chain.estimateFeeRate(1).catch((e: unknown) => (err = e));
    expect(String(err)).to.contain("bitcoind has no fee estimate for 1 block(s)");
  });
});
