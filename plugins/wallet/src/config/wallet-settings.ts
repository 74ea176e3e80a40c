import { WalletConfigError, type WalletConfig } from "./wallet-config.js";

/**
 * The loaded wallet's settings: every key of barkd's `config.toml`, with barkd's names, types,
 * units and network defaults. Each value comes from, in order of precedence, the environment
 * variable `TENDER_<KEY IN UPPER CASE>`, then `config.toml`, then the default for the wallet's
 * network. Keys of rails tender does not have yet (rounds, offboards, exits, Lightning) are read
 * and checked the same way, so a barkd configuration loads unchanged and the rails find their
 * settings when they arrive.
 */
export type WalletSettings = {
  /** The Ark server's address. Default `http://127.0.0.1:3535`. */
  readonly server_address: string;
  /** Deprecated access token for a private server; servers ignore it. */
  readonly server_access_token?: string;
  /** Client identifier sent to the Ark server (`<name>/<version>`). */
  readonly user_agent?: string;
  /** Esplora HTTP address (this or `bitcoind_address` is the chain source). */
  readonly esplora_address?: string;
  /** bitcoind RPC address (needs `bitcoind_cookiefile`, or `bitcoind_user` and `bitcoind_pass`). */
  readonly bitcoind_address?: string;
  readonly bitcoind_cookiefile?: string;
  readonly bitcoind_user?: string;
  readonly bitcoind_pass?: string;
  /** bitcoind ZMQ endpoint for new-block notices; without it the tip is polled. */
  readonly bitcoind_zmq_address?: string;
  /** SOCKS5 proxy (`socks5h://` only). tender cannot proxy yet and refuses a wallet that sets it. */
  readonly socks5_proxy?: string;
  /** Blocks before a VTXO's expiry at which it must be refreshed (rounds). Default 144 on mainnet, 12 elsewhere. */
  readonly vtxo_refresh_expiry_threshold: number;
  /** Blocks of margin for a safe exit, added to Lightning-receive CLTV deltas. Default 12. */
  readonly vtxo_exit_margin: number;
  /** Blocks to claim a Lightning-receive HTLC. Default 18. */
  readonly htlc_recv_claim_delta: number;
  /** Attempts to claim a Lightning receive before exiting it on-chain. Default 5. */
  readonly lightning_receive_claim_retries: number;
  /** Fee rate in sat/kWu used when the chain source has no estimate (250 = 1 sat/vB). Default 500 on mainnet, 250 elsewhere. */
  readonly fallback_fee_rate: number;
  /** Confirmations after which a round transaction counts as confirmed. Default 1. */
  readonly round_tx_required_confirmations: number;
  /** Confirmations after which an offboard counts as done (0: at once). Default 2 on mainnet, 0 elsewhere. */
  readonly offboard_required_confirmations: number;
  /** Seconds a broadcast offboard may be missing from chain and mempool before it is reported lost. Default 3600. */
  readonly offboard_lost_tx_grace_period_secs: number;
  /** Seconds between the background syncs (on-chain wallet, mailbox, and the other rails). Default 60. */
  readonly daemon_sync_interval_secs: number;
  /** Pieces that change of an Ark payment is split into, 1 to 3. Default 2. */
  readonly change_vtxo_split_factor: number;
  /** When true no background sync runs, only the server heartbeat; clients call the sync routes. Default false. */
  readonly daemon_manual_sync: boolean;
};

/** The name of a `config.toml` key. */
export type WalletSettingKey = keyof WalletSettings;

type Spec =
  | { kind: "string" }
  | { kind: "uint"; min: bigint; max: bigint; unit: string }
  | { kind: "bool" };

const U8 = 255n;
const U16 = 65_535n;
const U32 = 4_294_967_295n;
const U64 = 18_446_744_073_709_551_615n;
const str: Spec = { kind: "string" };
const uint = (max: bigint, unit: string, min = 0n): Spec => ({ kind: "uint", min, max, unit });

/** Every key barkd reads from `config.toml`, with its type. */
const SPECS: Record<WalletSettingKey, Spec> = {
  server_address: str,
  server_access_token: str,
  user_agent: str,
  esplora_address: str,
  bitcoind_address: str,
  bitcoind_cookiefile: str,
  bitcoind_user: str,
  bitcoind_pass: str,
  bitcoind_zmq_address: str,
  socks5_proxy: str,
  vtxo_refresh_expiry_threshold: uint(U32, "blocks"),
  vtxo_exit_margin: uint(U16, "blocks"),
  htlc_recv_claim_delta: uint(U16, "blocks"),
  lightning_receive_claim_retries: uint(U8, "attempts"),
  fallback_fee_rate: uint(U64, "sat/kWu"),
  round_tx_required_confirmations: uint(U32, "confirmations"),
  offboard_required_confirmations: uint(U32, "confirmations"),
  offboard_lost_tx_grace_period_secs: uint(U64, "seconds"),
  // 0 would make the background sync spin; tender needs at least one second
  daemon_sync_interval_secs: uint(U64, "seconds", 1n),
  change_vtxo_split_factor: uint(U8, "pieces"),
  daemon_manual_sync: { kind: "bool" },
};

/** The `config.toml` keys barkd reads, in its order. */
export const WALLET_SETTING_KEYS = Object.keys(SPECS) as WalletSettingKey[];

/** The environment variable that overrides `key`: `TENDER_` and the key in upper case. */
export function walletSettingEnvName(key: WalletSettingKey): string {
  return `TENDER_${key.toUpperCase()}`;
}

