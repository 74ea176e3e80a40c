import { BadRequestError, InternalServerError } from "@tender/core";
import { decodeArkAddress } from "@tender/ark-protocol";
import { bech32m } from "@scure/base";
import { address as btcAddress, networks, type Network as BtcNetwork } from "bitcoinjs-lib";
import { decodeBolt11, type Bolt11Invoice } from "./lightning/bolt11.js";
import { decodeBolt12Offer, type Bolt12Offer } from "./lightning/bolt12-offer.js";
import { isLightningDecodeError } from "./lightning/decode-error.js";
import { decodeLnurl, type Lnurl } from "./lightning/lnurl.js";

/**
 * The kinds of `POST /api/v1/wallet/send` destination. Each is paid by the rail plugin that
 * claims it; an unclaimed kind answers the error barkd gives when it does not pay that kind.
 */
export const DESTINATION_KINDS = ["ark", "bolt11", "bolt12", "lightning-address", "lnurl", "bitcoin-address", "bip321"] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** barkd's texts for the destinations `send` refuses. */
export const SEND_ERRORS = {
  notADestination: "Argument is not a valid destination. Supported are: ark addresses, bolt11 invoices, bolt12 offers and lightning addresses",
  differentServer: "Ark address is for different server",
  amountMissing: "amount missing",
  offboardsDisabled: "offboards are temporarily disabled",
  bolt11Comment: "comment is not supported for BOLT-11 invoices",
  bolt12Comment: "comment is not supported for BOLT-12 offers",
  lnAddressAmount: "bad request: amount is required for Lightning addresses",
  lnurlAmount: "bad request: amount is required for LNURL",
  lightningUnavailable: "Lightning payments are not available in this daemon",
  arkUnavailable: "Ark payments are not available in this daemon",
} as const;

/** A `send` request whose destination was recognized and passed the rules of its kind. */
export interface SendDestination {
  /** One of {@link DESTINATION_KINDS}, or a kind a plugin added (see `SendDestinations.addKind`). */
  readonly kind: DestinationKind | (string & {});
  /** The destination as given (a `lightning:` prefix removed for Lightning kinds). */
  readonly value: string;
  /** Sats (a u64: may exceed 2^53); `undefined` when the request has none (allowed for BOLT11/BOLT12, which may carry the amount). */
  readonly amountSat: bigint | undefined;
  readonly comment: string | undefined;
  /** The loaded wallet's network (`mainnet`, `signet`, `mutinynet`, `regtest`). */
  readonly walletNetwork: string;
  /** The decoded destination, for the kinds that are decoded to be recognized (`bolt11`, `bolt12`, `lnurl`). */
  readonly decoded?: Bolt11Invoice | Bolt12Offer | Lnurl;
}

/** The error barkd answers for a kind no loaded rail pays. */
export function unclaimedKindError(kind: DestinationKind | (string & {})): Error {
  switch (kind) {
    case "ark": return new InternalServerError(SEND_ERRORS.arkUnavailable);
    case "bitcoin-address": return new InternalServerError(SEND_ERRORS.offboardsDisabled);
    case "bip321": return new BadRequestError(SEND_ERRORS.notADestination);
    case "bolt11": case "bolt12": case "lightning-address": case "lnurl": return new InternalServerError(SEND_ERRORS.lightningUnavailable);
    default: return new BadRequestError(SEND_ERRORS.notADestination);
  }
}

function btcNetworkOf(walletNetwork: string): BtcNetwork {
  return walletNetwork === "mainnet" ? networks.bitcoin : walletNetwork === "regtest" ? networks.regtest : networks.testnet;
}

/** The longest bitcoin address: a segwit address has at most 90 characters, a base58 one 35. */
const MAX_ADDRESS_LENGTH = 90;

function isBitcoinAddressAnyNetwork(s: string): boolean {
  // base58 decoding takes time quadratic in the length: a long string is no address, and must not
  // hold the event loop (a 100 000-character destination took minutes)
  if (s.length > MAX_ADDRESS_LENGTH) return false;
  return [networks.bitcoin, networks.testnet, networks.regtest].some((n) => {
    try {
      btcAddress.toOutputScript(s, n);
      return true;
    } catch {
      return false;
    }
  });
}

