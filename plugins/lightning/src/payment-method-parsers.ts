import type { PaymentMethodParsers } from "@tender/plugin-history";
import { decodeBolt11, decodeBolt12Invoice, decodeBolt12Offer } from "@tender/plugin-wallet";

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** An `invoice` value as barkd reads it: a BOLT11 invoice, else a BOLT12 one; its lowercase form. */
export function parseInvoiceMethod(value: string): string {
  try {
    return decodeBolt11(value).invoice;
  } catch (bolt11) {
    try {
      return decodeBolt12Invoice(value).invoice;
    } catch {
      throw new Error(`invalid invoice: ${message(bolt11)}`);
    }
  }
}

/** An `offer` value: a BOLT12 offer, in lowercase. */
export function parseOfferMethod(value: string): string {
  try {
    return decodeBolt12Offer(value).offer;
  } catch (e) {
    throw new Error(`invalid offer: ${message(e)}`);
  }
}

/**
 * The Lightning rail's payment methods for the history filter (`GET /history?type=invoice|offer&value=`):
 * without them the filter refused both types although Lightning movements record them.
 */
export function registerLightningPaymentMethods(parsers: PaymentMethodParsers): void {
  parsers.register("invoice", parseInvoiceMethod);
  parsers.register("offer", parseOfferMethod);
}
