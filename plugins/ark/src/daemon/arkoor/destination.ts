import { BadRequestError, InternalServerError } from "@tender/core";
import { bech32m } from "@scure/base";
import { address as btcAddress, networks, type Network as BtcNetwork } from "bitcoinjs-lib";
import { decodeArkAddress, type ArkAddress } from "@tender/ark-protocol";

/** A `POST /wallet/send` destination this plugin pays itself: an Ark address. */
export interface ArkDestination {
  kind: "ark";
  address: string;
  decoded: ArkAddress;
}

/** Texts of barkd for the destinations it refuses (rest-api §3.1 `send`). */
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
} as const;

function btcNetworkOf(walletNetwork: string): BtcNetwork {
  return walletNetwork === "mainnet" ? networks.bitcoin : walletNetwork === "regtest" ? networks.regtest : networks.testnet;
}

function isBitcoinAddressAnyNetwork(s: string): boolean {
  for (const n of [networks.bitcoin, networks.testnet, networks.regtest]) {
    try {
      btcAddress.toOutputScript(s, n);
      return true;
    } catch {
      /* next */
    }
  }
  return false;
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

/**
 * Classifies a `send` destination in barkd's order and throws barkd's error for every kind this
 * daemon does not pay (Lightning, on-chain, garbage). Returns the Ark destination otherwise.
 * `amountSat` and `comment` are the request's.
 */
export function classifySendDestination(raw: string, amountSat: number | null | undefined, comment: string | null | undefined, walletNetwork: string): ArkDestination {
  const s = raw.trim();
  try {
    const decoded = decodeArkAddress(s);
    if (amountSat == null) throw new InternalServerError(SEND_ERRORS.amountMissing);
    return { kind: "ark", address: s, decoded };
  } catch (e) {
    if (e instanceof InternalServerError) throw e;
  }
  if (isForeignArkAddress(s)) throw new BadRequestError(SEND_ERRORS.differentServer);
  const lower = s.toLowerCase().replace(/^lightning:/, "");
  if (/^ln(bc|tb|bcrt|tbs|sb)[0-9]*[munp]?1[02-9ac-hj-np-z]+$/.test(lower)) {
    if (comment != null) throw new BadRequestError(SEND_ERRORS.bolt11Comment);
    throw new InternalServerError(SEND_ERRORS.lightningUnavailable);
  }
  if (/^lno1[02-9ac-hj-np-z]+$/.test(lower)) {
    if (comment != null) throw new BadRequestError(SEND_ERRORS.bolt12Comment);
    throw new InternalServerError(SEND_ERRORS.lightningUnavailable);
  }
  if (/^[a-z0-9\-_.+]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(s)) {
    if (amountSat == null) throw new BadRequestError(SEND_ERRORS.lnAddressAmount);
    throw new InternalServerError(SEND_ERRORS.lightningUnavailable);
  }
  if (/^lnurl1[02-9ac-hj-np-z]+$/.test(lower)) {
    if (amountSat == null) throw new BadRequestError(SEND_ERRORS.lnurlAmount);
    throw new InternalServerError(SEND_ERRORS.lightningUnavailable);
  }
  if (isBitcoinAddressAnyNetwork(s)) {
    try {
      btcAddress.toOutputScript(s, btcNetworkOf(walletNetwork));
    } catch {
      throw new InternalServerError(`address ${s} is not valid for configured network ${walletNetwork}`);
    }
    if (amountSat == null) throw new InternalServerError(SEND_ERRORS.amountMissing);
    throw new InternalServerError(SEND_ERRORS.offboardsDisabled);
  }
  throw new BadRequestError(SEND_ERRORS.notADestination);
}
