/**
 * BIP-321 `bitcoin:` URIs as barkd writes them: the on-chain address in the body (mainnet only),
 * then `amount` (BTC), `label`, `message`, `lightning`, `tb` and the `ark` extension, every value
 * percent-encoded (all but `A–Z a–z 0–9 - . _ ~`, UTF-8).
 */
export interface Bip321Parts {
  /** Mainnet on-chain address, written as the URI body. */
  address?: string;
  amountSat?: bigint;
  label?: string;
  message?: string;
  /** BOLT11 invoices (`lightning=`). */
  lightning?: string[];
  /** On-chain addresses of a test network (`tb=`). */
  tb?: string[];
  /** Ark addresses (`ark=`). */
  ark?: string[];
}

const SATS_PER_BTC = 100_000_000n;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** Sats as a BTC decimal without trailing zeros: 100000 → `0.001`, 100000000 → `1`. */
export function formatBtc(sat: bigint): string {
  if (sat < 0n) throw new Error("negative amount");
  const whole = sat / SATS_PER_BTC;
  const frac = (sat % SATS_PER_BTC).toString().padStart(8, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole.toString();
}

/** Percent-encodes every byte of the UTF-8 text but the unreserved characters (upper-case hex). */
export function percentEncode(value: string): string {
  let out = "";
  for (const ch of value) {
    if (UNRESERVED.test(ch)) {
      out += ch;
      continue;
    }
    for (const b of new TextEncoder().encode(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The URI of `parts`. */
export function bip321Uri(parts: Bip321Parts): string {
  const params: [string, string][] = [];
  if (parts.amountSat !== undefined) {
    if (parts.amountSat <= 0n) throw new Error("amount cannot be zero");
    params.push(["amount", formatBtc(parts.amountSat)]);
  }
  if (parts.label !== undefined) params.push(["label", parts.label]);
  if (parts.message !== undefined) params.push(["message", parts.message]);
  for (const i of parts.lightning ?? []) params.push(["lightning", i]);
  for (const a of parts.tb ?? []) params.push(["tb", a]);
  for (const a of parts.ark ?? []) params.push(["ark", a]);
  const query = params.map(([k, v]) => `${k}=${percentEncode(v)}`).join("&");
  return `bitcoin:${parts.address ?? ""}${query ? `?${query}` : ""}`;
}

/** A bech32/bech32m on-chain address (case-insensitive); base58 ones are case-sensitive. */
function isBech32Address(address: string): boolean {
  return /^(bc|tb|bcrt)1[02-9ac-hj-np-z]+$/i.test(address);
}

const hasLowercase = (s: string) => /\p{Lowercase}/u.test(s);

/**
 * Whether upper-casing the URI keeps its meaning: no label or message with a lower-case letter and
 * no base58 on-chain address (Ark addresses and invoices are bech32, case-insensitive).
 */
export function isUppercasable(parts: Bip321Parts): boolean {
  return !(parts.label !== undefined && hasLowercase(parts.label))
    && !(parts.message !== undefined && hasLowercase(parts.message))
    && (parts.address === undefined || isBech32Address(parts.address))
    && (parts.tb ?? []).every(isBech32Address);
}

/** The upper-cased URI (for QR alphanumeric mode), or `undefined` when that would change its meaning. */
export function uppercaseBip321Uri(parts: Bip321Parts): string | undefined {
  return isUppercasable(parts) ? bip321Uri(parts).toUpperCase() : undefined;
}
