/**
 * Exit cost and refresh decisions (as in bark's `bark::vtxo::selection`): a VTXO is refreshed
 * before its exit chain gets too deep, expires, or costs more to exit than it is worth.
 *
 * | Decision | Rule |
 * |---|---|
 * | must refresh | exit depth ≥ `max_vtxo_exit_depth`, or `tip > expiry − vtxo_refresh_expiry_threshold` |
 * | should refresh | depth ≥ half that maximum, or `tip > expiry − (threshold + 28)`, or amount < rough exit cost, or amount < 330 |
 * | rough exit cost | `2 × feerate × Σ weight of the VTXO's exit txs` |
 */
import type { ServerVtxoPolicy } from "./policy.js";
import type { Vtxo } from "./vtxo.js";
import { exitTransactions } from "./vtxo-exit.js";
import { checkStandard } from "./vtxo-validate.js";
import { ProtocolError } from "./errors.js";
import { feeForWeightCeil, txWeight } from "./exit-weight.js";

/** Extra blocks of the "should refresh" expiry window over the threshold. */
export const SHOULD_REFRESH_EXTRA_BLOCKS = 28;
/** Below this amount a VTXO should be refreshed (dust). */
export const REFRESH_DUST_SAT = 330n;

/** Σ weight of the VTXO's exit transactions (as broadcast, witnesses included). */
export function exitChainWeight(vtxo: Vtxo<ServerVtxoPolicy>): number {
  return exitTransactions(vtxo).reduce((w, tx) => w + txWeight(tx), 0);
}

/** The rough exit cost used for refresh decisions: `2 × feerate × Σ exit weight`, rounded up. */
export function roughExitCost(vtxo: Vtxo<ServerVtxoPolicy>, feeRateSatPerKwu: bigint): bigint {
  return 2n * feeForWeightCeil(feeRateSatPerKwu, exitChainWeight(vtxo));
}

/** Wallet/server parameters of the refresh decision. */
export interface RefreshParams {
  tipHeight: number;
  /** `ArkInfo.max_vtxo_exit_depth` (default 100). */
  maxVtxoExitDepth: number;
  /** Wallet `vtxo_refresh_expiry_threshold` (144 mainnet, 12 otherwise). */
  refreshExpiryThreshold: number;
  /** Fee rate for the exit-cost test. */
  feeRateSatPerKwu: bigint;
}

/** `"must"`, `"should"` or `"no"` refresh, with the first reason found. */
export function refreshNeed(vtxo: Vtxo<ServerVtxoPolicy>, p: RefreshParams): { need: "must" | "should" | "no"; reason?: string } {
  const depth = vtxo.genesis.length;
  if (depth >= p.maxVtxoExitDepth) return { need: "must", reason: "exit depth at the maximum" };
  if (p.tipHeight > vtxo.expiryHeight - p.refreshExpiryThreshold) return { need: "must", reason: "about to expire" };
  if (depth >= Math.floor(p.maxVtxoExitDepth / 2)) return { need: "should", reason: "exit depth past half the maximum" };
  if (p.tipHeight > vtxo.expiryHeight - (p.refreshExpiryThreshold + SHOULD_REFRESH_EXTRA_BLOCKS)) return { need: "should", reason: "expiring soon" };
  if (vtxo.amount < REFRESH_DUST_SAT) return { need: "should", reason: "dust" };
  if (vtxo.amount < roughExitCost(vtxo, p.feeRateSatPerKwu)) return { need: "should", reason: "uneconomical to exit" };
  return { need: "no" };
}

/** An exit that must not be started. */
export class ExitStartError extends ProtocolError {}

/**
 * The checks before starting an exit (as bark's `start`): amount ≥ 330 and, unless
 * explicitly skipped, every output of the exit chain standard and above dust.
 */
export function checkExitStart(vtxo: Vtxo<ServerVtxoPolicy>, opts: { skipStandardCheck?: boolean } = {}): void {
  if (vtxo.amount < REFRESH_DUST_SAT) throw new ExitStartError(`VTXO amount ${vtxo.amount} is below the dust limit`);
  if (opts.skipStandardCheck) return;
  const bad = checkStandard(vtxo);
  if (bad) throw new ExitStartError(`VTXO exit is not standard (${bad.where === "vtxo" ? "own output" : `genesis item ${bad.where}`}): ${bad.reason}`);
}
