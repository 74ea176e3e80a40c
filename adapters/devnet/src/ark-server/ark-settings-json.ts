/**
 * The settings the devnet's controls show and change, as JSON: `GetArkInfo`'s field names where
 * the setting is announced there (`round_interval_secs`, `min_board_amount`, `max_vtxo_amount`,
 * `required_board_confirmations`, `max_vtxo_exit_depth`, `fees` with the `FeeSchedule` message's fields), captaind's
 * configuration names otherwise (`max_read_mailbox_items`, `handshake_psa`, `round_submit_time`
 * and `round_sign_time` with their unit: `_ms`, `offboard_session_timeout_ms`, `bitcoin_address_blocklist`
 * — an array of addresses offboards refuse to pay), `refused_calls` (gRPC calls answered with an
 * error whatever the request, see `refused-calls.ts`). Amounts are sats, JSON integers.
 */
import type { FeeSchedule, PpmExpiryEntry } from "@tender/ark-protocol";
import type { ArkServerConfig } from "./server-config.js";
import { REFUSABLE_CALLS, type RefusableCall } from "./refused-calls.js";

/** A change the controls refuse before it reaches the settings (answered 400). */
export class SettingsInputError extends Error {}

/** Names of the settings that change at run time. */
export const RUNTIME_SETTINGS = [
  "max_read_mailbox_items",
  "round_interval_secs",
  "round_submit_time_ms",
  "round_sign_time_ms",
  "handshake_psa",
  "min_board_amount",
  "max_vtxo_amount",
  "required_board_confirmations",
  "max_vtxo_exit_depth",
  "offboard_session_timeout_ms",
  "bitcoin_address_blocklist",
  "refused_calls",
  "fees",
] as const;

type Json = Record<string, unknown>;

const table = (t: readonly PpmExpiryEntry[]) => t.map((e) => ({ expiry_blocks_threshold: e.expiryBlocksThreshold, ppm: Number(e.ppm) }));

/** The fee schedule as JSON (the `FeeSchedule` message's field names). */
export function feesJson(f: FeeSchedule): Json {
  return {
    board: { min_fee_sat: Number(f.board.minFeeSat), base_fee_sat: Number(f.board.baseFeeSat), ppm: Number(f.board.ppm) },
    offboard: { base_fee_sat: Number(f.offboard.baseFeeSat), fixed_additional_vb: Number(f.offboard.fixedAdditionalVb), ppm_expiry_table: table(f.offboard.ppmExpiryTable) },
    refresh: { base_fee_sat: Number(f.refresh.baseFeeSat), ppm_expiry_table: table(f.refresh.ppmExpiryTable) },
    lightning_receive: { base_fee_sat: Number(f.lightningReceive.baseFeeSat), ppm: Number(f.lightningReceive.ppm) },
    lightning_send: { min_fee_sat: Number(f.lightningSend.minFeeSat), base_fee_sat: Number(f.lightningSend.baseFeeSat), ppm_expiry_table: table(f.lightningSend.ppmExpiryTable) },
  };
}

/** The run-time settings of `c` as JSON. */
export function settingsJson(c: ArkServerConfig): Json {
  return {
    max_read_mailbox_items: c.maxReadMailboxItems,
    round_interval_secs: c.roundIntervalSecs,
    round_submit_time_ms: c.roundSubmitTimeMs,
    round_sign_time_ms: c.roundSignTimeMs,
    handshake_psa: c.handshakePsa ?? null,
    min_board_amount: Number(c.minBoardAmount),
    max_vtxo_amount: c.maxVtxoAmount === undefined ? null : Number(c.maxVtxoAmount),
    required_board_confirmations: c.requiredBoardConfirmations,
    max_vtxo_exit_depth: c.maxVtxoExitDepth,
    offboard_session_timeout_ms: c.offboardSessionTimeoutMs,
    bitcoin_address_blocklist: [...(c.bitcoinAddressBlocklist ?? [])],
    refused_calls: [...(c.refusedCalls ?? [])],
    fees: feesJson(c.fees),
  };
}

function object(v: unknown, name: string): Json {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new SettingsInputError(`${name} must be a JSON object`);
  return v as Json;
}

function int(v: unknown, name: string, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) throw new SettingsInputError(`${name} must be an integer in ${min}..${max}`);
  return v;
}

const sats = (v: unknown, name: string): bigint => BigInt(int(v, name, 0, Number.MAX_SAFE_INTEGER));

function onlyKeys(o: Json, name: string, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw new SettingsInputError(`unknown field ${name}.${k} (known: ${allowed.join(", ")})`);
}

function ppmTable(v: unknown, name: string): PpmExpiryEntry[] {
  if (!Array.isArray(v)) throw new SettingsInputError(`${name} must be an array of {expiry_blocks_threshold, ppm}`);
  return v.map((e, i) => {
    const entry = object(e, `${name}[${i}]`);
    onlyKeys(entry, `${name}[${i}]`, ["expiry_blocks_threshold", "ppm"]);
    return { expiryBlocksThreshold: int(entry.expiry_blocks_threshold, `${name}[${i}].expiry_blocks_threshold`, 0, 0xffffffff), ppm: sats(entry.ppm, `${name}[${i}].ppm`) };
  });
}

