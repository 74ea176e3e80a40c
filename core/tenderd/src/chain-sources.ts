import { BitcoindChainSource } from "@tender/chain-bitcoind";
import { EsploraChainSource } from "@tender/chain-esplora";
import { ChainSourceRegistry, type ChainSourceFactory, type ChainSourceTuning } from "@tender/core";
import { normalizeUrl, type WalletConfig } from "@tender/plugin-wallet";

/** The timeout and retry policy of `tuning`, for either adapter's options. */
function connection(tuning: ChainSourceTuning): { timeoutMs?: number; retry?: NonNullable<ChainSourceTuning["retry"]> } {
  return {
    ...(tuning.timeoutMs !== undefined ? { timeoutMs: tuning.timeoutMs } : {}),
    ...(tuning.retry !== undefined ? { retry: tuning.retry } : {}),
  };
}

/**
 * `esplora`: an Esplora HTTP API at `esplora_address` (https:// when the address has no scheme).
 * mutinynet's genesis block is not a well-known one, so for a mutinynet wallet the source is told
 * to report `signet`.
 */
export const esploraFromConfig: ChainSourceFactory = ({ config, walletNetwork, tuning }) => {
  const c = config as WalletConfig;
  return new EsploraChainSource({
    url: normalizeUrl(String(c.esplora_address), "https", "esplora"),
    ...connection(tuning),
    ...(walletNetwork === "mutinynet" ? { network: "signet" as const } : {}),
  });
};

/**
 * `bitcoind`: Bitcoin Core's JSON-RPC at `bitcoind_address` (http:// when the address has no
 * scheme), authenticated by `bitcoind_cookiefile` or by `bitcoind_user` and `bitcoind_pass`. It
 * scans blocks from the wallet's birthday (bitcoind has no address index).
 */
export const bitcoindFromConfig: ChainSourceFactory = ({ config, tuning }) => {
  const c = config as WalletConfig;
  const auth = c.bitcoind_cookiefile
    ? { cookieFile: c.bitcoind_cookiefile }
    : { user: c.bitcoind_user ?? "", password: c.bitcoind_pass ?? "" };
  return new BitcoindChainSource({
    url: normalizeUrl(String(c.bitcoind_address), "http", "bitcoind"),
    auth,
    ...connection(tuning),
    ...(tuning.scanStartHeight !== undefined ? { scanStartHeight: tuning.scanStartHeight } : {}),
  });
};

/** The chain-source kinds tenderd ships: Esplora and bitcoind. */
export function chainSourceRegistry(): ChainSourceRegistry {
  return new ChainSourceRegistry().register("esplora", esploraFromConfig).register("bitcoind", bitcoindFromConfig);
}
