import { expect } from "chai";
import { EsploraChainSource } from "@tender/chain-esplora";
import { silentLogger, type ChainSource, type Logger } from "@tender/core";
import { startDevnet, type Devnet } from "@tender/devnet";
import { generateMnemonic, masterKey } from "@tender/plugin-wallet";
import { Bip86Keychain, InsufficientFundsError, MemoryOnchainStore, OnchainWallet } from "../src/index.js";

const FAST = { timeoutMs: 2_000, retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1, factor: 1 } };
const EXTERNAL = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";

/**
 * A spend refreshes the state of the wallet's unconfirmed coins from the chain source right before
 * it selects coins: a payment from someone else that the last sync saw in the mempool and that
 * has been mined since is spendable without a sync, as the balance already counts it.
 */
describe("on-chain spends refresh their candidate coins from the chain source (coins mined since the last sync)", function () {
  this.timeout(30_000);
  let devnet: Devnet;
  let source: ChainSource;
  let down = false;
  const warnings: string[] = [];
  const logger = { ...silentLogger, warn: (m: string) => void warnings.push(m) } as Logger;

  before(async () => {
    devnet = await startDevnet({ seed: "onchain-spend-refresh-test" });
    const esplora = new EsploraChainSource({ url: devnet.esploraUrl, ...FAST });
    // the same source, which can be made to fail every call
    source = new Proxy(esplora, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => (down ? Promise.reject(new Error("chain source unreachable")) : (v as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
  });
  after(async () => { await devnet.stop(); });

  /** A wallet of a fresh seed, so no test sees another's coins. */
  const openWallet = async (store = new MemoryOnchainStore()) =>
    ({ store, wallet: await OnchainWallet.open(new Bip86Keychain(masterKey(generateMnemonic()), "regtest"), source, store, logger) });

  /** A coin of `amount` from the faucet: synced while in the mempool, then mined (no sync since). */
  const coinMinedSinceSync = async (wallet: OnchainWallet, amount: bigint): Promise<string> => {
    const txid = devnet.node.faucet(await wallet.nextAddress(), amount);
    await wallet.sync();
    devnet.node.mine(1);
    return txid;
  };

  it("sends with a coin mined since the last sync, and persists that it is confirmed", async () => {
    const { store, wallet } = await openWallet();
    const funding = await coinMinedSinceSync(wallet, 200_000n);
    expect(wallet.balance()).to.deep.include({ confirmed: 0n, untrustedPending: 200_000n });
    expect(wallet.spendableUtxos()).to.deep.equal([]);
    const txid = await wallet.send([{ address: EXTERNAL, amountSat: 50_000n }]);
    expect(devnet.node.getTransaction(txid)!.vin.map((i) => i.txid)).to.deep.equal([funding]);
    expect(store.txs.get(funding)).to.deep.include({ state: "confirmed" });
    expect(store.txs.get(funding)!.block?.height).to.equal(devnet.node.tipHeight());
    devnet.node.mine(1);
    await wallet.sync();
  });

  it("drains and lists fresh coins (freshSpendableUtxos); a coin still in the mempool stays unspendable", async () => {
    const { wallet } = await openWallet();
    await wallet.sync();
    const mined = await coinMinedSinceSync(wallet, 80_000n);
    const pending = devnet.node.faucet(await wallet.nextAddress(), 30_000n);
    await wallet.sync(); // `pending` seen in the mempool; `mined` learned as confirmed here already
    const again = await coinMinedSinceSync(wallet, 40_000n); // mines `pending` too
    expect(wallet.spendableUtxos().map((u) => u.txid)).to.deep.equal([mined]);
    expect((await wallet.freshSpendableUtxos()).map((u) => u.txid).sort()).to.deep.equal([mined, pending, again].sort());
    const txid = await wallet.drain(EXTERNAL);
    expect(devnet.node.getTransaction(txid)!.vin.map((i) => i.txid).sort()).to.deep.equal([mined, pending, again].sort());
    devnet.node.faucet(await wallet.nextAddress(), 30_000n);
    await wallet.sync();
    expect(await wallet.drain(EXTERNAL).then(() => null, (e: unknown) => e)).to.be.instanceOf(InsufficientFundsError);
    expect(wallet.balance()).to.deep.include({ untrustedPending: 30_000n });
  });

  it("with the chain source unreachable, selects from the stored state and says so", async () => {
    const { wallet } = await openWallet();
    await wallet.sync();
    await coinMinedSinceSync(wallet, 60_000n);
    down = true;
    try {
      warnings.length = 0;
      expect(await wallet.freshSpendableUtxos()).to.deep.equal([]);
      expect(warnings).to.deep.equal(["could not refresh the coins' state before a spend, using the stored state: chain source unreachable"]);
    } finally {
      down = false;
    }
    expect(await wallet.freshSpendableUtxos()).to.have.length(1);
  });
});