/** Reads the fields of one fee part that `body` gives, over the part in force. */
function part<T extends object>(body: unknown, name: string, current: T, fields: Record<string, { key: keyof T; read: (v: unknown, name: string) => unknown }>): T {
  if (body === undefined) return current;
  const o = object(body, name);
  onlyKeys(o, name, Object.keys(fields));
  const next: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [field, { key, read }] of Object.entries(fields)) if (o[field] !== undefined) next[key as string] = read(o[field], `${name}.${field}`);
  return next as T;
}

/** A fee schedule change: each part's given fields replace the ones in force (a table is replaced whole). */
function feesChange(body: unknown, current: FeeSchedule): FeeSchedule {
  const o = object(body, "fees");
  onlyKeys(o, "fees", ["board", "offboard", "refresh", "lightning_receive", "lightning_send"]);
  const amount = { read: sats };
  const tbl = { read: ppmTable };
  return {
    board: part(o.board, "fees.board", current.board, { min_fee_sat: { key: "minFeeSat", ...amount }, base_fee_sat: { key: "baseFeeSat", ...amount }, ppm: { key: "ppm", ...amount } }),
    offboard: part(o.offboard, "fees.offboard", current.offboard, {
      base_fee_sat: { key: "baseFeeSat", ...amount }, fixed_additional_vb: { key: "fixedAdditionalVb", ...amount }, ppm_expiry_table: { key: "ppmExpiryTable", ...tbl },
    }),
    refresh: part(o.refresh, "fees.refresh", current.refresh, { base_fee_sat: { key: "baseFeeSat", ...amount }, ppm_expiry_table: { key: "ppmExpiryTable", ...tbl } }),
    lightningReceive: part(o.lightning_receive, "fees.lightning_receive", current.lightningReceive, { base_fee_sat: { key: "baseFeeSat", ...amount }, ppm: { key: "ppm", ...amount } }),
    lightningSend: part(o.lightning_send, "fees.lightning_send", current.lightningSend, {
      min_fee_sat: { key: "minFeeSat", ...amount }, base_fee_sat: { key: "baseFeeSat", ...amount }, ppm_expiry_table: { key: "ppmExpiryTable", ...tbl },
    }),
  };
}

/**
 * The change a JSON body asks for, over the settings in force. Throws {@link SettingsInputError}
 * for an unknown key or a value of the wrong type or range; the whole config is checked again by
 * `ServerSettings.update`.
 */
export function settingsChange(body: unknown, current: ArkServerConfig): Partial<ArkServerConfig> {
  const o = object(body, "the request body");
  const keys = Object.keys(o);
  if (keys.length === 0) throw new SettingsInputError(`give at least one setting (${RUNTIME_SETTINGS.join(", ")})`);
  onlyKeys(o, "settings", RUNTIME_SETTINGS);
  const change: { -readonly [K in keyof ArkServerConfig]?: ArkServerConfig[K] } = {};
  if ("max_read_mailbox_items" in o) change.maxReadMailboxItems = int(o.max_read_mailbox_items, "max_read_mailbox_items", 1, 100_000);
  if ("round_interval_secs" in o) change.roundIntervalSecs = int(o.round_interval_secs, "round_interval_secs", 1, 0xffffffff);
  if ("round_submit_time_ms" in o) change.roundSubmitTimeMs = int(o.round_submit_time_ms, "round_submit_time_ms", 1, 3_600_000);
  if ("round_sign_time_ms" in o) change.roundSignTimeMs = int(o.round_sign_time_ms, "round_sign_time_ms", 1, 3_600_000);
  if ("handshake_psa" in o) {
    const psa = o.handshake_psa;
    if (psa !== null && typeof psa !== "string") throw new SettingsInputError("handshake_psa must be a string, or null for none");
    change.handshakePsa = psa === null || psa === "" ? undefined : psa;
  }
  if ("min_board_amount" in o) change.minBoardAmount = sats(o.min_board_amount, "min_board_amount");
  if ("max_vtxo_amount" in o) change.maxVtxoAmount = o.max_vtxo_amount === null ? undefined : sats(o.max_vtxo_amount, "max_vtxo_amount");
  if ("required_board_confirmations" in o) change.requiredBoardConfirmations = int(o.required_board_confirmations, "required_board_confirmations", 1, 1_000);
  if ("max_vtxo_exit_depth" in o) change.maxVtxoExitDepth = int(o.max_vtxo_exit_depth, "max_vtxo_exit_depth", 1, 0xffff);
  if ("offboard_session_timeout_ms" in o) change.offboardSessionTimeoutMs = int(o.offboard_session_timeout_ms, "offboard_session_timeout_ms", 1, 3_600_000);
  if ("bitcoin_address_blocklist" in o) {
    const list = o.bitcoin_address_blocklist;
    if (!Array.isArray(list) || list.some((a) => typeof a !== "string" || a.length === 0 || a.length > 100)) throw new SettingsInputError("bitcoin_address_blocklist must be an array of bitcoin addresses");
    change.bitcoinAddressBlocklist = [...(list as string[])];
  }
  if ("refused_calls" in o) {
    const list = o.refused_calls;
    if (!Array.isArray(list) || list.some((c) => !(REFUSABLE_CALLS as readonly unknown[]).includes(c))) {
      throw new SettingsInputError(`refused_calls must be an array of call names (known: ${REFUSABLE_CALLS.join(", ")})`);
    }
    change.refusedCalls = [...(list as RefusableCall[])];
  }
  if ("fees" in o) change.fees = feesChange(o.fees, current.fees);
  return change;
}
