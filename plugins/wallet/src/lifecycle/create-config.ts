import { existsSync, readFileSync } from "node:fs";
import { NETWORK_DEFAULTS, WalletConfigError, normalizeUrl, parseWalletConfig, validateWalletConfig, type Network, type WalletConfig } from "../config/wallet-config.js";
import { readWalletSettings, type WalletSettings } from "../config/wallet-settings.js";
import type { CreateWalletRequest } from "../routes/schemas.js";

/** The configuration a create request ends up with, and whether `config.toml` must be written. */
export interface ResolvedCreateConfig {
  /** What `config.toml` holds (or will hold when `write`). */
  file: WalletConfig;
  /** The new wallet's settings: `file` with the environment's overrides and the network's defaults. */
  settings: WalletSettings;
  write: boolean;
}

/**
 * barkd's step 4 of wallet creation: use an existing `config.toml`, or build one from the request's
 * fields and the network defaults; then read the settings the wallet will run with (environment
 * overrides applied) and validate them.
 */
export function resolveCreateConfig(req: CreateWalletRequest, configPath: string, env: Readonly<Record<string, string | undefined>> = process.env): ResolvedCreateConfig {
  const hasFields = req.ark_server != null || req.ark_server_access_token != null || req.chain_source != null;
  const hasFile = existsSync(configPath);
  if (hasFile && hasFields) throw new WalletConfigError("Cannot provide an existing config file and config flags");
  if (!hasFile && !hasFields) throw new WalletConfigError("You need to provide config flags or a config file");
  const settingsOf = (file: WalletConfig, write: boolean): ResolvedCreateConfig => {
    const settings = readWalletSettings(file, req.network, env);
    validateWalletConfig(settings);
    return { file, settings, write };
  };
  if (hasFile) return settingsOf(parseWalletConfig(readFileSync(configPath, "utf8")), false);

  const network = req.network as Network;
  const defaults = NETWORK_DEFAULTS[network];
  const c: WalletConfig = {};
  const cs = req.chain_source;
  if (cs && "esplora" in cs) {
    c.esplora_address = normalizeUrl(cs.esplora.url, "https", "esplora");
  } else if (cs && "bitcoind" in cs) {
    c.bitcoind_address = normalizeUrl(cs.bitcoind.bitcoind, "http", "bitcoind");
    const auth = cs.bitcoind.bitcoind_auth;
    if ("cookie" in auth) c.bitcoind_cookiefile = auth.cookie.cookie;
    else {
      c.bitcoind_user = auth["user-pass"].user;
      c.bitcoind_pass = auth["user-pass"].pass;
    }
  } else if (defaults.esplora) {
    c.esplora_address = defaults.esplora;
  }
  const server = req.ark_server ?? defaults.ark;
  if (server) c.server_address = normalizeUrl(server, "https", "Ark server");
  if (req.ark_server_access_token != null) c.server_access_token = req.ark_server_access_token;
  return settingsOf(validateWalletConfig(c), true);
}

/** barkd's step 5: restore rules for `mnemonic` and `birthday_height`. */
export function checkRestoreRules(req: CreateWalletRequest, config: WalletSettings): void {
  if (req.birthday_height != null && req.mnemonic == null) {
    throw new WalletConfigError("birthday_height can only be given together with a mnemonic");
  }
  if (req.mnemonic != null && config.bitcoind_address && req.birthday_height == null) {
    throw new WalletConfigError("a birthday_height is required to restore a wallet with a bitcoind chain source");
  }
}
