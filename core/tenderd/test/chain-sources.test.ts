import { expect } from "chai";
import { BitcoindChainSource } from "@tender/chain-bitcoind";
import { EsploraChainSource } from "@tender/chain-esplora";
import { ChainSourceRegistryService, UnknownChainSourceKindError, type ChainSourceRegistry } from "@tender/core";
import { fakeServer } from "@tender/core/testing";
import { backendServices } from "../src/backends.js";

const request = (config: Record<string, unknown>, walletNetwork = "regtest") => ({ config, walletNetwork, tuning: {} });

describe("tenderd's chain sources", () => {
  const registry = backendServices().find((h) => h.ref.id === ChainSourceRegistryService.id)!.value as ChainSourceRegistry;

  it("registers the Esplora and bitcoind adapters under the kinds a wallet configuration names", () => {
    expect(registry.kinds).to.deep.equal(["esplora", "bitcoind"]);
    expect(() => registry.create("electrum", request({}))).to.throw(UnknownChainSourceKindError);
  });

  it("builds an Esplora source from esplora_address, adding https:// when the address has no scheme", () => {
    const s = registry.create("esplora", request({ esplora_address: "esplora.example/api" }));
    expect(s).to.be.instanceOf(EsploraChainSource);
    expect(s.label).to.equal("https://esplora.example/api");
  });

  it("tells the Esplora source of a mutinynet wallet that its unknown genesis block is a signet's", async () => {
    const server = await fakeServer(() => ({ status: 200, body: "ab".repeat(32) }));
    try {
      expect(await registry.create("esplora", request({ esplora_address: server.url }, "mutinynet")).getNetwork()).to.equal("signet");
      const regtest = await registry.create("esplora", request({ esplora_address: server.url })).getNetwork().then(() => null, (e: unknown) => e);
      expect((regtest as Error).message).to.contain("unknown genesis block");
    } finally {
      await server.close();
    }
  });

  it("builds a bitcoind source from bitcoind_address with a cookie file or user and password, adding http://", () => {
    const cookie = registry.create("bitcoind", request({ bitcoind_address: "127.0.0.1:18443", bitcoind_cookiefile: "/tmp/.cookie" }));
    expect(cookie).to.be.instanceOf(BitcoindChainSource);
    expect(cookie.label).to.equal("http://127.0.0.1:18443");
    const userPass = registry.create("bitcoind", request({ bitcoind_address: "http://127.0.0.1:18443", bitcoind_user: "u", bitcoind_pass: "p" }));
    expect(userPass).to.be.instanceOf(BitcoindChainSource);
    expect(userPass.label).to.not.contain("p@");
  });
});
