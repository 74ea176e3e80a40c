/**
 * Settings of the server's Lightning receive side and of the VTXO pool that funds it, with
 * captaind's defaults; the `test` profile sets {@link TEST_RECEIVE_SETTINGS}.
 */
import type { ArkServerConfig } from "../server-config.js";

/** One pool target: keep `count` server-owned VTXOs of `amountSat`. */
export interface PoolTarget {
  readonly amountSat: bigint;
  readonly count: number;
}

/** Lightning receive timings and the VTXO pool. */
export interface LightningReceiveSettings {
  /** Expiry of the hold invoices the server issues, in seconds (`invoice_expiry`). */
  readonly invoiceExpirySecs: number;
  /** An `ACCEPTED` receive whose HTLCs are not granted within this many ms is canceled (`receive_htlc_forward_timeout`). */
  readonly htlcForwardTimeoutMs: number;
  /** Period of the hold-invoice monitor and the settler, in ms. */
  readonly monitorIntervalMs: number;
  /** `CheckLightningReceive(wait)` returns after this many ms at the latest (`invoice_poll_interval`). */
  readonly checkWaitMs: number;
  /** Pool targets (`vtxopool.vtxo_targets`). */
  readonly poolTargets: readonly PoolTarget[];
  /** Issue when a target falls below this share of its count, in percent (`vtxo_target_issue_threshold`). */
  readonly poolIssueThresholdPct: number;
  /** Lifetime of pool VTXOs in blocks (`vtxopool.vtxo_lifetime`). */
  readonly poolVtxoLifetime: number;
  /** Pool VTXOs expiring within this many blocks are not granted (`vtxo_pre_expiry`). */
  readonly poolPreExpiry: number;
  /** Pool change deeper than this is not reused (`max_vtxo_exit_depth` of the pool). */
  readonly poolMaxExitDepth: number;
  /** Period of the pool's issuance check, in ms (`issue_interval`). */
  readonly poolIssueIntervalMs: number;
}

const DEFAULTS: LightningReceiveSettings = {
  invoiceExpirySecs: 48 * 3600,
  htlcForwardTimeoutMs: 3 * 60_000,
  monitorIntervalMs: 1_000,
  checkWaitMs: 30_000,
  poolTargets: [{ amountSat: 1_000n, count: 10 }, { amountSat: 10_000n, count: 10 }],
  poolIssueThresholdPct: 80,
  poolVtxoLifetime: 432,
  poolPreExpiry: 144,
  poolMaxExitDepth: 3,
  poolIssueIntervalMs: 60_000,
};

/** Values for tests: bark's harness pool (`10000sat:3` and, instead of `1btc:3`, a smaller second target that keeps test wallets small), short periods. */
export const TEST_RECEIVE_SETTINGS: LightningReceiveSettings = {
  ...DEFAULTS,
  monitorIntervalMs: 200,
  checkWaitMs: 10_000,
  poolTargets: [{ amountSat: 10_000n, count: 3 }, { amountSat: 1_000_000n, count: 3 }],
  poolIssueThresholdPct: 50,
  poolPreExpiry: 12,
  poolIssueIntervalMs: 3_000,
};

/** The effective settings of a config: captaind's defaults under what the config sets. */
export function receiveSettings(cfg: ArkServerConfig): LightningReceiveSettings {
  return { ...DEFAULTS, ...cfg.lightningReceive };
}
