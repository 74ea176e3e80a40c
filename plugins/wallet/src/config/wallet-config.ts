import { parse, stringify } from "smol-toml";

/** Wallet networks (`BarkNetwork`). */
export const NETWORKS = ["mainnet", "signet", "mutinynet", "regtest"] as const;
export type Network = (typeof NETWORKS)[number];

/**
 * The contents of `config.toml` as written (bark's key names), every key kept, including keys
 * tender does not use; `readWalletSettings` turns it into the typed settings.
 */
export interface WalletConfig {
  server_address?: string;
  esplora_address?: string;
  bitcoind_address?: string;
  bitcoind_cookiefile?: string;
  bitcoind_user?: string;
  bitcoind_pass?: string;
  server_access_token?: string;
  [key: string]: unknown;
}

/** A configuration that cannot be used; the message is barkd's. */
export class WalletConfigError extends Error {}

/** Network defaults applied when no chain source (and, for signet, no server) was given. */
export const NETWORK_DEFAULTS: Record<Network, { esplora?: string; ark?: string }> = {
  mainnet: { esplora: "https://mempool.second.tech/api" },
  signet: { esplora: "https://esplora.signet.2nd.dev/", ark: "https://ark.signet.2nd.dev/" },
  mutinynet: { esplora: "https://mutinynet.com/api" },
  regtest: {},
};

/** Adds `scheme://` when a URL has none, then checks it parses. */
export function normalizeUrl(url: string, scheme: "https" | "http", what: string): string {
  const withScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(url) ? url : `${scheme}://${url}`;
  try {
    new URL(withScheme);
  } catch {
    throw new WalletConfigError(`invalid ${what} URL: ${url}`);
  }
  return withScheme;
}

/**
 * Checks a configuration is complete and consistent (chain source, bitcoind auth, Ark server);
 * applied to the request's fields before `config.toml` is written, and to the wallet's settings.
 */
export function validateWalletConfig(c: WalletConfig): WalletConfig {
  if (!c.esplora_address && !c.bitcoind_address) throw new WalletConfigError("no chain source configured: set esplora or bitcoind");
  if (c.esplora_address && c.bitcoind_address) throw new WalletConfigError("cannot use both esplora and bitcoind as chain source");
  if (c.bitcoind_address) {
    const cookie = !!c.bitcoind_cookiefile;
    const up = !!c.bitcoind_user || !!c.bitcoind_pass;
    if (cookie && up) throw new WalletConfigError("bitcoind: provide either a cookie file or user and password, not both");
    if (!cookie && !(c.bitcoind_user && c.bitcoind_pass)) {
      throw new WalletConfigError("bitcoind: provide a cookie file, or both user and password");
    }
    normalizeUrl(c.bitcoind_address, "http", "bitcoind");
  }
  if (c.esplora_address) normalizeUrl(c.esplora_address, "https", "esplora");
  if (!c.server_address) throw new WalletConfigError("missing --ark arg");
  normalizeUrl(c.server_address, "https", "Ark server");
  return c;
}

/** Parses `config.toml`; integers beyond 2^53 stay exact (as bigint), so a rewrite keeps them. */
export function parseWalletConfig(text: string): WalletConfig {
  try {
    return parse(text, { integersAsBigInt: "asNeeded" }) as WalletConfig;
  } catch (e) {
    throw new WalletConfigError(`invalid config.toml: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Serializes the configuration as `config.toml`, every key kept (those tender does not use too). */
export function formatWalletConfig(c: WalletConfig): string {
  const clean = Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined && v !== null));
  return stringify(clean) + "\n";
}
