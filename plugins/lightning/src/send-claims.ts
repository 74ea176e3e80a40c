import { BadRequestError } from "@tender/core";
import type { Bolt11Invoice, Bolt12Offer, Lnurl, SendDestinations } from "@tender/plugin-wallet";
import type { LightningSender } from "./lightning-sender.js";
import { lightningAddressUrl, LnurlPayError, parseHostOverrides, type LnurlHostOverrides } from "./lnurl-pay.js";

/**
 * Claims the Lightning kinds of `POST /wallet/send` (and so of `POST /lightning/pay`): BOLT11
 * invoices, BOLT12 offers, Lightning addresses and LNURL-pay.
 */
export function claimSendKinds(send: SendDestinations, sender: LightningSender, plugin: string): void {
  send.claim("bolt11", plugin, async (d) => sender.payInvoice(d.decoded as Bolt11Invoice, d.amountSat));
  send.claim("bolt12", plugin, async (d) => sender.payOffer(d.decoded as Bolt12Offer, d.amountSat));
  // the classifier requires an amount for both LNURL kinds
  send.claim("lnurl", plugin, async (d) => sender.payLnurl((d.decoded as Lnurl).url, d.amountSat!, d.comment));
  send.claim("lightning-address", plugin, async (d) => {
    let url: string;
    try {
      url = lightningAddressUrl(d.value);
    } catch (e) {
      if (e instanceof LnurlPayError) throw new BadRequestError(e.message);
      throw e;
    }
    return sender.payLnurl(url, d.amountSat!, d.comment);
  });
}

/**
 * The LNURL host overrides of a regtest wallet: plugin config `lnurlHostOverrides`
 * (`{"host": "http://127.0.0.1:port/prefix"}`) and `TENDER_LNURL_HOST_OVERRIDE`
 * (`host=url,…`). Production networks ignore them (https only).
 */
export function lnurlHostOverrides(pluginConfig: Record<string, unknown>): LnurlHostOverrides {
  return parseHostOverrides(process.env.TENDER_LNURL_HOST_OVERRIDE, pluginConfig.lnurlHostOverrides);
}
