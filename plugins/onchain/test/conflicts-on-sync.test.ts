import { expect } from "chai";
import { EsploraChainSource } from "@tender/chain-esplora";
import { silentLogger } from "@tender/core";
import { startDevnet, type Devnet } from "@tender/devnet";
import { generateMnemonic, masterKey } from "@tender/plugin-wallet";
import { address as btcAddress, networks } from "bitcoinjs-lib";
import { Bip86Keychain, MemoryOnchainStore, OnchainWallet, signSpend, type WalletUtxo } from "../src/index.js";

const FAST = { timeoutMs: 2_000, retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1, factor: 1 } };
const EXTERNAL = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
const EXTERNAL_SCRIPT = btcAddress.toOutputScript(EXTERNAL, networks.regtest);

/**
 * A sync marks a wallet transaction conflicted as soon as another transaction in a block or in
 * the mempool spends one of its inputs — within the re-broadcast grace, which these tests never
 * let pass (the wallet's clock stands still).
 */
describe("on-chain sync marks conflicted transactions at once (RBF replacement, confirmed double-spend, double-spent payment)", function () {
  this.timeout(30_000);
  let devnet: Devnet;
  const clock = 1_800_000_000_000;

  before(async () => { devnet = await startDevnet({ seed: "onchain-conflicts-on-sync" }); });
  after(async () => { await devnet.stop(); });

  /** A wallet of a fresh seed holding one confirmed coin of `amount`. */
  const fundedWallet = async (amount: bigint) => {
    const store = new MemoryOnchainStore();
    const source = new EsploraChainSource({ url: devnet.esploraUrl, ...FAST });
    const wallet = await OnchainWallet.open(new Bip86Keychain(masterKey(generateMnemonic()), "regtest"), source, store, silentLogger, { now: () => clock });
    devnet.node.faucet(await wallet.nextAddress(), amount);
    devnet.node.mine(1);
    await wallet.sync();
    expect(wallet.balance().confirmed).to.equal(amount);
    return { store, wallet };
  };

  /** A transaction of the wallet's keys spending `coin` to someone else, with fee `feeSat`. */
  const conflictFor = (wallet: OnchainWallet, coin: WalletUtxo, feeSat: bigint) =>
    signSpend({ inputs: [coin], outputs: [{ script: EXTERNAL_SCRIPT, valueSat: coin.valueSat - feeSat }] }, wallet.keychain, wallet.keychain.network);

  it("marks a send replaced in the mempool conflicted at the next sync: its change leaves balance, coins and history", async () => {
    const { store, wallet } = await fundedWallet(300_000n);
    const [coin] = wallet.spendableUtxos();
    const sent = await wallet.send([{ address: EXTERNAL, amountSat: 50_000n }]);
    expect(wallet.balance().trustedPending > 0n).to.equal(true);
    const replacement = conflictFor(wallet, coin!, 20_000n);
    expect(devnet.node.submitTransaction(replacement.hex)).to.equal(replacement.txid);
    expect(devnet.node.getTransaction(sent)).to.equal(undefined);

    const report = await wallet.sync();
    expect(report.conflicted).to.deep.equal([sent]);
    expect(report.rebroadcast).to.deep.equal([]);
    expect(store.txs.get(sent)?.state).to.equal("conflicted");
    expect(wallet.balance()).to.deep.equal({ confirmed: 0n, immature: 0n, trustedPending: 0n, untrustedPending: 0n });
    expect(wallet.utxos()).to.deep.equal([]);
    expect(wallet.spendableUtxos()).to.deep.equal([]);
    const listed = wallet.transactions().map((t) => t.txid);
    expect(listed).to.include(replacement.txid).and.not.include(sent);
    // the next sync changes nothing more
    expect((await wallet.sync()).conflicted).to.deep.equal([]);
    expect(devnet.node.getTransaction(sent)).to.equal(undefined);
  });

  it("marks a send and its child conflicted at once when a block holds a double-spend of the send's input", async () => {
    const { store, wallet } = await fundedWallet(400_000n);
    const [coin] = wallet.spendableUtxos();
    const parent = await wallet.send([{ address: EXTERNAL, amountSat: 60_000n }]);
    const child = await wallet.send([{ address: EXTERNAL, amountSat: 40_000n }]);
    const conflict = conflictFor(wallet, coin!, 7_000n);
    devnet.node.replaceWithConfirmedConflict(parent, conflict.hex);

    const report = await wallet.sync();
    expect(report.conflicted).to.have.members([parent, child]);
    expect(store.txs.get(parent)?.state).to.equal("conflicted");
    expect(store.txs.get(child)?.state).to.equal("conflicted");
    expect(wallet.balance()).to.deep.equal({ confirmed: 0n, immature: 0n, trustedPending: 0n, untrustedPending: 0n });
    const listed = wallet.transactions();
    expect(listed.map((t) => t.txid)).to.deep.equal([listed[0]!.txid, conflict.txid]);
    expect(listed[1]!.block?.height).to.equal(devnet.node.tipHeight());
  });

  it("frees the coins of a conflicted send that the conflict did not spend, for the next send", async () => {
    const { wallet } = await fundedWallet(200_000n);
    devnet.node.faucet(await wallet.nextAddress(), 150_000n);
    devnet.node.mine(1);
    await wallet.sync();
    const coins = wallet.spendableUtxos();
    expect(coins).to.have.length(2);
    // one send spending both coins; the conflict spends only the first
    const sent = await wallet.send([{ address: EXTERNAL, amountSat: 300_000n }]);
    expect(wallet.spendableUtxos(true)).to.deep.equal([]);
    const conflict = conflictFor(wallet, coins[0]!, 5_000n);
    devnet.node.replaceWithConfirmedConflict(sent, conflict.hex);

    expect((await wallet.sync()).conflicted).to.deep.equal([sent]);
    const free = wallet.spendableUtxos(true);
    expect(free.map((u) => `${u.txid}:${u.vout}`)).to.deep.equal([`${coins[1]!.txid}:${coins[1]!.vout}`]);
    const next = await wallet.send([{ address: EXTERNAL, amountSat: 100_000n }]);
    expect(devnet.node.getTransaction(next)?.status.confirmed).to.equal(false);
  });

  it("marks a payment to the wallet conflicted at once when its sender's double-spend is mined", async () => {
    const { wallet } = await fundedWallet(100_000n);
    const payment = devnet.node.faucet(await wallet.nextAddress(), 70_000n);
    await wallet.sync();
    expect(wallet.balance().untrustedPending).to.equal(70_000n);
    devnet.node.replaceWithConfirmedConflict(payment);

    const report = await wallet.sync();
    expect(report.conflicted).to.deep.equal([payment]);
    expect(wallet.balance()).to.deep.equal({ confirmed: 100_000n, immature: 0n, trustedPending: 0n, untrustedPending: 0n });
    expect(wallet.transactions().map((t) => t.txid)).to.not.include(payment);
  });

  it("keeps an evicted send that nothing conflicts with, and re-broadcasts it only after the grace", async () => {
    const { wallet } = await fundedWallet(90_000n);
    const sent = await wallet.send([{ address: EXTERNAL, amountSat: 30_000n }]);
    devnet.node.evict(sent);
    const report = await wallet.sync();
    expect(report.conflicted).to.deep.equal([]);
    expect(report.rebroadcast).to.deep.equal([]);
    expect(wallet.balance().trustedPending).to.equal(wallet.utxos()[0]!.valueSat);
  });
});