/** barkd's defaults for a wallet on `network` (mainnet, or any other network). */
export function walletSettingDefaults(network: string): WalletSettings {
  const mainnet = network === "mainnet";
  return {
    server_address: "http://127.0.0.1:3535",
    vtxo_refresh_expiry_threshold: mainnet ? 144 : 12,
    vtxo_exit_margin: 12,
    htlc_recv_claim_delta: 18,
    lightning_receive_claim_retries: 5,
    fallback_fee_rate: mainnet ? 500 : 250,
    round_tx_required_confirmations: 1,
    offboard_required_confirmations: mainnet ? 2 : 0,
    offboard_lost_tx_grace_period_secs: 3600,
    daemon_sync_interval_secs: 60,
    change_vtxo_split_factor: 2,
    daemon_manual_sync: false,
  };
}

const BOOL_WORDS: Record<string, boolean> = { true: true, yes: true, on: true, "1": true, false: false, no: false, off: false, "0": false };

/** What a value is shown as in an error (secrets never are). */
function shown(key: WalletSettingKey, raw: unknown): string {
  if (key === "bitcoind_pass" || key === "server_access_token") return "(hidden)";
  return typeof raw === "string" ? JSON.stringify(raw) : typeof raw === "bigint" ? raw.toString() : JSON.stringify(raw) ?? String(raw);
}

/**
 * One value in its type. A value from the file may be a TOML value of the key's type or a string
 * spelling one (as barkd's loader converts); a value from the environment is always a string.
 */
function convert(key: WalletSettingKey, raw: unknown, from: string): string | number | boolean {
  const spec = SPECS[key];
  const bad = (expected: string) => new WalletConfigError(`${from}: ${key} = ${shown(key, raw)} is invalid: expected ${expected}`);
  switch (spec.kind) {
    case "string":
      if (typeof raw === "string") return raw;
      if (typeof raw === "number" || typeof raw === "bigint" || typeof raw === "boolean") return String(raw);
      throw bad("a string");
    case "bool":
      if (typeof raw === "boolean") return raw;
      if (typeof raw === "string" && raw.trim().toLowerCase() in BOOL_WORDS) return BOOL_WORDS[raw.trim().toLowerCase()]!;
      if (raw === 0 || raw === 1) return raw === 1;
      throw bad("true or false");
    case "uint": {
      let n: bigint | undefined;
      if (typeof raw === "bigint") n = raw;
      else if (typeof raw === "number" && Number.isInteger(raw)) n = BigInt(raw);
      else if (typeof raw === "string" && /^\+?[0-9]+$/.test(raw.trim())) n = BigInt(raw.trim());
      if (n === undefined || n < spec.min || n > spec.max) throw bad(`a whole number of ${spec.unit} from ${spec.min} to ${spec.max}`);
      return Number(n);
    }
  }
}

/** The rules barkd checks when it opens a wallet, and tender's own limits. */
function checkRules(s: WalletSettings): void {
  if (s.change_vtxo_split_factor < 1 || s.change_vtxo_split_factor > 3) {
    throw new WalletConfigError(`change_vtxo_split_factor must be 1, 2 or 3, got ${s.change_vtxo_split_factor}`);
  }
  if (s.socks5_proxy !== undefined) {
    if (!/^socks5h:\/\//i.test(s.socks5_proxy)) throw new WalletConfigError("socks5-proxy must use socks5h");
    // connecting directly when a proxy was asked for would leak the wallet's traffic
    throw new WalletConfigError("socks5_proxy is set, but tender cannot route traffic through a SOCKS5 proxy yet; remove it to connect directly");
  }
}

/**
 * The wallet's settings from its `config.toml` contents (`file`), the environment and the
 * defaults of `network`; `where` names the file in errors. Throws {@link WalletConfigError}
 * naming the key, its source and what was expected when a value is malformed, out of range or
 * breaks a rule (barkd refuses to open or create such a wallet). Keys barkd does not know are
 * ignored (see {@link unknownWalletConfigKeys}). Secrets never appear in a message.
 */
export function readWalletSettings(file: WalletConfig, network: string, env: Readonly<Record<string, string | undefined>> = process.env, where = "config.toml"): WalletSettings {
  const out: Record<string, unknown> = { ...walletSettingDefaults(network) };
  for (const key of WALLET_SETTING_KEYS) {
    const envName = walletSettingEnvName(key);
    const fromEnv = env[envName];
    // an empty variable counts as unset
    if (fromEnv !== undefined && fromEnv !== "") out[key] = convert(key, fromEnv, envName);
    else if (file[key] !== undefined && file[key] !== null) out[key] = convert(key, file[key], where);
  }
  const settings = out as WalletSettings;
  checkRules(settings);
  return settings;
}

/** The keys of `file` barkd does not read (typos, or another program's); they are kept in the file. */
export function unknownWalletConfigKeys(file: WalletConfig): string[] {
  return Object.keys(file).filter((k) => !(k in SPECS));
}

/** The keys whose value comes from a `TENDER_<KEY>` environment variable. */
export function walletSettingsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): WalletSettingKey[] {
  return WALLET_SETTING_KEYS.filter((k) => (env[walletSettingEnvName(k)] ?? "") !== "");
}

/** A `fallback_fee_rate` (sat/kWu) in whole sat/vB, rounded up as barkd reports fee rates. */
export function satPerVbCeil(satPerKwu: number): number {
  return Math.ceil(satPerKwu / 250);
}
