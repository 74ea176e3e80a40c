import type { FeeEstimates } from "./chain-types.js";

/**
 * The fee rate (sat/vB) to use for confirmation within `targetBlocks`: the estimate of the
 * largest target not above it (the safer, higher rate), or the smallest target's when all are
 * above it. `null` when there are no estimates.
 */
export function feeRateForTarget(estimates: FeeEstimates, targetBlocks: number): number | null {
  let best: [number, number] | null = null;
  let smallest: [number, number] | null = null;
  for (const [target, rate] of estimates) {
    if (target <= targetBlocks && (best === null || target > best[0])) best = [target, rate];
    if (smallest === null || target < smallest[0]) smallest = [target, rate];
  }
  return (best ?? smallest)?.[1] ?? null;
}

/** Confirmation targets queried when a caller asks for "all" estimates. */
export const STANDARD_FEE_TARGETS: readonly number[] = [1, 2, 3, 4, 5, 6, 8, 10, 12, 24, 48, 144, 504, 1008];
