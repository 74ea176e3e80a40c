import { FAST_RETRY, chainSourceContract, regtestRpc, type ContractBackend } from "@tender/core/testing";
import { startDevnet } from "@tender/devnet";
import { EsploraChainSource } from "../src/index.js";

/** The Esplora adapter on a fresh in-process devnet's Esplora face, mined through its RPC face. */
async function esploraOnDevnet(seed: string): Promise<ContractBackend> {
  const devnet = await startDevnet({ seed });
  return {
    source: () => new EsploraChainSource({ url: devnet.esploraUrl, retry: FAST_RETRY }),
    sourceAt: (url, o) => new EsploraChainSource({ url, ...o }),
    rpc: regtestRpc(devnet.rpcUrl, { cookieFile: devnet.cookieFile }),
    setFeeEstimates: async (table) => devnet.node.setFeeEstimates(table),
    disposable: async () => {
      const other = await startDevnet({ seed: `${seed}-2` });
      return { source: new EsploraChainSource({ url: other.esploraUrl, retry: FAST_RETRY }), stop: () => other.stop() };
    },
    teardown: () => devnet.stop(),
  };
}

chainSourceContract("EsploraChainSource on the devnet Esplora face", () => esploraOnDevnet("contract-esplora"));
