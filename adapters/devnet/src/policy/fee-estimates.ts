/** Settable fee estimates: confirmation target (blocks) → feerate (sat/vB). */
import { InvalidInputError } from "../node/node-errors.js";
import type { FeeEstimateTable } from "../node/types.js";

/** Defaults: 20 sat/vB next block down to 1 sat/vB within a day. */
export const DEFAULT_FEE_ESTIMATES: FeeEstimateTable = { 1: 20, 3: 10, 6: 5, 144: 1 };

/** A table of estimates with bitcoind-like lookup. */
export class FeeEstimates {
  private table: [number, number][] = [];

  constructor(initial: FeeEstimateTable = DEFAULT_FEE_ESTIMATES) {
    this.set(initial);
  }

  /** Replaces the table; targets must be positive integers, feerates positive finite numbers. */
  set(table: FeeEstimateTable): void {
    const entries = Object.entries(table).map(([k, v]) => [Number(k), v] as [number, number]);
    if (entries.length === 0) throw new InvalidInputError("fee estimate table is empty");
    for (const [target, rate] of entries) {
      if (!Number.isInteger(target) || target < 1) throw new InvalidInputError(`bad confirmation target ${target}`);
      if (typeof rate !== "number" || !Number.isFinite(rate) || rate <= 0) throw new InvalidInputError(`bad feerate ${rate} for target ${target}`);
    }
    this.table = entries.sort((a, b) => a[0] - b[0]);
  }

  /** The table as given. */
  get(): FeeEstimateTable {
    return Object.fromEntries(this.table);
  }

  /** Estimate for `target` blocks: the entry with the largest target ≤ `target`, else the smallest target's. */
  estimate(target: number): number {
    let rate = this.table[0]![1];
    for (const [t, r] of this.table) if (t <= target) rate = r;
    return rate;
  }
}