/** A bech32m string with an Ark HRP that our decoder refuses: the foreign (Arkade) format. */
function isForeignArkAddress(s: string): boolean {
  const lower = s.toLowerCase();
  if (!lower.startsWith("ark1") && !lower.startsWith("tark1")) return false;
  try {
    bech32m.decode(lower as `${string}1${string}`, 1023);
    return true;
  } catch {
    return false;
  }
}

const LIGHTNING_ADDRESS = /^[a-z0-9\-_.+]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

/**
 * `decode(s)`, or `undefined` when `s` is not a valid value of that format: a string that does not
 * decode as a kind is not that kind (a corrupt or truncated invoice ends as "not a valid
 * destination", as in barkd). Errors other than decoding errors propagate.
 */
function tryDecode<T>(decode: (s: string) => T, s: string): T | undefined {
  try {
    return decode(s);
  } catch (e) {
    if (isLightningDecodeError(e)) return undefined;
    throw e;
  }
}

/**
 * Recognizes a `send` destination in barkd's order — Ark address of this protocol, foreign Ark
 * address, BOLT11, BOLT12 offer, Lightning address, LNURL, bitcoin address, BIP-321 URI — and
 * applies the request rules of its kind (amount and comment), throwing barkd's error for each.
 * Then the kinds plugins added (`recognizeAdded`, answering the kind or `undefined`); anything
 * else is 400 "not a valid destination".
 */
export function classifyDestination(
  raw: string, amountSat: bigint | number | null | undefined, comment: string | null | undefined, walletNetwork: string,
  recognizeAdded: (destination: string) => string | undefined = () => undefined,
): SendDestination {
  // as given: barkd's parsers take no surrounding whitespace, so a padded address is no destination
  const s = raw;
  const dest = (kind: SendDestination["kind"], value: string): SendDestination => ({
    kind, value, amountSat: amountSat == null ? undefined : BigInt(amountSat), comment: comment ?? undefined, walletNetwork,
  });
  let isArk = false;
  try {
    decodeArkAddress(s);
    isArk = true;
  } catch {
    /* not one of ours */
  }
  if (isArk) {
    if (amountSat == null) throw new InternalServerError(SEND_ERRORS.amountMissing);
    return dest("ark", s);
  }
  if (isForeignArkAddress(s)) throw new BadRequestError(SEND_ERRORS.differentServer);
  // Lightning kinds: each is decoded with its full reader (BOLT 11, BOLT 12, LUD-01), not matched by shape
  const lightning = s.replace(/^lightning:/i, "");
  const invoice = tryDecode(decodeBolt11, lightning);
  if (invoice) {
    if (comment != null) throw new BadRequestError(SEND_ERRORS.bolt11Comment);
    return { ...dest("bolt11", invoice.invoice), decoded: invoice };
  }
  const offer = tryDecode(decodeBolt12Offer, lightning);
  if (offer) {
    if (comment != null) throw new BadRequestError(SEND_ERRORS.bolt12Comment);
    return { ...dest("bolt12", offer.offer), decoded: offer };
  }
  if (LIGHTNING_ADDRESS.test(s)) {
    if (amountSat == null) throw new BadRequestError(SEND_ERRORS.lnAddressAmount);
    return dest("lightning-address", s);
  }
  const lnurl = tryDecode(decodeLnurl, lightning);
  if (lnurl) {
    if (amountSat == null) throw new BadRequestError(SEND_ERRORS.lnurlAmount);
    return { ...dest("lnurl", lnurl.lnurl), decoded: lnurl };
  }
  if (isBitcoinAddressAnyNetwork(s)) {
    try {
      btcAddress.toOutputScript(s, btcNetworkOf(walletNetwork));
    } catch {
      throw new InternalServerError(`address ${s} is not valid for configured network ${walletNetwork}`);
    }
    if (amountSat == null) throw new InternalServerError(SEND_ERRORS.amountMissing);
    return dest("bitcoin-address", s);
  }
  if (/^bitcoin:/i.test(s)) return dest("bip321", s);
  const added = recognizeAdded(s);
  if (added !== undefined) return dest(added, s);
  throw new BadRequestError(SEND_ERRORS.notADestination);
}
