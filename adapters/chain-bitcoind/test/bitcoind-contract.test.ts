import { FAST_RETRY, chainSourceContract, startBitcoind, type ContractBackend } from "@tender/core/testing";
import { BitcoindChainSource, BitcoindRpc } from "../src/index.js";

/** The bitcoind adapter against a real Bitcoin Core started from `exe` (cookie auth; the `-rpcauth` user for the failure cases). */
async function bitcoindReal(exe: string): Promise<ContractBackend> {
  const node = await startBitcoind(exe);
  return {
    source: () => new BitcoindChainSource({ url: node.url, auth: { cookieFile: node.cookieFile }, retry: FAST_RETRY }),
    sourceAt: (url, o) => new BitcoindChainSource({ url, auth: node.rpcUser, ...o }),
    rpc: new BitcoindRpc(node.url, { url: node.url, auth: { cookieFile: node.cookieFile } }),
    secret: node.rpcUser.password,
    disposable: async () => {
      const other = await startBitcoind(exe);
      return { source: new BitcoindChainSource({ url: other.url, auth: other.rpcUser, retry: FAST_RETRY }), stop: () => other.stop() };
    },
    teardown: () => node.stop(),
  };
}

const exe = process.env.BITCOIND_EXE;

if (exe) {
  chainSourceContract(`BitcoindChainSource on a real bitcoind (${exe})`, () => bitcoindReal(exe));
} else {
  describe("ChainSource contract: BitcoindChainSource on a real bitcoind", () => {
    it("runs the contract against a real bitcoind", function () {
      console.log(
        "      skipped: BITCOIND_EXE is not set (point it at a bitcoind binary to run the contract against Bitcoin Core); " +
          "Docker/testcontainers is not available on this machine, so no container can provide one either",
      );
      this.skip();
    });
  });
}
