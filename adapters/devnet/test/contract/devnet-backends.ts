import { BitcoindChainSource, BitcoindRpc } from "@tender/chain-bitcoind";
import { EsploraChainSource } from "@tender/chain-esplora";
import { expect } from "chai";
import { startDevnet, type Devnet } from "../../src/devnet.js";
import { FAST_RETRY, type ContractBackend } from "./contract-backend.js";

const RPC_USER = { user: "tender", password: "s3cret-devnet-pass" };

async function setFees(devnet: Devnet, table: Record<number, number>): Promise<void> {
  const res = await fetch(`${devnet.controlUrl}/fee-estimates`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(table) });
  expect(res.status).to.equal(200);
}

function rpcOf(devnet: Devnet): BitcoindRpc {
  return new BitcoindRpc(devnet.rpcUrl, { url: devnet.rpcUrl, auth: { cookieFile: devnet.cookieFile } });
}

/** The Esplora adapter on a fresh in-process devnet's Esplora face. */
export async function esploraOnDevnet(seed: string): Promise<ContractBackend> {
  const devnet = await startDevnet({ seed });
  return {
    source: () => new EsploraChainSource({ url: devnet.esploraUrl, retry: FAST_RETRY }),
    sourceAt: (url, o) => new EsploraChainSource({ url, ...o }),
    rpc: rpcOf(devnet),
    setFeeEstimates: (t) => setFees(devnet, t),
    disposable: async () => {
      const other = await startDevnet({ seed: `${seed}-2` });
      return { source: new EsploraChainSource({ url: other.esploraUrl, retry: FAST_RETRY }), stop: () => other.stop() };
    },
    teardown: () => devnet.stop(),
  };
}

/** The bitcoind adapter on a fresh in-process devnet's RPC face (cookie auth; user/password for the failure cases). */
export async function bitcoindOnDevnet(seed: string): Promise<ContractBackend> {
  const devnet = await startDevnet({ seed, rpcUser: RPC_USER });
  return {
    source: () => new BitcoindChainSource({ url: devnet.rpcUrl, auth: { cookieFile: devnet.cookieFile }, retry: FAST_RETRY }),
    sourceAt: (url, o) => new BitcoindChainSource({ url, auth: RPC_USER, ...o }),
    rpc: rpcOf(devnet),
    setFeeEstimates: (t) => setFees(devnet, t),
    secret: RPC_USER.password,
    disposable: async () => {
      const other = await startDevnet({ seed: `${seed}-2`, rpcUser: RPC_USER });
      return { source: new BitcoindChainSource({ url: other.rpcUrl, auth: RPC_USER, retry: FAST_RETRY }), stop: () => other.stop() };
    },
    teardown: () => devnet.stop(),
  };
}
