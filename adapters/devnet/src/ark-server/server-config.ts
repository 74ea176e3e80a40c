/**
 * Configuration of the reference Ark server (captaind's keys and defaults) and the `ArkInfo`
 * it announces. Two profiles:
 *
 * | Profile | Use | Differences |
 * |---|---|---|
 * | `default` | `npm run devnet`, people trying tender | captaind's `captaind.default.toml` values and fee schedule |
 * | `test` | tests | bark's integration-harness values: lifetime 432, exit delta 12, max exit depth 50, zero fees, 1-block board confirmations, rounds only when triggered (interval 1 h; sign-up and signing windows 5 s), 1-confirmation trusted coins |
 */
import { captaindDefaultFeeSchedule, validateFeeSchedule, type FeeSchedule } from "@tender/ark-protocol";
import { TEST_RECEIVE_SETTINGS, type LightningReceiveSettings } from "./lightning/receive-settings.js";
import type { RefusableCall } from "./refused-calls.js";

/** Everything that changes the server's rules. Heights and deltas are blocks. */
export interface ArkServerConfig {
  readonly network: "regtest";
  readonly vtxoLifetime: number;
  readonly vtxoExitDelta: number;
  /** Largest VTXO the server creates; undefined = unlimited. */
  readonly maxVtxoAmount?: bigint;
  readonly minBoardAmount: bigint;
  readonly maxVtxoExitDepth: number;
  readonly maxArkoorFanout: number;
  readonly requiredBoardConfirmations: number;
  readonly requireBoardFundingTx: boolean;
  readonly nbRoundNonces: number;
  /** Seconds between scheduled rounds (`round_interval`). */
  readonly roundIntervalSecs: number;
  /** Sign-up window of a round attempt in ms (`round_submit_time`). */
  readonly roundSubmitTimeMs: number;
  /** Signing window of a round attempt in ms (`round_sign_time`). */
  readonly roundSignTimeMs: number;
  /** Forfeit nonces older than this (ms) are forgotten at the next round start (`round_forfeit_nonces_timeout`). */
  readonly roundForfeitNoncesTimeoutMs: number;
  /** Confirmations a server-wallet coin needs before round funding may spend it (`min_trusted_confs`); the server's own change is always trusted. */
  readonly minTrustedConfs: number;
  /** "fast" fee-rate fallback in sat/vB (round funding) when the chain has no estimate. */
  readonly fastFeeRateSatPerVb: number;
  readonly htlcExpiryDelta: number;
  readonly htlcSendExpiryDelta: number;
  readonly maxUserInvoiceCltvDelta: number;
  readonly lnReceiveAntiDosRequired: boolean;
  /** Largest Lightning receive in sats (`max_ln_receive_amount`); undefined = unlimited. */
  readonly maxLnReceiveAmount?: bigint;
  /** Lightning receive timings and the VTXO pool funding its HTLC-recv VTXOs; defaults in `lightning/receive-settings.ts`. */
  readonly lightningReceive?: Partial<LightningReceiveSettings>;
  readonly maxOffboardInputs: number;
  /** An offboard session not finished within this many ms is dropped, its locks released (`offboard_session_timeout`). */
  readonly offboardSessionTimeoutMs: number;
  /** Period of the offboard task: session expiry, broadcast retries (`offboard_check_interval`); at most the session timeout. */
  readonly offboardCheckIntervalMs: number;
  /** How long a "regular" fee estimate stays good for an offboard's fee rate (`offboard_acceptable_fee_rate_duration`). */
  readonly offboardAcceptableFeeRateDurationMs: number;
  /** Destination addresses offboards refuse to pay (`bitcoin_address_blocklist`). */
  readonly bitcoinAddressBlocklist?: readonly string[];
  /** A file listing more blocked addresses, one per line (`#` comments), read on every check. */
  readonly bitcoinAddressBlocklistFile?: string;
  /** gRPC calls answered with an error whatever the request (`refused_calls`, devnet controls only). */
  readonly refusedCalls?: readonly RefusableCall[];
  readonly maxReadMailboxItems: number;
  /** "regular" fee-rate fallback in sat/vB when the chain has no estimate. */
  readonly regularFeeRateSatPerVb: number;
  readonly handshakePsa?: string;
  readonly tosLink?: string;
  readonly fees: FeeSchedule;
}

