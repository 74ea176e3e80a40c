import { bech32 } from "@scure/base";
import { address as btcAddress, initEccLib, networks } from "bitcoinjs-lib";
import * as ecc from "tiny-secp256k1";
import { BadRequestError } from "@tender/core";
import { PAYMENT_METHOD_TYPES, type PaymentMethodType } from "../movements/movement.js";

/** Parses a payment-method value and returns its canonical string form; throws with the reason when invalid. */
export type PaymentMethodParser = (value: string) => string;

const NETWORKS = [networks.bitcoin, networks.testnet, networks.regtest];
initEccLib(ecc); // taproot (bc1p…) addresses need it

function parseBitcoinAddress(raw: string): string {
  // bech32 may be written all upper case (QR codes); mixed case is invalid (BIP-173)
  const value = /^(bc1|tb1|bcrt1)/i.test(raw) && raw === raw.toUpperCase() ? raw.toLowerCase() : raw;
  for (const n of NETWORKS) {
    try {
      btcAddress.toOutputScript(value, n);
      return value;
    } catch {
      /* try the next network */
    }
  }
  throw new Error(`invalid bitcoin address: ${value}`);
}

function parseOutputScript(value: string): string {
  if (!/^([0-9a-fA-F]{2})*$/.test(value)) throw new Error(`invalid script hex: ${value}`);
  return value.toLowerCase();
}

// Values are parsed as given, as barkd's parsers do: surrounding whitespace makes a value invalid.

function parseLightningAddress(value: string): string {
  const m = /^([a-z0-9\-_.+]+)@([a-z0-9-]+(\.[a-z0-9-]+)+)$/i.exec(value);
  if (!m) throw new Error(`invalid lightning address: ${value}`);
  return `${m[1]!.toLowerCase()}@${m[2]!.toLowerCase()}`;
}

function parseLnurl(value: string): string {
  const v = value.replace(/^lightning:/i, "");
  const decoded = bech32.decodeUnsafe(v.toLowerCase(), 2000);
  if (!decoded || decoded.prefix !== "lnurl") throw new Error(`invalid lnurl: ${value}`);
  return v.toLowerCase();
}

/**
 * The registry of payment-method parsers used by the history filter. The history plugin knows the
 * chain-level types; the rails register theirs (the Ark plugin `ark`, the Lightning plugin
 * `invoice` and `offer`) — this is the history plugin's extension point.
 */
export class PaymentMethodParsers {
  private readonly parsers = new Map<PaymentMethodType, PaymentMethodParser>([
    ["bitcoin", parseBitcoinAddress],
    ["output-script", parseOutputScript],
    ["lightning-address", parseLightningAddress],
    ["lnurl", parseLnurl],
    ["custom", (v) => v],
  ]);

  register(type: PaymentMethodType, parser: PaymentMethodParser): void {
    this.parsers.set(type, parser);
  }

  /** `{type, value}` in canonical form, or a 400 with barkd's message. */
  canonical(type: string, value: string): { type: PaymentMethodType; value: string } {
    if (!(PAYMENT_METHOD_TYPES as readonly string[]).includes(type)) {
      throw new BadRequestError(`bad request: invalid payment method: unknown payment method type: ${type}`);
    }
    const t = type as PaymentMethodType;
    const parser = this.parsers.get(t);
    if (!parser) throw new BadRequestError(`bad request: invalid payment method: ${type} payment methods are not supported by the enabled plugins`);
    try {
      return { type: t, value: parser(value) };
    } catch (e) {
      throw new BadRequestError(`bad request: invalid payment method: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Canonical form of a stored value (as recorded; unparseable values compare verbatim). */
  canonicalOrSelf(type: PaymentMethodType, value: string): string {
    const parser = this.parsers.get(type);
    if (!parser) return value;
    try {
      return parser(value);
    } catch {
      return value;
    }
  }
}
