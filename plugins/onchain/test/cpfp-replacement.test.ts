import { expect } from "chai";
import { EsploraChainSource } from "@tender/chain-esplora";
import { silentLogger } from "@tender/core";
import { startDevnet, type Devnet } from "@tender/devnet";
import { masterKey } from "@tender/plugin-wallet";
import { Transaction } from "bitcoinjs-lib";
import { Bip86Keychain, MemoryOnchainStore, OnchainWallet, P2A_SCRIPT_HEX, signSpend, type SignedSpend } from "../src/index.js";

const MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow";
const FAST = { timeoutMs: 2_000, retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1, factor: 1 } };

describe("on-chain wallet: replacing a CPFP child (RBF of an exit package)", function () {
  this.timeout(30_000);
  let devnet: Devnet;
  let store: MemoryOnchainStore;
  let wallet: OnchainWallet;
  let parent: SignedSpend;

  before(async () => {
    devnet = await startDevnet({ seed: "onchain-cpfp-replacement" });
    store = new MemoryOnchainStore();
    const source = new EsploraChainSource({ url: devnet.esploraUrl, ...FAST });
    wallet = await OnchainWallet.open(new Bip86Keychain(masterKey(MNEMONIC), "regtest"), source, store, silentLogger);
    // A zero-fee v3 parent with a P2A anchor (as an exit transaction), funded by a coin of its own.
    devnet.node.faucet(await wallet.nextAddress(), 30_000n);
    devnet.node.mine(1);
    await wallet.sync();
    const [coin] = wallet.spendableUtxos(true);
    parent = signSpend({
      inputs: [coin!], version: 3,
      outputs: [{ script: Buffer.from("0014751e76e8199196d454941c45d1b3a323f1433bd6", "hex"), valueSat: coin!.valueSat }, { script: Buffer.from(P2A_SCRIPT_HEX, "hex"), valueSat: 0n }],
    }, wallet.keychain, wallet.keychain.network);
    // the one confirmed coin every child of the parent must use
    devnet.node.faucet(await wallet.nextAddress(), 100_000n);
    devnet.node.mine(1);
    await wallet.sync();
  });
  after(async () => { await devnet.stop(); });

  it("re-spends the replaced child's coin, pays at least minFeeSat, is accepted as a replacement, and markReplaced drops the old child", async () => {
    const anchor = { txid: parent.txid, vout: 1, valueSat: 0n };
    const first = await wallet.fundCpfpChild({ anchor, parentVsize: parent.vsize, parentFeeSat: 0n, satPerVb: 2 });
    expect(devnet.node.submitPackage([parent.hex, first.hex]).packageMsg).to.equal("success");
    await wallet.markBroadcast(first.txid);
    await wallet.sync(); // sees the parent spend its own coin
    expect(wallet.spendableUtxos(true), "the only confirmed coin is spent by the first child").to.deep.equal([]);

    // Without `replaces` there is nothing left to fund a second child with.
    await wallet.fundCpfpChild({ anchor, parentVsize: parent.vsize, parentFeeSat: 0n, satPerVb: 5 }).then(
      () => expect.fail("funded without coins"), (e: Error) => expect(e.message).to.match(/Insufficient funds/));

    const minFeeSat = first.feeSat + BigInt(parent.vsize + first.vsize) + 500n;
    const second = await wallet.fundCpfpChild({ anchor, parentVsize: parent.vsize, parentFeeSat: 0n, satPerVb: 5, replaces: first.txid, minFeeSat });
    expect(second.feeSat >= minFeeSat).to.equal(true);
    const firstInputs = Transaction.fromHex(first.hex).ins.map((i) => `${Buffer.from(i.hash).reverse().toString("hex")}:${i.index}`);
    const secondInputs = Transaction.fromHex(second.hex).ins.map((i) => `${Buffer.from(i.hash).reverse().toString("hex")}:${i.index}`);
    expect(secondInputs).to.deep.equal(firstInputs);

    expect(devnet.node.submitPackage([parent.hex, second.hex]).packageMsg).to.equal("success");
    expect(devnet.node.getTransaction(first.txid), "the first child left the mempool").to.equal(undefined);
    await wallet.markBroadcast(second.txid);
    await wallet.markReplaced(first.txid);
    expect(store.txs.get(first.txid)?.state).to.equal("conflicted");
    const change = Transaction.fromHex(second.hex).outs[0]!.value;
    expect(wallet.balance().trustedPending, "only the replacement's change counts").to.equal(change);

    devnet.node.mine(1);
    await wallet.sync();
    expect(wallet.balance().confirmed).to.equal(change);
    expect(store.txs.get(first.txid)?.state).to.equal("conflicted");
  });
});
