import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BitcoindChainSource } from "@tender/chain-bitcoind";
import { EsploraChainSource } from "@tender/chain-esplora";
import {
  ChainSourceRegistry, ChainSourceRegistryService, ChainSourceService, ChainSourceUnavailableError, Database, Kernel, NoWalletError,
  UnknownChainSourceKindError, hostService, silentLogger, type DaemonConfig,
} from "@tender/core";
import { startDevnet, type Devnet } from "@tender/devnet";
import walletPlugin, { WalletLifecycleService, walletSettingDefaults, type WalletConfig, type WalletSettings } from "@tender/plugin-wallet";
import {
  ChainNetworkMismatchError, NoChainSourceConfiguredError, UnsupportedWalletNetworkError,
  buildChainSource, chainNetworkOf, chainPlugin, chainSourceCreationCheck, chainSourceKindOf, checkChainNetwork, readBirthday,
} from "../src/index.js";

/** A wallet's settings: the regtest defaults with the given chain-source keys. */
const settings = (c: WalletConfig): WalletSettings => ({ ...walletSettingDefaults("regtest"), ...c });

const FAST = { timeoutMs: 1_000, retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1, factor: 1 } };

/** The two adapters, as a daemon's composition root registers them (without URL normalization). */
function adapters(): ChainSourceRegistry {
  return new ChainSourceRegistry()
    .register("esplora", ({ config, tuning }) => new EsploraChainSource({ url: String(config.esplora_address), ...FAST, ...tuning }))
    .register("bitcoind", ({ config, tuning }) => new BitcoindChainSource({
      url: String(config.bitcoind_address),
      auth: config.bitcoind_cookiefile
        ? { cookieFile: String(config.bitcoind_cookiefile) }
        : { user: String(config.bitcoind_user), password: String(config.bitcoind_pass) },
      ...FAST, ...tuning,
    }));
}

