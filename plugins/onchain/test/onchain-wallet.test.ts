import { expect } from "chai";
import { EsploraChainSource } from "@tender/chain-esplora";
import { silentLogger } from "@tender/core";
import { startDevnet, type Devnet } from "@tender/devnet";
import { masterKey } from "@tender/plugin-wallet";
import { Psbt, Transaction } from "bitcoinjs-lib";
import {
  Bip86Keychain, InsufficientFundsError, MemoryOnchainStore, OnchainWallet, P2A_SCRIPT_HEX, WrongNetworkAddressError, signSpend,
} from "../src/index.js";

const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const FAST = { timeoutMs: 2_000, retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1, factor: 1 } };

describe("on-chain wallet against the devnet (sync, send, drain, re-broadcast, conflicts, CPFP)", function () {
  this.timeout(30_000);
  let devnet: Devnet;
  let store: MemoryOnchainStore;
  let wallet: OnchainWallet;
  let clock = 1_800_000_000_000;
  const external = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";

  before(async () => {
    devnet = await startDevnet({ seed: "onchain-wallet-test" });
    store = new MemoryOnchainStore();
    const source = new EsploraChainSource({ url: devnet.esploraUrl, ...FAST });
    wallet = await OnchainWallet.open(new Bip86Keychain(masterKey(MNEMONIC), "regtest"), source, store, silentLogger, { now: () => clock });
  });
  after(async () => { await devnet.stop(); });

  it("reveals addresses in order and persists the next index", async () => {
    const a0 = await wallet.nextAddress();
    const a1 = await wallet.nextAddress();
    expect(a0).to.equal("bcrt1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqjeprhg");
    expect(a1).to.not.equal(a0);
    expect(store.state.nextIndex).to.equal(2);
  });

  it("sees a faucet payment as untrusted pending, then confirmed after a block, with the fee from the fetched parent", async () => {
    const a0 = wallet.keychain.key(0).address;
    const txid = devnet.node.faucet(a0, 200_000n);
    await wallet.sync();
    expect(wallet.balance()).to.deep.equal({ confirmed: 0n, immature: 0n, trustedPending: 0n, untrustedPending: 200_000n });
    devnet.node.mine(1);
    await wallet.sync();
    expect(wallet.balance()).to.deep.equal({ confirmed: 200_000n, immature: 0n, trustedPending: 0n, untrustedPending: 0n });
    const [tx] = wallet.transactions();
    expect(tx!.txid).to.equal(txid);
    expect(tx!.balanceChangeSat).to.equal(200_000n);
    expect(tx!.block?.height).to.equal(devnet.node.tipHeight());
    expect(tx!.feeSat).to.equal(devnet.node.getTransaction(txid)!.feeSat);
    expect(wallet.utxos().map((u) => [u.txid, u.valueSat, u.confirmationHeight])).to.deep.equal([[txid, 200_000n, devnet.node.tipHeight()]]);
  });

  it("sends with change to a fresh wallet address; the devnet accepts the signature; change counts as trusted pending", async () => {
    const txid = await wallet.send([{ address: external, amountSat: 50_000n }]);
    expect(devnet.node.getTransaction(txid)?.status.confirmed).to.equal(false);
    expect(store.txs.get(txid)?.lastBroadcastMs).to.equal(clock);
    const sent = wallet.transactions().find((t) => t.txid === txid)!;
    const tx = Transaction.fromHex(sent.hex);
    expect(tx.outs).to.have.length(2);
    expect(sent.feeSat! > 0n).to.equal(true);
    expect(sent.balanceChangeSat).to.equal(-(50_000n + sent.feeSat!));
    const b = wallet.balance();
    expect(b.confirmed).to.equal(0n);
    expect(b.trustedPending).to.equal(200_000n - 50_000n - sent.feeSat!);
    expect(store.state.nextIndex).to.equal(3);
    // the fee matches the regular rate for the signed size
    expect(Number(sent.feeSat!)).to.equal(Math.ceil(tx.virtualSize()) * wallet.feeRates().regularSatPerVb);
  });

  it("refuses more than the spendable balance and a wrong-network address, changing nothing", async () => {
    const before = { txs: store.txs.size, index: store.state.nextIndex, balance: wallet.balance() };
    const big = await wallet.send([{ address: external, amountSat: 10_000_000n }]).then(() => null, (e: unknown) => e);
    expect(big).to.be.instanceOf(InsufficientFundsError);
    const wrong = await wallet.send([{ address: "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr", amountSat: 1_000n }]).then(() => null, (e: unknown) => e);
    expect(wrong).to.be.instanceOf(WrongNetworkAddressError);
    expect({ txs: store.txs.size, index: store.state.nextIndex, balance: wallet.balance() }).to.deep.equal(before);
  });

  it("re-broadcasts an evicted wallet transaction only after the 30-second grace", async () => {
    const pending = wallet.transactions().find((t) => t.block === null)!;
    expect(devnet.node.evict(pending.txid)).to.include(pending.txid);
    clock += 10_000;
    let report = await wallet.sync();
    expect(report.rebroadcast).to.deep.equal([]);
    expect(devnet.node.getTransaction(pending.txid)).to.equal(undefined);
    clock += 21_000;
    report = await wallet.sync();
    expect(report.rebroadcast).to.deep.equal([pending.txid]);
    expect(devnet.node.getTransaction(pending.txid)?.status.confirmed).to.equal(false);
    devnet.node.mine(1);
    await wallet.sync();
    expect(wallet.balance().trustedPending).to.equal(0n);
    expect(wallet.transactions().every((t) => t.block !== null)).to.equal(true);
  });

  it("re-broadcasts an evicted chain of wallet transactions parent first, even with equal timestamps", async () => {
    const parent = await wallet.send([{ address: external, amountSat: 10_000n }]);
    const child = await wallet.send([{ address: external, amountSat: 10_000n }]);
    expect(Transaction.fromHex(store.txs.get(child)!.hex).ins.some((i) => Buffer.from(i.hash).reverse().toString("hex") === parent)).to.equal(true);
    expect(devnet.node.evict(parent)).to.include.members([parent, child]);
    clock += 31_000;
    const report = await wallet.sync();
    expect(report.rebroadcast).to.deep.equal([parent, child]);
    devnet.node.mine(1);
    await wallet.sync();
    expect(wallet.spendableUtxos()).to.have.length(1);
  });

  it("marks a wallet transaction whose input a confirmed conflict spent as conflicted, and drops it from balance and history", async () => {
    const [coin] = wallet.spendableUtxos();
    const txid = await wallet.send([{ address: external, amountSat: 20_000n }]);
    expect(wallet.balance().confirmed).to.equal(0n); // the only coin is spent by the pending send
    const conflict = signSpend({ inputs: [coin!], outputs: [{ script: Buffer.from("0014751e76e8199196d454941c45d1b3a323f1433bd6", "hex"), valueSat: coin!.valueSat - 5_000n }] },
      wallet.keychain, wallet.keychain.network);
    devnet.node.replaceWithConfirmedConflict(txid, conflict.hex);
    clock += 31_000;
    const report = await wallet.sync();
    expect(report.conflicted).to.deep.equal([txid]);
    expect(wallet.transactions().map((t) => t.txid)).to.not.include(txid);
    expect(store.txs.get(txid)?.state).to.equal("conflicted");
  });

  it("funds a TRUC CPFP child for a zero-fee v3 parent with a P2A output; the package is accepted and the child is is_cpfp", async () => {
    expect(wallet.spendableUtxos()).to.deep.equal([]);
    const a = await wallet.nextAddress();
    devnet.node.faucet(a, 30_000n);
    devnet.node.mine(1);
    await wallet.sync();
    const [coin] = wallet.spendableUtxos(true);
    expect(coin).to.not.equal(undefined);
    // A zero-fee v3 parent paying everything back to the wallet plus a 0-value anchor, as an exit transaction would.
    const back = wallet.keychain.key(0).script;
    const parent = signSpend({
      inputs: [coin!], version: 3,
      outputs: [{ script: back, valueSat: coin!.valueSat }, { script: Buffer.from(P2A_SCRIPT_HEX, "hex"), valueSat: 0n }],
    }, wallet.keychain, wallet.keychain.network);
    expect(parent.feeSat).to.equal(0n);
    // The parent's own output is not spendable yet; the child must use a confirmed coin.
    const fund = await wallet.nextAddress();
    devnet.node.faucet(fund, 100_000n); // largest first: the child takes this coin, not the parent's
    devnet.node.mine(1);
    await wallet.sync();
    const child = await wallet.fundCpfpChild({ anchor: { txid: parent.txid, vout: 1, valueSat: 0n }, parentVsize: parent.vsize, parentFeeSat: 0n, satPerVb: 2 });
    expect(Transaction.fromHex(child.hex).version).to.equal(3);
    expect(child.feeSat >= BigInt((parent.vsize + child.vsize) * 2)).to.equal(true);
    const result = devnet.node.submitPackage([parent.hex, child.hex]);
    expect(result.packageMsg).to.equal("success");
    expect(devnet.node.getTransaction(child.txid)?.status.confirmed).to.equal(false);
    await wallet.markBroadcast(child.txid);
    await wallet.sync();
    const listed = wallet.transactions().find((t) => t.txid === child.txid)!;
    expect(listed.isCpfp).to.equal(true);
    expect(listed.feeSat).to.equal(child.feeSat);
  });

  it("signs exactly the wallet's inputs of a foreign PSBT, which then finalizes and is accepted", async () => {
    const a = await wallet.nextAddress();
    const fundTxid = devnet.node.faucet(a, 40_000n);
    devnet.node.mine(1);
    await wallet.sync();
    const coin = wallet.utxos().find((u) => u.txid === fundTxid)!;
    const psbt = new Psbt({ network: wallet.keychain.network });
    psbt.addInput({ hash: coin.txid, index: coin.vout, witnessUtxo: { script: coin.script, value: coin.valueSat } });
    psbt.addOutput({ address: external, value: 39_000n });
    expect(wallet.signPsbt(psbt)).to.deep.equal([0]);
    expect(wallet.signPsbt(psbt)).to.deep.equal([]); // already signed
    psbt.finalizeAllInputs();
    const hex = psbt.extractTransaction().toHex();
    expect(devnet.node.submitTransaction(hex)).to.equal(psbt.extractTransaction().getId());
    devnet.node.mine(1);
    await wallet.sync();
  });

  it("holds a transaction another plugin will broadcast: inputs reserved, not listed or re-broadcast; abandon releases, a sighting lists it", async () => {
    const a = await wallet.nextAddress();
    const fundTxid = devnet.node.faucet(a, 25_000n);
    devnet.node.mine(1);
    await wallet.sync();
    const coin = wallet.utxos().find((u) => u.txid === fundTxid)!;
    const balance = wallet.balance();
    const signed = signSpend({ inputs: [coin], outputs: [{ script: Buffer.from("0014751e76e8199196d454941c45d1b3a323f1433bd6", "hex"), valueSat: 24_000n }] },
      wallet.keychain, wallet.keychain.network);
    await wallet.hold(signed);
    const reserved = () => wallet.spendableUtxos().some((u) => u.txid === fundTxid);
    expect(reserved()).to.equal(false);
    expect(wallet.balance()).to.deep.equal(balance);
    expect(wallet.transactions().map((t) => t.txid)).to.not.include(signed.txid);
    clock += 60_000;
    expect((await wallet.sync()).rebroadcast).to.deep.equal([]);
    expect(devnet.node.getTransaction(signed.txid)).to.equal(undefined);
    await wallet.abandon(signed.txid);
    expect(reserved()).to.equal(true);
    await wallet.hold(signed);
    devnet.node.submitTransaction(signed.hex); // the holder broadcasts it itself
    await wallet.sync();
    expect(wallet.transactions().map((t) => t.txid)).to.include(signed.txid);
    expect(store.txs.get(signed.txid)?.held).to.equal(false);
    devnet.node.mine(1);
    await wallet.sync();
  });

  it("drains every spendable coin to one output, leaving nothing spendable", async () => {
    devnet.node.mine(1);
    await wallet.sync();
    const spendable = wallet.spendableUtxos().reduce((s, u) => s + u.valueSat, 0n);
    expect(spendable > 0n).to.equal(true);
    const txid = await wallet.drain(external);
    const tx = Transaction.fromHex(wallet.transactions().find((t) => t.txid === txid)!.hex);
    expect(tx.outs).to.have.length(1);
    expect(tx.outs[0]!.value).to.equal(spendable - store.txs.get(txid)!.feeSat!);
    expect(wallet.spendableUtxos()).to.deep.equal([]);
    const again = await wallet.drain(external).then(() => null, (e: unknown) => e);
    expect(again).to.be.instanceOf(InsufficientFundsError);
  });
});
