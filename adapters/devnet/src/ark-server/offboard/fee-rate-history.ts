/**
 * The recent "regular" fee estimates an offboard's fee rate is checked against (captaind's fee
 * estimator history): a rate is accepted when at least one estimate recorded within
 * `offboard_acceptable_fee_rate_duration` is at least as high. Every estimate the server hands
 * out (`GetOffboardFeeRate`, `ArkInfo`) and every background tick records one, so a rate a wallet
 * was just given always passes, and a rate above every recent estimate fails.
 */
import { satPerKvbToSatPerKwuCeil } from "@tender/ark-protocol";

interface Entry {
  readonly atMs: number;
  readonly satPerKvb: bigint;
}

export class FeeRateHistory {
  private entries: Entry[] = [];

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Records an estimate (sat/kvB). */
  record(satPerKvb: bigint): void {
    this.entries.push({ atMs: this.nowMs(), satPerKvb });
  }

  /** Estimates recorded within the last `windowMs`, oldest first (older ones are forgotten). */
  recent(windowMs: number): readonly Entry[] {
    const from = this.nowMs() - windowMs;
    this.entries = this.entries.filter((e) => e.atMs >= from);
    return this.entries;
  }

  /**
   * `null` when `feeRateSatPerKwu` is acceptable, else the rate it was compared with (the
   * latest estimate in sat/kwu) for the refusal's text.
   */
  check(feeRateSatPerKwu: bigint, windowMs: number, current: bigint): bigint | null {
    const rates = [...this.recent(windowMs).map((e) => e.satPerKvb), current].map(satPerKvbToSatPerKwuCeil);
    return rates.some((r) => r >= feeRateSatPerKwu) ? null : satPerKvbToSatPerKwuCeil(current);
  }
}