describe("chain plugin: the wallet's chain source", function () {
  this.timeout(20_000);
  let devnet: Devnet;
  const registry = adapters();
  before(async () => { devnet = await startDevnet({ seed: "bitcoin-plugin", premineBlocks: 3 }); });
  after(async () => { await devnet.stop(); });

  it("maps wallet networks to chain networks (mutinynet is a signet) and refuses unknown ones", () => {
    expect(["mainnet", "signet", "mutinynet", "regtest"].map(chainNetworkOf)).to.deep.equal(["mainnet", "signet", "signet", "regtest"]);
    expect(() => chainNetworkOf("testnet3")).to.throw(UnsupportedWalletNetworkError);
  });

  it("asks the registry for the kind the configuration names: esplora_address → esplora, bitcoind_address → bitcoind", () => {
    expect(chainSourceKindOf({ esplora_address: "http://x" })).to.equal("esplora");
    expect(chainSourceKindOf({ bitcoind_address: "http://x", bitcoind_cookiefile: "/c" })).to.equal("bitcoind");
    expect(() => chainSourceKindOf({})).to.throw(NoChainSourceConfiguredError);
    expect(buildChainSource(registry, { esplora_address: devnet.esploraUrl }, "regtest")).to.be.instanceOf(EsploraChainSource);
    const b = buildChainSource(registry, { bitcoind_address: devnet.rpcUrl, bitcoind_cookiefile: devnet.cookieFile }, "regtest");
    expect(b).to.be.instanceOf(BitcoindChainSource);
  });

  it("refuses a kind the daemon registered no factory for, naming it and the kinds it has", () => {
    const esploraOnly = new ChainSourceRegistry().register("esplora", () => { throw new Error("not called"); });
    expect(() => buildChainSource(esploraOnly, { bitcoind_address: devnet.rpcUrl, bitcoind_cookiefile: devnet.cookieFile }, "regtest"))
      .to.throw(UnknownChainSourceKindError, "the wallet's chain source is of kind bitcoind, but this daemon has no bitcoind chain source (available: esplora)");
    expect(() => esploraOnly.register("esplora", () => { throw new Error("not called"); })).to.throw("chain source kind esplora is registered twice");
  });

  it("accepts a regtest wallet on the devnet through both faces", async () => {
    await checkChainNetwork(buildChainSource(registry, { esplora_address: devnet.esploraUrl }, "regtest"), "regtest");
    await checkChainNetwork(buildChainSource(registry, { bitcoind_address: devnet.rpcUrl, bitcoind_cookiefile: devnet.cookieFile }, "regtest"), "regtest");
  });

  it("refuses a signet or mainnet wallet on the regtest devnet, naming both networks", async () => {
    const source = buildChainSource(registry, { esplora_address: devnet.esploraUrl }, "signet");
    for (const network of ["signet", "mainnet"]) {
      const err = await checkChainNetwork(source, network).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(ChainNetworkMismatchError);
      expect((err as Error).message).to.contain("is on regtest").and.to.contain(`wallet is for ${network}`);
    }
  });

  it("the creation check fails with the source's unavailable error when nothing listens", async () => {
    const check = chainSourceCreationCheck(registry, FAST);
    const err = await check({ network: "regtest", config: settings({ esplora_address: "http://127.0.0.1:9" }), restoring: false, force: false })
      .then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(ChainSourceUnavailableError);
  });

  it("the creation check fails on wrong bitcoind credentials and passes on the right ones", async () => {
    const check = chainSourceCreationCheck(registry, FAST);
    const bad = await check({ network: "regtest", config: settings({ bitcoind_address: devnet.rpcUrl, bitcoind_user: "nobody", bitcoind_pass: "wrong" }), restoring: false, force: false })
      .then(() => null, (e: unknown) => e);
    expect(bad).to.be.instanceOf(Error);
    await check({ network: "regtest", config: settings({ bitcoind_address: devnet.rpcUrl, bitcoind_cookiefile: devnet.cookieFile }), restoring: false, force: false });
  });

  it("the creation check reports the wallet birthday: today's tip for a new wallet, the given height for a restore", async () => {
    const births: number[] = [];
    const check = chainSourceCreationCheck(registry, FAST, (h) => births.push(h));
    const config = settings({ esplora_address: devnet.esploraUrl });
    await check({ network: "regtest", config, restoring: false, force: false });
    await check({ network: "regtest", config, restoring: true, birthdayHeight: 2, force: false });
    await check({ network: "regtest", config, restoring: true, force: false });
    expect(births).to.deep.equal([devnet.node.tipHeight(), 2, 0]);
  });

  describe("in a kernel with the wallet plugin", () => {
    let datadir: string;
    let kernel: Kernel;
    const start = async (hosted: ChainSourceRegistry) => {
      datadir = mkdtempSync(join(tmpdir(), "tender-chain-plugin-"));
      const config: DaemonConfig = {
        datadir, port: 0, host: "127.0.0.1", allowedOrigins: [], exposeMnemonic: false, noAuth: true, dangerouslyAllowRemoteNoAuth: false,
        verbose: false, quiet: true, plugins: [], pluginConfig: { chain: { creationCheckTimeoutMs: 1_000 } }, databaseSchema: "tender",
      };
      kernel = new Kernel({
        config, plugins: [chainPlugin, walletPlugin], logger: silentLogger, authToken: undefined,
        hostServices: [hostService(ChainSourceRegistryService, hosted)],
      });
      await kernel.load();
      return kernel.container.resolve(WalletLifecycleService.token);
    };
    afterEach(async () => {
      await kernel.stop();
      rmSync(datadir, { recursive: true, force: true });
    });

    it("provides the loaded wallet's source, built from its config.toml, with the birthday found at creation", async () => {
      const lifecycle = await start(registry);
      const chain = kernel.walletScope.handle(ChainSourceService);
      const none = await chain.get().then(() => null, (e: unknown) => e);
      expect(none).to.be.instanceOf(NoWalletError);
      const { fingerprint } = await lifecycle.create({ network: "regtest", ark_server: "http://127.0.0.1:9", chain_source: { esplora: { url: devnet.esploraUrl } } });
      const source = await chain.get();
      expect(source).to.be.instanceOf(EsploraChainSource);
      expect(source.label).to.equal(devnet.esploraUrl);
      expect((await source.getTip()).height).to.equal(devnet.node.tipHeight());
      expect(await readBirthday(kernel.container.resolve(Database))).to.equal(devnet.node.tipHeight());
      await lifecycle.delete({ dangerous: true, fingerprint });
      expect(chain.current).to.equal(undefined);
    });

    it("refuses to create a wallet whose chain-source kind the daemon cannot build, with a clear message", async () => {
      const esploraOnly = new ChainSourceRegistry().register("bitcoind", () => { throw new Error("not called"); });
      const lifecycle = await start(esploraOnly);
      const err = await lifecycle.create({ network: "regtest", ark_server: "http://127.0.0.1:9", chain_source: { esplora: { url: devnet.esploraUrl } } })
        .then(() => null, (e: unknown) => e);
      expect((err as Error).message).to.equal(
        "Error while creating wallet: the wallet's chain source is of kind esplora, but this daemon has no esplora chain source (available: bitcoind)");
    });
  });
});
