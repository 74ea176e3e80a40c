import { InvalidAmountError, InvalidDestinationFormatError } from "./errors.js";

/** Satoshis per unit, by lower-cased unit name (rust-bitcoin's denominations, as barkd parses them). */
const UNITS: Readonly<Record<string, { sats: bigint; decimals: number }>> = {
  btc: { sats: 100_000_000n, decimals: 8 },
  cbtc: { sats: 1_000_000n, decimals: 6 },
  mbtc: { sats: 100_000n, decimals: 5 },
  ubtc: { sats: 100n, decimals: 2 },
  bit: { sats: 100n, decimals: 2 },
  bits: { sats: 100n, decimals: 2 },
  sat: { sats: 1n, decimals: 0 },
  sats: { sats: 1n, decimals: 0 },
  satoshi: { sats: 1n, decimals: 0 },
  satoshis: { sats: 1n, decimals: 0 },
};

/** Largest amount there can be: 21 million BTC. */
export const MAX_MONEY_SAT = 2_100_000_000_000_000n;

/**
 * Parses an amount that carries its unit (`"10000 sat"`, `"10000sat"`, `"0.0001 BTC"`,
 * `"0.1 mBTC"`) into satoshis. A bare number, an unknown unit, more decimals than the unit
 * allows or a value above 21 million BTC throws {@link InvalidAmountError}.
 */
export function parseAmountWithUnit(text: string): bigint {
  const m = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]+)\s*$/.exec(text);
  if (!m) {
    if (/^\s*[\d.]+\s*$/.test(text)) throw new InvalidAmountError(`"${text}" has no unit (e.g. "${text.trim()} sat")`);
    throw new InvalidAmountError(`"${text}" is not an amount with a unit`);
  }
  const unit = UNITS[m[2]!.toLowerCase()];
  if (!unit) throw new InvalidAmountError(`unknown unit "${m[2]}"`);
  const [whole, frac = ""] = m[1]!.split(".");
  const fraction = frac.replace(/0+$/, "");
  if (fraction.length > unit.decimals) throw new InvalidAmountError(`"${text}" is more precise than one satoshi`);
  const sats = BigInt(whole || "0") * unit.sats + (fraction ? BigInt(fraction.padEnd(unit.decimals, "0")) : 0n);
  if (sats > MAX_MONEY_SAT) throw new InvalidAmountError(`"${text}" is more than 21 million BTC`);
  return sats;
}

/** One `send-many` entry split at its first `:` into address and amount. */
export function parseDestinationEntry(entry: string): { address: string; amountSat: bigint } {
  const at = entry.indexOf(":");
  if (at < 0) throw new InvalidDestinationFormatError();
  return { address: entry.slice(0, at), amountSat: parseAmountWithUnit(entry.slice(at + 1)) };
}
