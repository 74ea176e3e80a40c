import { feeRateForTarget, type ChainSource } from "@tender/core";

/** Confirmation targets behind barkd's three rates, and the target of the wallet's sends. */
export const FEE_TARGETS = { fast: 1, regular: 3, slow: 6 } as const;

/**
 * The on-chain fee rates in sat/vB, as precise as the chain source gives them (Bitcoin Core:
 * sat/kvB). Sends pay these rates; barkd's `OnchainFeeRatesResponse` shows them rounded up to
 * whole sat/vB ({@link wholeSatPerVb}).
 */
export interface OnchainFeeRates {
  readonly fastSatPerVb: number;
  readonly regularSatPerVb: number;
  readonly slowSatPerVb: number;
}

/** Rates used when the chain source has no estimates (e.g. a fresh regtest chain). */
export function fallbackRates(satPerVb: number): OnchainFeeRates {
  return { fastSatPerVb: satPerVb, regularSatPerVb: satPerVb, slowSatPerVb: satPerVb };
}

/** A rate as barkd reports it: whole sat/vB, rounded up (7.001 → 8). */
export function wholeSatPerVb(satPerVb: number): number {
  return Math.ceil(satPerVb - 1e-9);
}

/**
 * Asks the chain source for estimates at 1, 3 and 6 blocks; each keeps its precision, never
 * below 1 sat/vB. A target the source has no estimate for gets `fallbackSatPerVb`.
 */
export async function fetchFeeRates(source: ChainSource, fallbackSatPerVb: number): Promise<OnchainFeeRates> {
  const estimates = await source.getFeeEstimates([FEE_TARGETS.fast, FEE_TARGETS.regular, FEE_TARGETS.slow]);
  const at = (target: number): number => {
    const r = feeRateForTarget(estimates, target);
    return r === null || !Number.isFinite(r) ? fallbackSatPerVb : Math.max(1, r);
  };
  return { fastSatPerVb: at(FEE_TARGETS.fast), regularSatPerVb: at(FEE_TARGETS.regular), slowSatPerVb: at(FEE_TARGETS.slow) };
}