/** Names of the built-in profiles. */
export type ArkServerProfile = "default" | "test";

/** Lowest protocol version the server speaks (captaind refuses clients older than bark 0.5.0). */
export const SERVER_MIN_PROTOCOL_VERSION = 4;
/** Highest protocol version the server speaks. */
export const SERVER_MAX_PROTOCOL_VERSION = 5;

/** captaind's regtest defaults (`captaind.default.toml`). */
export function defaultServerConfig(): ArkServerConfig {
  return {
    network: "regtest",
    vtxoLifetime: 4320,
    vtxoExitDelta: 144,
    minBoardAmount: 20_000n,
    maxVtxoExitDepth: 100,
    maxArkoorFanout: 4,
    requiredBoardConfirmations: 3,
    requireBoardFundingTx: true,
    nbRoundNonces: 8,
    roundIntervalSecs: 10,
    roundSubmitTimeMs: 2000,
    roundSignTimeMs: 2000,
    roundForfeitNoncesTimeoutMs: 30_000,
    minTrustedConfs: 2,
    fastFeeRateSatPerVb: 25,
    htlcExpiryDelta: 40,
    htlcSendExpiryDelta: 258,
    maxUserInvoiceCltvDelta: 250,
    lnReceiveAntiDosRequired: false,
    maxOffboardInputs: 100,
    offboardSessionTimeoutMs: 30_000,
    offboardCheckIntervalMs: 1_000,
    offboardAcceptableFeeRateDurationMs: 15 * 60_000,
    maxReadMailboxItems: 100,
    regularFeeRateSatPerVb: 10,
    fees: captaindDefaultFeeSchedule(),
  };
}

/** The fee schedule of bark's test harness: all zero, offboard `fixed_additional_vb` 100. */
export function testFeeSchedule(): FeeSchedule {
  return {
    board: { minFeeSat: 0n, baseFeeSat: 0n, ppm: 0n },
    offboard: { baseFeeSat: 0n, fixedAdditionalVb: 100n, ppmExpiryTable: [] },
    refresh: { baseFeeSat: 0n, ppmExpiryTable: [] },
    lightningReceive: { baseFeeSat: 0n, ppm: 0n },
    lightningSend: { minFeeSat: 0n, baseFeeSat: 0n, ppmExpiryTable: [] },
  };
}

/** Short delays and fast confirmations for tests (the values of bark's integration harness). */
export function testServerConfig(): ArkServerConfig {
  return {
    ...defaultServerConfig(),
    vtxoLifetime: 432,
    vtxoExitDelta: 12,
    maxVtxoExitDepth: 50,
    requiredBoardConfirmations: 1,
    roundIntervalSecs: 3600,
    roundSubmitTimeMs: 5000,
    roundSignTimeMs: 5000,
    minTrustedConfs: 1,
    htlcExpiryDelta: 6,
    maxUserInvoiceCltvDelta: 58,
    regularFeeRateSatPerVb: 7,
    offboardAcceptableFeeRateDurationMs: 10 * 60_000,
    lightningReceive: TEST_RECEIVE_SETTINGS,
    fees: testFeeSchedule(),
  };
}

/** A thrown configuration problem (bad profile name or overrides). */
export class ServerConfigError extends Error {}

/** Builds a config from a profile and overrides, and checks it. */
export function serverConfig(profile: ArkServerProfile, overrides: Partial<ArkServerConfig> = {}): ArkServerConfig {
  const base = profile === "test" ? testServerConfig() : profile === "default" ? defaultServerConfig() : null;
  if (!base) throw new ServerConfigError(`unknown Ark server profile: ${String(profile)}`);
  const cfg: ArkServerConfig = { ...base, ...overrides };
  validateServerConfig(cfg);
  return cfg;
}

