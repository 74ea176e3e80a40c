import { expect } from "chai";
import { EsploraChainSource } from "@tender/chain-esplora";
import { ChainSourceRejectedError, ChainSourceUnavailableError, InternalServerError, silentLogger, type ChainSource } from "@tender/core";
import { startDevnet, type Devnet } from "@tender/devnet";
import { generateMnemonic, masterKey } from "@tender/plugin-wallet";
import { createServer } from "node:net";
import { Bip86Keychain, InvalidAmountError, MemoryOnchainStore, OnchainWallet } from "../src/index.js";

const FAST = { timeoutMs: 2_000, retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 1, factor: 1 } };
const EXTERNAL = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

type Broadcast = (hex: string, real: ChainSource) => Promise<string>;

/**
 * The answer of a send never says "failed" for a transaction the wallet keeps and will broadcast:
 * when the chain source certainly did not get it, the transaction is dropped and its coins are
 * free; when it may have got it, the txid is answered and the transaction is kept, listed and
 * re-broadcast by the next sync.
 */
describe("on-chain send answers: failed only when nothing can go out", function () {
  this.timeout(30_000);
  let devnet: Devnet;
  let real: EsploraChainSource;
  let dead: EsploraChainSource;
  let broadcast: Broadcast | undefined;
  const clock = 1_800_000_000_000;

  before(async () => {
    devnet = await startDevnet({ seed: "onchain-send-answers" });
    real = new EsploraChainSource({ url: devnet.esploraUrl, ...FAST });
    dead = new EsploraChainSource({ url: `http://127.0.0.1:${await closedPort()}`, ...FAST });
  });
  after(async () => { await devnet.stop(); });
  afterEach(() => { broadcast = undefined; });

  /** The devnet's source, whose broadcast a test may replace. */
  const source = (): ChainSource => new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === "broadcast") return (hex: string) => (broadcast ? broadcast(hex, real) : real.broadcast(hex));
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });

  const fundedWallet = async (amount: bigint) => {
    const store = new MemoryOnchainStore();
    const wallet = await OnchainWallet.open(new Bip86Keychain(masterKey(generateMnemonic()), "regtest"), source(), store, silentLogger, { now: () => clock });
    devnet.node.faucet(await wallet.nextAddress(), amount);
    devnet.node.mine(1);
    await wallet.sync();
    return { store, wallet };
  };
  const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e: unknown) => e as Error);

  it("refuses a send whose broadcast found nobody listening, keeping nothing: the coins are free and a retry pays once", async () => {
    const { store, wallet } = await fundedWallet(200_000n);
    const before = wallet.balance();
    broadcast = (hex) => dead.broadcast(hex);
    const e = await failure(wallet.send([{ address: EXTERNAL, amountSat: 50_000n }]));
    expect(e).to.be.instanceOf(InternalServerError);
    expect(e.message).to.match(/^Failed to send onchain payment: chain source http:\/\/127\.0\.0\.1:\d+ is unavailable \(connection, 2 attempts\): ECONNREFUSED.*; nothing was broadcast or spent$/);
    expect([...store.txs.values()].filter((t) => t.origin === "wallet")).to.deep.equal([]);
    expect(wallet.balance()).to.deep.equal(before);
    expect(devnet.node.getRawMempool()).to.deep.equal([]);
    // the next sync does not send it either
    await wallet.sync();
    expect(devnet.node.getRawMempool()).to.deep.equal([]);

    broadcast = undefined;
    const txid = await wallet.send([{ address: EXTERNAL, amountSat: 50_000n }]);
    expect(devnet.node.getRawMempool()).to.deep.equal([txid]);
    await wallet.sync();
    expect(devnet.node.getRawMempool()).to.deep.equal([txid]);
  });

  it("answers the txid when the answer was lost after the node took the transaction, and lists it", async () => {
    const { store, wallet } = await fundedWallet(200_000n);
    broadcast = async (hex, src) => {
      await src.broadcast(hex);
      throw new ChainSourceUnavailableError(src.label, "timeout", "no answer within 2000 ms");
    };
    const txid = await wallet.send([{ address: EXTERNAL, amountSat: 50_000n }]);
    expect(devnet.node.getRawMempool()).to.deep.equal([txid]);
    expect(store.txs.get(txid)).to.include({ state: "pending", lastBroadcastMs: null });
    expect(wallet.transactions().map((t) => t.txid)).to.include(txid);
    broadcast = undefined;
    await wallet.sync();
    expect(devnet.node.getRawMempool()).to.deep.equal([txid]);
  });

  it("answers the txid when the broadcast may have failed, and the next sync broadcasts it without waiting for the grace", async () => {
    const { store, wallet } = await fundedWallet(200_000n);
    broadcast = async (_hex, src) => { throw new ChainSourceUnavailableError(src.label, "connection", "ECONNRESET: other side closed"); };
    const txid = await wallet.send([{ address: EXTERNAL, amountSat: 50_000n }]);
    expect(devnet.node.getRawMempool()).to.deep.equal([]);
    expect(store.txs.get(txid)).to.include({ state: "pending", lastBroadcastMs: null });
    expect(wallet.balance().trustedPending).to.equal(200_000n - 50_000n - store.txs.get(txid)!.feeSat!);

    broadcast = undefined;
    const report = await wallet.sync(); // the wallet's clock has not moved: no grace has passed
    expect(report.rebroadcast).to.deep.equal([txid]);
    expect(devnet.node.getRawMempool()).to.deep.equal([txid]);
    expect(store.txs.get(txid)?.lastBroadcastMs).to.equal(clock);
  });

  it("takes a refusal of a transaction the node already has as a broadcast", async () => {
    const { wallet } = await fundedWallet(200_000n);
    broadcast = async (hex, src) => {
      await src.broadcast(hex);
      throw new ChainSourceRejectedError(src.label, "Transaction outputs already in utxo set", -27);
    };
    const txid = await wallet.send([{ address: EXTERNAL, amountSat: 50_000n }]);
    expect(devnet.node.getRawMempool()).to.deep.equal([txid]);
    expect(wallet.transactions().map((t) => t.txid)).to.include(txid);
  });

  it("drops a transaction the node refuses and answers the node's reason", async () => {
    const { store, wallet } = await fundedWallet(200_000n);
    broadcast = async (_hex, src) => { throw new ChainSourceRejectedError(src.label, "min relay fee not met", -26); };
    const e = await failure(wallet.send([{ address: EXTERNAL, amountSat: 50_000n }]));
    expect(e.message).to.equal("Failed to send onchain payment: min relay fee not met");
    expect([...store.txs.values()].filter((t) => t.origin === "wallet")).to.deep.equal([]);
    expect(wallet.balance().confirmed).to.equal(200_000n);
  });

  it("refuses an amount above 21 million BTC as an invalid amount, not as insufficient funds", async () => {
    const { wallet } = await fundedWallet(10_000n);
    const e = await failure(wallet.send([{ address: EXTERNAL, amountSat: 2_100_000_000_000_001n }]));
    expect(e).to.be.instanceOf(InvalidAmountError);
    expect(e.message).to.equal("bad request: invalid amount: 2100000000000001 sat is more than 21 million BTC");
  });

  it("pays the chain source's fee rate with its precision (7.001 sat/vB is not paid as 8)", async () => {
    const { store, wallet } = await fundedWallet(200_000n);
    const estimates = devnet.node.feeEstimates();
    devnet.node.setFeeEstimates({ 1: 9.5, 3: 7.001, 6: 2.25 });
    try {
      expect(await wallet.refreshFeeRates()).to.deep.equal({ fastSatPerVb: 9.5, regularSatPerVb: 7.001, slowSatPerVb: 2.25 });
      const txid = await wallet.send([{ address: EXTERNAL, amountSat: 50_000n }]);
      const vsize = devnet.node.getMempoolEntry(txid)!.vsize;
      expect(store.txs.get(txid)!.feeSat).to.equal(BigInt(Math.ceil((vsize * 7001) / 1000)));
      expect(store.txs.get(txid)!.feeSat! < BigInt(vsize * 8)).to.equal(true);
    } finally {
      devnet.node.setFeeEstimates(estimates);
    }
  });
});
