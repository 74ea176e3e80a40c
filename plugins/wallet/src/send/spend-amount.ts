import type { SpendRail } from "@tender/core";
import type { SendDestination } from "./destination-kinds.js";
import type { Bolt11Invoice } from "./lightning/bolt11.js";
import type { Bolt12Offer } from "./lightning/bolt12-offer.js";

/** The spending-cap rail a destination kind is paid on (where the money goes); `other` for kinds plugins added. */
export function capRailOf(kind: string): SpendRail | "other" {
  switch (kind) {
    case "ark": return "ark";
    case "bolt11": case "bolt12": case "lightning-address": case "lnurl": return "lightning";
    case "bitcoin-address": return "onchain";
    default: return "other";
  }
}

const satsOfMsat = (msat: bigint) => (msat + 999n) / 1000n;

/**
 * The sats a payment to `d` will send, as far as it is known before paying: the larger of the
 * request's amount and the amount the invoice or offer (in bitcoin) carries; `undefined` when
 * neither says.
 */
export function payAmountOf(d: SendDestination): bigint | undefined {
  let carried: bigint | undefined;
  if (d.kind === "bolt11") {
    const msat = (d.decoded as Bolt11Invoice | undefined)?.amountMsat;
    if (msat !== undefined) carried = satsOfMsat(msat);
  } else if (d.kind === "bolt12") {
    const offer = d.decoded as Bolt12Offer | undefined;
    if (offer && offer.currency === undefined && offer.amount !== undefined) carried = satsOfMsat(offer.amount);
  }
  if (carried === undefined) return d.amountSat;
  if (d.amountSat === undefined) return carried;
  return d.amountSat > carried ? d.amountSat : carried;
}