/** Checks a whole config (at start-up and before a change at run time takes effect); throws {@link ServerConfigError}. */
export function validateServerConfig(cfg: ArkServerConfig): void {
  for (const [k, v] of Object.entries({ vtxoLifetime: cfg.vtxoLifetime, vtxoExitDelta: cfg.vtxoExitDelta, htlcExpiryDelta: cfg.htlcExpiryDelta, htlcSendExpiryDelta: cfg.htlcSendExpiryDelta })) {
    if (!Number.isInteger(v) || v <= 0 || v > 16383) throw new ServerConfigError(`${k} must be a block delta in 1..16383, got ${v}`);
  }
  if (!Number.isInteger(cfg.nbRoundNonces) || cfg.nbRoundNonces < 1 || cfg.nbRoundNonces > 16) throw new ServerConfigError(`nbRoundNonces must be in 1..16, got ${cfg.nbRoundNonces}`);
  for (const [k, v] of Object.entries({ roundIntervalSecs: cfg.roundIntervalSecs, roundSubmitTimeMs: cfg.roundSubmitTimeMs, roundSignTimeMs: cfg.roundSignTimeMs, roundForfeitNoncesTimeoutMs: cfg.roundForfeitNoncesTimeoutMs })) {
    if (!Number.isFinite(v) || v <= 0) throw new ServerConfigError(`${k} must be positive, got ${v}`);
  }
  if (!Number.isInteger(cfg.minTrustedConfs) || cfg.minTrustedConfs < 0) throw new ServerConfigError(`minTrustedConfs must be a non-negative integer, got ${cfg.minTrustedConfs}`);
  if (cfg.maxArkoorFanout < 1 || cfg.maxVtxoExitDepth < 1 || cfg.requiredBoardConfirmations < 1) throw new ServerConfigError("fan-out, exit depth and confirmations must be positive");
  if (!Number.isSafeInteger(cfg.maxReadMailboxItems) || cfg.maxReadMailboxItems < 1) throw new ServerConfigError(`maxReadMailboxItems must be a positive integer, got ${cfg.maxReadMailboxItems}`);
  if (!Number.isSafeInteger(cfg.roundIntervalSecs) || cfg.roundIntervalSecs < 1 || cfg.roundIntervalSecs > 0xffffffff) throw new ServerConfigError(`roundIntervalSecs must be in 1..4294967295, got ${cfg.roundIntervalSecs}`);
  for (const [k, v] of Object.entries({ offboardSessionTimeoutMs: cfg.offboardSessionTimeoutMs, offboardCheckIntervalMs: cfg.offboardCheckIntervalMs, offboardAcceptableFeeRateDurationMs: cfg.offboardAcceptableFeeRateDurationMs })) {
    if (!Number.isSafeInteger(v) || v <= 0) throw new ServerConfigError(`${k} must be a positive integer, got ${v}`);
  }
  if (cfg.offboardCheckIntervalMs > cfg.offboardSessionTimeoutMs) throw new ServerConfigError("offboardCheckIntervalMs must not exceed offboardSessionTimeoutMs");
  if (!Number.isSafeInteger(cfg.maxOffboardInputs) || cfg.maxOffboardInputs < 1) throw new ServerConfigError(`maxOffboardInputs must be a positive integer, got ${cfg.maxOffboardInputs}`);
  try {
    validateFeeSchedule(cfg.fees);
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    throw new ServerConfigError(text.startsWith("invalid fee schedule") ? text : `invalid fee schedule: ${text}`);
  }
}

/** The server's `ArkInfo` as plain data; the gRPC layer converts it to the message. */
export interface ArkInfo {
  network: string;
  serverPubkey: Uint8Array;
  mailboxPubkey: Uint8Array;
  roundIntervalSecs: number;
  nbRoundNonces: number;
  vtxoExitDelta: number;
  vtxoExpiryDelta: number;
  vtxoLifetime: number;
  htlcSendExpiryDelta: number;
  htlcExpiryDelta: number;
  maxVtxoAmount?: bigint;
  requiredBoardConfirmations: number;
  maxUserInvoiceCltvDelta: number;
  minBoardAmount: bigint;
  offboardFeerateSatVkb: bigint;
  lnReceiveAntiDosRequired: boolean;
  fees: FeeSchedule;
  maxVtxoExitDepth: number;
  maxOffboardInputs: number;
  tosLink?: string;
}
