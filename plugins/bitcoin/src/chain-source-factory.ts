import { BitcoindChainSource } from "@tender/chain-bitcoind";
import { EsploraChainSource } from "@tender/chain-esplora";
import type { ChainNetwork, ChainSource, RetryPolicy } from "@tender/core";
import { normalizeUrl, type WalletConfig } from "@tender/plugin-wallet";

/** A wallet network (`BarkNetwork`) as the chain sees it: mutinynet is a signet. */
export function chainNetworkOf(walletNetwork: string): ChainNetwork {
  switch (walletNetwork) {
    case "mainnet": return "mainnet";
    case "signet":
    case "mutinynet": return "signet";
    case "regtest": return "regtest";
    default: throw new UnsupportedWalletNetworkError(walletNetwork);
  }
}

/** The wallet's network is not one tender knows how to reach. */
export class UnsupportedWalletNetworkError extends Error {
  constructor(readonly network: string) {
    super(`unsupported wallet network: ${network}`);
  }
}

/** The wallet configuration names no usable chain source. */
export class NoChainSourceConfiguredError extends Error {
  constructor() {
    super("no chain source configured: set esplora or bitcoind");
  }
}

/** Connection tuning for {@link chainSourceFromConfig}. */
export interface ChainSourceTuning {
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
  /** First block a bitcoind source scans for wallet scripts (the wallet's birthday). */
  readonly scanStartHeight?: number;
}

/**
 * Builds the {@link ChainSource} a wallet's `config.toml` names: Esplora (`esplora_address`) or
 * bitcoind RPC (`bitcoind_address` with a cookie file or user and password). For mutinynet, whose
 * genesis block is not a well-known one, the Esplora source is told to report `signet`.
 */
export function chainSourceFromConfig(config: WalletConfig, walletNetwork: string, tuning: ChainSourceTuning = {}): ChainSource {
  const common = {
    ...(tuning.timeoutMs !== undefined ? { timeoutMs: tuning.timeoutMs } : {}),
    ...(tuning.retry !== undefined ? { retry: tuning.retry } : {}),
  };
  if (config.esplora_address) {
    return new EsploraChainSource({
      url: normalizeUrl(config.esplora_address, "https", "esplora"),
      ...common,
      ...(walletNetwork === "mutinynet" ? { network: "signet" as const } : {}),
    });
  }
  if (config.bitcoind_address) {
    const auth = config.bitcoind_cookiefile
      ? { cookieFile: config.bitcoind_cookiefile }
      : { user: config.bitcoind_user ?? "", password: config.bitcoind_pass ?? "" };
    return new BitcoindChainSource({
      url: normalizeUrl(config.bitcoind_address, "http", "bitcoind"),
      auth,
      ...common,
      ...(tuning.scanStartHeight !== undefined ? { scanStartHeight: tuning.scanStartHeight } : {}),
    });
  }
  throw new NoChainSourceConfiguredError();
}
