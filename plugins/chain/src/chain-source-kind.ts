import type { ChainSource, ChainSourceRegistry, ChainSourceTuning } from "@tender/core";
import type { WalletConfig } from "@tender/plugin-wallet";

/** The wallet configuration names no chain source. */
export class NoChainSourceConfiguredError extends Error {
  constructor() {
    super("no chain source configured: set esplora or bitcoind");
  }
}

/**
 * The chain-source kind a wallet's `config.toml` names: `esplora` when `esplora_address` is set,
 * `bitcoind` when `bitcoind_address` is (the wallet plugin refuses a configuration with both).
 */
export function chainSourceKindOf(config: WalletConfig): "esplora" | "bitcoind" {
  if (config.esplora_address) return "esplora";
  if (config.bitcoind_address) return "bitcoind";
  throw new NoChainSourceConfiguredError();
}

/**
 * Builds the source a wallet's configuration names with the daemon's factory for its kind.
 * Makes no network call; throws when the configuration names no source or the daemon has no
 * factory for its kind (`UnknownChainSourceKindError`).
 */
export function buildChainSource(registry: ChainSourceRegistry, config: WalletConfig, walletNetwork: string, tuning: ChainSourceTuning = {}): ChainSource {
  return registry.create(chainSourceKindOf(config), { config, walletNetwork, tuning });
}
