/**
 * Bitcoin Core prints amounts as JSON numbers with exactly 8 decimals (`0.00010000`). A
 * {@link BtcAmount} in a response object is written that way by {@link toCoreJson}.
 */
export class BtcAmount {
  constructor(readonly sat: bigint) {}

  /** `"0.00010000"` */
  toFixed8(): string {
    const neg = this.sat < 0n;
    const abs = neg ? -this.sat : this.sat;
    const whole = abs / 100_000_000n;
    const frac = (abs % 100_000_000n).toString().padStart(8, "0");
    return `${neg ? "-" : ""}${whole}.${frac}`;
  }
}

/** An amount of `sat` satoshis, printed in BTC. */
export const btc = (sat: bigint | number): BtcAmount => new BtcAmount(typeof sat === "bigint" ? sat : BigInt(Math.round(sat)));

/** A fee rate in sat/vB as Core prints it: BTC per kvB in whole sat/kvB, rounded down as Core's fee rates are (3000 sat over 274 vB: 10948). */
export const btcPerKvb = (satPerVb: number): BtcAmount => btc(Math.floor(satPerVb * 1000 + 1e-6));

const MARK = "\u0000BTC:";

/** JSON text with Core's amount formatting; bigints become plain numbers. */
export function toCoreJson(value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof BtcAmount) return `${MARK}${v.toFixed8()}`;
    if (typeof v === "bigint") return Number(v);
    return v;
  });
  return text.replace(/"\\u0000BTC:(-?\d+\.\d{8})"/g, "$1");
}

/** Parses a BTC amount given as a JSON number or string into sats; `null` when malformed. */
export function satFromBtc(value: unknown): bigint | null {
  const text = typeof value === "number" ? value.toFixed(8) : typeof value === "string" ? value : null;
  if (text === null || !/^\d{1,8}(\.\d{1,8})?$/.test(text)) return null;
  const [whole, frac = ""] = text.split(".");
  return BigInt(whole!) * 100_000_000n + BigInt(frac.padEnd(8, "0"));
}
