import { BitcoindChainSource, BitcoindRpc } from "@tender/chain-bitcoind";
import { FAST_RETRY, chainSourceContract, type ContractBackend } from "@tender/core/testing";
import { startDevnet } from "../../src/devnet.js";

const RPC_USER = { user: "tender", password: "s3cret-devnet-pass" };

/**
 * The bitcoind adapter on a fresh in-process devnet's RPC face (cookie auth; user/password for
 * the failure cases). It runs here rather than in `@tender/chain-bitcoind`'s tests because the
 * devnet's own tests use that adapter's RPC client, and a package cannot depend on one that
 * depends on it. The Esplora adapter runs the contract in its own package.
 */
async function bitcoindOnDevnet(seed: string): Promise<ContractBackend> {
  const devnet = await startDevnet({ seed, rpcUser: RPC_USER });
  return {
    source: () => new BitcoindChainSource({ url: devnet.rpcUrl, auth: { cookieFile: devnet.cookieFile }, retry: FAST_RETRY }),
    sourceAt: (url, o) => new BitcoindChainSource({ url, auth: RPC_USER, ...o }),
    rpc: new BitcoindRpc(devnet.rpcUrl, { url: devnet.rpcUrl, auth: { cookieFile: devnet.cookieFile } }),
    setFeeEstimates: async (table) => devnet.node.setFeeEstimates(table),
    secret: RPC_USER.password,
    disposable: async () => {
      const other = await startDevnet({ seed: `${seed}-2`, rpcUser: RPC_USER });
      return { source: new BitcoindChainSource({ url: other.rpcUrl, auth: RPC_USER, retry: FAST_RETRY }), stop: () => other.stop() };
    },
    teardown: () => devnet.stop(),
  };
}

chainSourceContract("BitcoindChainSource on the devnet RPC face", () => bitcoindOnDevnet("contract-bitcoind"));
