import { expect } from "chai";
import { BitcoindChainSource } from "@tender/chain-bitcoind";
import { EsploraChainSource } from "@tender/chain-esplora";
import { ChainSourceUnavailableError } from "@tender/core";
import { startDevnet, type Devnet } from "@tender/devnet";
import {
  ChainNetworkMismatchError, NoChainSourceConfiguredError, NoWalletChainError, UnsupportedWalletNetworkError, WalletChain,
  chainNetworkOf, chainSourceCreationCheck, chainSourceFromConfig, checkChainNetwork,
} from "../src/index.js";

const FAST = { timeoutMs: 1_000, retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1, factor: 1 } };

describe("bitcoin plugin: the wallet's chain source", function () {
  this.timeout(20_000);
  let devnet: Devnet;
  before(async () => { devnet = await startDevnet({ seed: "bitcoin-plugin", premineBlocks: 3 }); });
  after(async () => { await devnet.stop(); });

  it("maps wallet networks to chain networks (mutinynet is a signet) and refuses unknown ones", () => {
    expect(["mainnet", "signet", "mutinynet", "regtest"].map(chainNetworkOf)).to.deep.equal(["mainnet", "signet", "signet", "regtest"]);
    expect(() => chainNetworkOf("testnet3")).to.throw(UnsupportedWalletNetworkError);
  });

  it("builds an Esplora source from esplora_address and a bitcoind source from bitcoind_address", () => {
    expect(chainSourceFromConfig({ esplora_address: devnet.esploraUrl }, "regtest")).to.be.instanceOf(EsploraChainSource);
    const b = chainSourceFromConfig({ bitcoind_address: devnet.rpcUrl, bitcoind_cookiefile: devnet.cookieFile }, "regtest");
    expect(b).to.be.instanceOf(BitcoindChainSource);
    expect(() => chainSourceFromConfig({}, "regtest")).to.throw(NoChainSourceConfiguredError);
  });

  it("accepts a regtest wallet on the devnet through both faces", async () => {
    await checkChainNetwork(chainSourceFromConfig({ esplora_address: devnet.esploraUrl }, "regtest"), "regtest");
    await checkChainNetwork(chainSourceFromConfig({ bitcoind_address: devnet.rpcUrl, bitcoind_cookiefile: devnet.cookieFile }, "regtest"), "regtest");
  });

  it("refuses a signet or mainnet wallet on the regtest devnet, naming both networks", async () => {
    const source = chainSourceFromConfig({ esplora_address: devnet.esploraUrl }, "signet");
    for (const network of ["signet", "mainnet"]) {
      const err = await checkChainNetwork(source, network).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(ChainNetworkMismatchError);
      expect((err as Error).message).to.contain("is on regtest").and.to.contain(`wallet is for ${network}`);
    }
  });

  it("the creation check fails with the source's unavailable error when nothing listens", async () => {
    const check = chainSourceCreationCheck(FAST);
    const err = await check({ network: "regtest", config: { esplora_address: "http://127.0.0.1:9" }, restoring: false, force: false })
      .then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(ChainSourceUnavailableError);
  });

  it("the creation check fails on wrong bitcoind credentials and passes on the right ones", async () => {
    const check = chainSourceCreationCheck(FAST);
    const bad = await check({ network: "regtest", config: { bitcoind_address: devnet.rpcUrl, bitcoind_user: "nobody", bitcoind_pass: "wrong" }, restoring: false, force: false })
      .then(() => null, (e: unknown) => e);
    expect(bad).to.be.instanceOf(Error);
    await check({ network: "regtest", config: { bitcoind_address: devnet.rpcUrl, bitcoind_cookiefile: devnet.cookieFile }, restoring: false, force: false });
  });

  it("the creation check reports the wallet birthday: today's tip for a new wallet, the given height for a restore", async () => {
    const births: number[] = [];
    const check = chainSourceCreationCheck(FAST, (h) => births.push(h));
    const config = { esplora_address: devnet.esploraUrl };
    await check({ network: "regtest", config, restoring: false, force: false });
    await check({ network: "regtest", config, restoring: true, birthdayHeight: 2, force: false });
    await check({ network: "regtest", config, restoring: true, force: false });
    expect(births).to.deep.equal([devnet.node.tipHeight(), 2, 0]);
  });

  it("WalletChain makes calls wait for a source still being built", async () => {
    const chain = new WalletChain();
    let resolve!: (s: ReturnType<typeof chainSourceFromConfig>) => void;
    chain.attach(new Promise((r) => { resolve = r; }), "regtest");
    const tip = chain.getTip();
    resolve(chainSourceFromConfig({ esplora_address: devnet.esploraUrl }, "regtest"));
    expect((await tip).height).to.equal(devnet.node.tipHeight());
    expect(chain.label).to.equal(devnet.esploraUrl);
  });

  it("WalletChain forwards to the attached source and refuses every call without a wallet", async () => {
    const chain = new WalletChain();
    const err = await chain.getTip().then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(NoWalletChainError);
    chain.attach(chainSourceFromConfig({ esplora_address: devnet.esploraUrl }, "regtest"), "regtest");
    expect((await chain.getTip()).height).to.equal(devnet.node.tipHeight());
    expect(chain.expectedNetwork).to.equal("regtest");
    chain.detach();
    expect(chain.source).to.equal(undefined);
  });
});
